// cordon_guarantee_test.cpp: a real `lds-host serve` with cordoned.log.dirs = "*" refuses every
// creation with Kafka's error under strategies that ignore cordons themselves.
#include <gtest/gtest.h>

#include <string>

#include "server_fixture.h"

namespace lds::integration {
namespace {

class CordonGuaranteeTest : public ServerFixture,
                            public ::testing::WithParamInterface<const char*> {};

TEST_P(CordonGuaranteeTest, EveryDirCordonedRefusesCreationWithKafkasError) {
  ServerConfig c = default_config(2, GetParam());
  c.extra_lines.push_back("cordoned.log.dirs = \"*\"");
  ASSERT_NO_FATAL_FAILURE(start(c));
  json r = call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  for (const auto& p : r["partitions"]) {
    EXPECT_EQ(p["error"], "INVALID_REPLICATION_FACTOR") << r.dump();
    // Kafka's controller message; its source is cited in tests/storage/cordon_placement_test.cpp.
    EXPECT_EQ(p["message"],
              "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or "
              "have all their log directories cordoned.");
    EXPECT_EQ(p["created"], false);
  }
  for (const auto& d : c.log_dirs) {
    for (const auto& e : fs::directory_iterator(d)) {
      EXPECT_FALSE(e.path().filename().string().starts_with("t-")) << e.path();
    }
  }
  // The command-line client says the same and exits 1.
  ProcessResult cli =
      run_host({"create", "--config", config_file_.string(), "--topic", "u", "--partitions", "1"});
  EXPECT_EQ(cli.exit_code, 1);
  EXPECT_NE(cli.err.find("INVALID_REPLICATION_FACTOR"), std::string::npos) << cli.err;
}

INSTANTIATE_TEST_SUITE_P(StrategiesThatIgnoreCordons, CordonGuaranteeTest,
                         ::testing::Values("partition", "size"));

}  // namespace
}  // namespace lds::integration
