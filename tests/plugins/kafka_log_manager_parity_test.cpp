// Kafka 4.4.0's LogManagerTest cases about the log dir of a new partition, ported to the shipped
// strategies through the ABI: the rule itself, one rank call at a time, with the host left out.
// tests/storage/kafka_log_manager_host_parity_test.cpp ports the same cases to the host's
// LogManager, which also drops cordoned dirs and handles offline dirs, preferences and fallbacks.
//
// Source: Apache Kafka 4.4.0, storage/src/test/java/org/apache/kafka/storage/internals/log/
// LogManagerTest.java (the class moved there from core/src/test/scala/unit/kafka/log/ in 4.4,
// KAFKA-20435). Only the behaviour is carried over. The rule those tests check is LogManager's
// nextLogDirs, as Kafka 4.4.0 ships it (org.apache.kafka.storage.internals.log.LogManager in
// kafka-storage-4.4.0.jar): the live dirs by the number of logs each holds, current and future
// alike, fewest first, ties in log.dirs order; cordoned dirs (cordoned.log.dirs, KIP-1066) left
// out; and when every live dir is cordoned, or only one dir is live, that first live dir alone.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "strategy_fixture.h"

namespace lds_test {
namespace {

using ::testing::ElementsAre;

constexpr uint32_t kCordoned = LDS_DIR_CORDONED;

// From LogManagerTest.testLeastLoadedAssignment (Kafka 4.4.0,
// storage/src/test/java/org/apache/kafka/storage/internals/log/LogManagerTest.java): with three
// empty log dirs, twenty partitions of one topic created one after the other never leave one dir
// more than one partition ahead of another. Here each partition goes to the dir the partition
// strategy ranks first, which then counts it.
TEST(KafkaLogManagerParity, LeastLoadedAssignmentKeepsThreeDirsWithinOnePartition) {
  Strategy strategy("partition");
  std::vector<lds_dir> dirs = {Dir("/a", 1000, 500), Dir("/b", 1000, 500), Dir("/c", 1000, 500)};
  for (uint32_t created = 1; created <= 20; ++created) {
    const RankResult result = strategy.Rank(dirs);
    ASSERT_EQ(result.status, LDS_OK) << result.error;
    ASSERT_EQ(result.order.size(), dirs.size()) << "every dir is a candidate";
    lds_dir& chosen = dirs[result.order[0]];
    ++chosen.partition_count;
    ++chosen.topic_partition_count;
    uint32_t total = 0;
    uint32_t least = dirs[0].partition_count;
    uint32_t most = dirs[0].partition_count;
    for (const lds_dir& d : dirs) {
      total += d.partition_count;
      least = std::min(least, d.partition_count);
      most = std::max(most, d.partition_count);
    }
    ASSERT_EQ(total, created);
    ASSERT_LE(most, least + 1) << "after partition " << created - 1 << ": the load is uneven";
  }
}

// From LogManagerTest.testNextLogDirs (Kafka 4.4.0,
// storage/src/test/java/org/apache/kafka/storage/internals/log/LogManagerTest.java), its first two
// steps, on the strategy that honours cordons itself (LDS_CAP_HONORS_CORDON): with two log dirs,
// both are candidates; once the first is cordoned, only the second is.
TEST(KafkaLogManagerParity, NextLogDirsLeaveOutACordonedDir) {
  Strategy strategy("cordon");
  ASSERT_NE(strategy.descriptor().capabilities & LDS_CAP_HONORS_CORDON, 0u);
  const RankResult none = strategy.Rank({Dir("/a", 1000, 500), Dir("/b", 1000, 500)});
  ASSERT_EQ(none.status, LDS_OK) << none.error;
  EXPECT_THAT(none.order, ElementsAre(0, 1)) << "both dirs, ties in log.dirs order";

  const RankResult first =
      strategy.Rank({Dir("/a", 1000, 500, 0, 0, 0, kCordoned), Dir("/b", 1000, 500)});
  ASSERT_EQ(first.status, LDS_OK) << first.error;
  EXPECT_THAT(first.order, ElementsAre(1));
}

// From LogManagerTest.testNextLogDirs (as above), its last step: with both log dirs cordoned,
// Kafka's LogManager still answers one dir (the first live one). A strategy has no such rule: the
// ABI lets a cordon-honouring strategy rank no cordoned dir, so it answers LDS_ERR_NO_ELIGIBLE_DIR.
// The host decides this case before it asks any strategy (kafka_log_manager_host_parity_test.cpp,
// where lds differs from Kafka).
TEST(KafkaLogManagerParity, NextLogDirsWithEveryDirCordonedIsNoEligibleDirForAStrategy) {
  Strategy strategy("cordon");
  const RankResult result = strategy.Rank(
      {Dir("/a", 1000, 500, 0, 0, 0, kCordoned), Dir("/b", 1000, 500, 0, 0, 0, kCordoned)});
  EXPECT_EQ(result.status, LDS_ERR_NO_ELIGIBLE_DIR);
  EXPECT_EQ(result.error, "all log directories are cordoned");
}

// No LogManagerTest method asserts the order (testNextLogDirs checks membership only); this is the
// order of LogManager.nextLogDirs itself (Kafka 4.4.0,
// storage/src/main/java/org/apache/kafka/storage/internals/log/LogManager.java): by log count,
// fewest first, ties in log.dirs order, whatever the dirs' space; a cordoned dir is left out and
// the others keep that order. The partition strategy gives the order; the cordon strategy
// (order=partition, its default) gives it less the cordoned dirs.
TEST(KafkaLogManagerParity, NextLogDirsOrderIsFewestLogsFirstTiesInLogDirsOrder) {
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 100, 0, 3), Dir("/b", 1000, 900, 0, 1),
                                     Dir("/c", 1000, 500, 0, 3, 0, kCordoned),
                                     Dir("/d", 1000, 10, 0, 1), Dir("/e", 1000, 500, 0, 0)};
  Strategy partition("partition");
  const RankResult ranked = partition.Rank(dirs);
  ASSERT_EQ(ranked.status, LDS_OK) << ranked.error;
  EXPECT_THAT(ranked.order, ElementsAre(4, 1, 3, 0, 2));

  Strategy cordon("cordon");
  const RankResult honoured = cordon.Rank(dirs);
  ASSERT_EQ(honoured.status, LDS_OK) << honoured.error;
  EXPECT_THAT(honoured.order, ElementsAre(4, 1, 3, 0));
}

}  // namespace
}  // namespace lds_test
