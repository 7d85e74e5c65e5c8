// Behaviour of the partition strategy: fewest partitions first, ties in log.dirs order,
// spread.topic.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "strategy_fixture.h"

namespace lds_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(PartitionStrategy, RanksFewestPartitionsFirst) {
  Strategy strategy("partition");
  const std::vector<lds_dir> dirs = {Dir("/d0", 1000, 500, 0, 5), Dir("/d1", 1000, 500, 0, 2),
                                     Dir("/d2", 1000, 500, 0, 9), Dir("/d3", 1000, 500, 0, 3),
                                     Dir("/d4", 1000, 500, 0, 0)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(4, 1, 3, 0, 2));
}

TEST(PartitionStrategy, KeepsLogDirsOrderOnTies) {
  Strategy strategy("partition");
  const std::vector<lds_dir> dirs = {Dir("/d0", 1000, 10, 0, 4), Dir("/d1", 1000, 900, 0, 2),
                                     Dir("/d2", 1000, 500, 0, 4), Dir("/d3", 1000, 999, 0, 2)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 3, 0, 2));
}

TEST(PartitionStrategy, SpreadTopicRanksTopicPartitionsBeforeAllPartitions) {
  // (partition_count, topic_partition_count): d0 has fewest partitions but most of the topic.
  const std::vector<lds_dir> dirs = {
      Dir("/d0", 1000, 500, 0, 1, 3), Dir("/d1", 1000, 500, 0, 10, 0),
      Dir("/d2", 1000, 500, 0, 4, 0), Dir("/d3", 1000, 500, 0, 2, 1)};
  Strategy spread("partition", {{"spread.topic", "true"}});
  const RankResult spread_result = spread.Rank(dirs);
  ASSERT_EQ(spread_result.status, LDS_OK) << spread_result.error;
  EXPECT_THAT(spread_result.order, ElementsAre(2, 1, 3, 0));

  Strategy plain("partition", {{"spread.topic", "false"}});
  const RankResult plain_result = plain.Rank(dirs);
  ASSERT_EQ(plain_result.status, LDS_OK) << plain_result.error;
  EXPECT_THAT(plain_result.order, ElementsAre(0, 3, 2, 1));
}

TEST(PartitionStrategy, SpreadTopicTiesKeepLogDirsOrder) {
  Strategy strategy("partition", {{"spread.topic", "TRUE"}});
  const std::vector<lds_dir> dirs = {Dir("/d0", 1000, 500, 0, 3, 1), Dir("/d1", 1000, 500, 0, 3, 1),
                                     Dir("/d2", 1000, 500, 0, 3, 1)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(0, 1, 2));
}

TEST(PartitionStrategy, IgnoresCordonFlagsAndUnknownSpace) {
  Strategy strategy("partition");
  const std::vector<lds_dir> dirs = {Dir("/d0", 1000, 500, 0, 7),
                                     Dir("/d1", 1000, 500, 0, 1, 0, LDS_DIR_CORDONED),
                                     Dir("/d2", 0, 0, 0, 3, 0, LDS_DIR_SPACE_UNKNOWN)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 2, 0));
  EXPECT_TRUE(strategy.log().lines().empty());
}

TEST(PartitionStrategy, RanksMoreDirsThanFitInline) {
  Strategy strategy("partition");
  std::vector<lds_dir> dirs;
  for (uint32_t i = 0; i < 100; ++i) dirs.push_back(Dir("/d", 1000, 500, 0, (i * 37) % 10));
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  ASSERT_EQ(result.order.size(), 100u);
  for (size_t i = 1; i < result.order.size(); ++i) {
    const lds_dir& previous = dirs[result.order[i - 1]];
    const lds_dir& current = dirs[result.order[i]];
    ASSERT_LE(previous.partition_count, current.partition_count);
    if (previous.partition_count == current.partition_count) {
      ASSERT_LT(result.order[i - 1], result.order[i]) << "tie not in log.dirs order";
    }
  }
}

TEST(PartitionStrategy, NoCandidatesIsNoEligibleDir) {
  Strategy strategy("partition");
  const RankResult result = strategy.Rank({});
  EXPECT_EQ(result.status, LDS_ERR_NO_ELIGIBLE_DIR);
  EXPECT_THAT(result.error, HasSubstr("no candidate log directories"));
}

TEST(PartitionStrategy, RejectsUnknownOptionNamingIt) {
  const CreateResult result = TryCreate("partition", {{"spread.topics", "true"}});
  EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(result.error, HasSubstr("unknown option 'spread.topics' for strategy partition"));
}

TEST(PartitionStrategy, RejectsNonBooleanSpreadTopicNamingKeyAndValue) {
  for (const char* value : {"yes", "1", "", " true", "truee"}) {
    const CreateResult result = TryCreate("partition", {{"spread.topic", value}});
    EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT) << value;
    EXPECT_EQ(result.error, std::string("invalid value '") + value +
                                "' for option spread.topic: expected true or false");
  }
}

}  // namespace
}  // namespace lds_test
