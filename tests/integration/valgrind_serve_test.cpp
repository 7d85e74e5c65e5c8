// valgrind_serve_test.cpp: a short scenario against lds-host serve running under Valgrind; a clean
// exit status after SIGTERM means no memory errors and no definite leaks.
#include <gtest/gtest.h>

#include <string>

#include "admin/admin_client.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

class ValgrindServeTest : public ServerFixture {};

TEST_F(ValgrindServeTest, ServeScenarioHasNoMemoryErrorsOrDefiniteLeaks) {
  if (!on_path("valgrind")) GTEST_SKIP() << "valgrind is not installed (not on PATH)";
  force_valgrind();
  ServerConfig config = default_config(3, "partition");
  ASSERT_NO_FATAL_FAILURE(start(config));

  call_ok({{"api", "CreatePartitions"}, {"topic", "vg"}, {"partitions", {0, 1, 2}}});
  for (int32_t p = 0; p < 3; ++p) {
    call_ok({{"api", "Produce"}, {"topic", "vg"}, {"partition", p}, {"bytes", 70000}});
  }
  call_ok({{"api", "DescribeLogDirs"}});

  // A hot swap (the old plugin is unloaded), a cordon, a refused change, then placements.
  call_ok({{"api", "IncrementalAlterConfigs"},
           {"configs", {{{"name", "log.directory.select.strategy"}, {"value", "size"}}}}});
  call_ok({{"api", "IncrementalAlterConfigs"},
           {"configs",
            {{{"name", "log.directory.select.strategy"}, {"value", "cordon"}},
             {{"name", "cordoned.log.dirs"}, {"value", config.log_dirs[0].string()}}}}});
  json refused =
      call({{"api", "IncrementalAlterConfigs"},
            {"configs", {{{"name", "log.directory.select.strategy"}, {"value", "nosuch"}}}}});
  EXPECT_EQ(refused["error"], "INVALID_CONFIG") << refused.dump();
  json more = call_ok({{"api", "CreatePartitions"},
                       {"topic", "vg2"},
                       {"partitions", {0, 1}},
                       {"expectedBytes", 4096}});
  for (const auto& p : more["partitions"]) EXPECT_NE(p["logDir"], config.log_dirs[0].string());
  call_ok({{"api", "DescribeConfigs"}});

  {
    lds::AdminClient client(socket_);
    json bad = json::parse(client.call("not json"), nullptr, false);
    EXPECT_EQ(bad.value("error", "?"), "INVALID_REQUEST");
    json ok = json::parse(client.call(R"({"api":"DescribeLogDirs"})"), nullptr, false);
    EXPECT_EQ(ok.value("error", "?"), "NONE");
  }
  call_ok({{"api", "DeleteTopic"}, {"topic", "vg"}});

  // stop() expects exit status 0; Valgrind turns any error or definite leak into 1.
  ASSERT_NO_FATAL_FAILURE(stop());
}

}  // namespace
}  // namespace lds::integration
