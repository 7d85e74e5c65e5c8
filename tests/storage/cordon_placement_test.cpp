// cordon_placement_test.cpp: cordoned log directories take no new partition, whatever the strategy
// (KIP-1066 as the host's guarantee), and a broker with every directory cordoned refuses creation
// with Kafka's error.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "broker/kafka_errors.h"
#include "host_test_support.h"
#include "storage/log_manager.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::FakeDiskProbe;
using test::TempDir;

constexpr uint64_t kMB = 1000ull * 1000;

// Kafka's controller answer when no broker has an uncordoned log directory: StripedReplicaPlacer's
// InvalidReplicationFactorException ("All brokers are currently fenced, or have all their log
// directories cordoned.", metadata/src/main/java/org/apache/kafka/metadata/placement/
// StripedReplicaPlacer.java, as KIP-1066 changed it in KAFKA-19774), wrapped by
// ReplicationControlManager.createTopic (metadata/src/main/java/org/apache/kafka/controller/
// ReplicationControlManager.java) as "Unable to replicate the partition <rf> time(s): <message>"
// with INVALID_REPLICATION_FACTOR. This broker places one replica.
constexpr const char* kKafkaAllCordoned =
    "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or have all "
    "their log directories cordoned.";

struct Strategy {
  std::string name;
  fs::path plugin_dir;  // empty: the build's plugin folder (test::plugin_dir())
};

// Names the case in test output (GoogleTest would otherwise print the struct's raw bytes).
void PrintTo(const Strategy& s, std::ostream* out) { *out << s.name; }

class CordonPlacementTest : public ::testing::TestWithParam<Strategy> {
 protected:
  void SetUp() override {
    for (const char* name : {"d1", "d2", "d3"}) dirs_.push_back(tmp_.path() / name);
    // d1 has the most free space and is first in log.dirs: every strategy here likes it best.
    probe_->set(dirs_[0], 1000 * kMB, 900 * kMB);
    probe_->set(dirs_[1], 1000 * kMB, 500 * kMB);
    probe_->set(dirs_[2], 1000 * kMB, 400 * kMB);
    LogManager::Options options;
    options.log_dirs = dirs_;
    options.in_memory = true;
    logs_ = std::make_unique<LogManager>(options, probe_, slot_);
    logs_->startup();
    StrategyLoadSpec spec;
    spec.plugin_dir = GetParam().plugin_dir.empty() ? test::plugin_dir() : GetParam().plugin_dir;
    spec.name = GetParam().name;
    slot_.publish(logs_->load_strategy(spec));
  }

  TempDir tmp_;
  std::vector<fs::path> dirs_;
  std::shared_ptr<FakeDiskProbe> probe_ = std::make_shared<FakeDiskProbe>();
  StrategySlot slot_;
  std::unique_ptr<LogManager> logs_;
};

TEST_P(CordonPlacementTest, FiftyCreationsNeverLandOnTheCordonedDir) {
  logs_->set_cordoned([&](const fs::path& d) { return d == dirs_[0]; });
  int on_each[3] = {0, 0, 0};
  for (int32_t p = 0; p < 50; ++p) {
    PlacementResult r = logs_->create_partition("t", p, 1 * kMB);
    const int i = logs_->dir_index(r.log_dir);
    ASSERT_GE(i, 0) << r.log_dir;
    ++on_each[i];
  }
  EXPECT_EQ(on_each[0], 0) << GetParam().name << " placed on the cordoned dir";
  EXPECT_EQ(on_each[1] + on_each[2], 50);
}

TEST_P(CordonPlacementTest, EveryDirCordonedRefusesCreationWithKafkasError) {
  logs_->set_cordoned([](const fs::path&) { return true; });
  try {
    logs_->create_partition("t", 0);
    FAIL() << "creation succeeded with every dir cordoned";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kEveryDirCordoned);
    // What the broker's faces answer for it: Kafka's controller's error and sentence.
    const KafkaError answer = kafka_error(e);
    EXPECT_EQ(answer.code(), ErrorCode::kInvalidReplicationFactor);
    EXPECT_STREQ(answer.what(), kKafkaAllCordoned);
  }
  EXPECT_EQ(logs_->partition_count(), 0u);
  // Lifting one cordon lets creation go there, and only there.
  logs_->set_cordoned([&](const fs::path& d) { return d != dirs_[2]; });
  EXPECT_EQ(fs::path(logs_->create_partition("t", 0).log_dir), dirs_[2]);
}

TEST_P(CordonPlacementTest, ARememberedPreferenceForACordonedDirIsNotFollowed) {
  logs_->remember_preferred_dir({"t", 0}, dirs_[0]);
  logs_->set_cordoned([&](const fs::path& d) { return d == dirs_[0]; });
  PlacementResult r = logs_->create_partition("t", 0);
  EXPECT_NE(fs::path(r.log_dir), dirs_[0]);
  EXPECT_NE(r.strategy, "preferred");
}

// The three shipped strategies, and a test plugin that ignores cordons and ranks in log.dirs
// order, so the cordoned d1 is always its first choice.
INSTANTIATE_TEST_SUITE_P(
    EveryStrategy, CordonPlacementTest,
    ::testing::Values(Strategy{"partition", {}}, Strategy{"size", {}}, Strategy{"cordon", {}},
                      Strategy{"swaptest", fs::path(LDS_SWAP_V1_FILE).parent_path()}),
    [](const ::testing::TestParamInfo<Strategy>& param) { return param.param.name; });

}  // namespace
}  // namespace lds
