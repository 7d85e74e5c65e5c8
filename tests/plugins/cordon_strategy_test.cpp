// Behaviour of the cordon strategy: cordoned dirs are never ranked, the rest by partitions or fill.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "strategy_fixture.h"

namespace lds_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr uint32_t kCordoned = LDS_DIR_CORDONED;

TEST(CordonStrategy, ExcludesCordonedDirs) {
  Strategy strategy("cordon");
  const std::vector<lds_dir> dirs = {
      Dir("/a", 1000, 500, 0, 0, 0, kCordoned), Dir("/b", 1000, 500, 0, 4),
      Dir("/c", 1000, 500, 0, 1, 0, kCordoned), Dir("/d", 1000, 500, 0, 2)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(3, 1));
}

TEST(CordonStrategy, RanksByFewestPartitionsByDefaultWithTiesInLogDirsOrder) {
  Strategy strategy("cordon");
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 900, 0, 3), Dir("/b", 1000, 100, 0, 1),
                                     Dir("/c", 1000, 500, 0, 3), Dir("/d", 1000, 500, 0, 1)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 3, 0, 2));
}

TEST(CordonStrategy, AllCordonedIsNoEligibleDirWithKafkaMessage) {
  Strategy strategy("cordon");
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 500, 0, 0, 0, kCordoned),
                                     Dir("/b", 1000, 500, 0, 0, 0, kCordoned | 0x80u)};
  const RankResult result = strategy.Rank(dirs);
  EXPECT_EQ(result.status, LDS_ERR_NO_ELIGIBLE_DIR);
  EXPECT_EQ(result.error, "all log directories are cordoned");
}

TEST(CordonStrategy, NoCandidatesIsNoEligibleDir) {
  Strategy strategy("cordon");
  const RankResult result = strategy.Rank({});
  EXPECT_EQ(result.status, LDS_ERR_NO_ELIGIBLE_DIR);
  EXPECT_THAT(result.error, HasSubstr("no candidate log directories"));
}

TEST(CordonStrategy, OrderSizeUsesTheFillRule) {
  // /big is 25% full, /small empty, /huge empty but cordoned.
  const std::vector<lds_dir> dirs = {Dir("/big", 4000, 3000, 0, 0), Dir("/small", 1000, 1000, 0, 9),
                                     Dir("/huge", 100000, 100000, 0, 0, 0, kCordoned)};
  Strategy by_size("cordon", {{"order", "size"}});
  const RankResult size_result = by_size.Rank(dirs);
  ASSERT_EQ(size_result.status, LDS_OK) << size_result.error;
  EXPECT_THAT(size_result.order, ElementsAre(1, 0));

  Strategy by_partition("cordon", {{"order", "partition"}});
  const RankResult partition_result = by_partition.Rank(dirs);
  ASSERT_EQ(partition_result.status, LDS_OK) << partition_result.error;
  EXPECT_THAT(partition_result.order, ElementsAre(0, 1));
}

TEST(CordonStrategy, OrderSizeCountsReservedAndExpectedBytes) {
  Strategy strategy("cordon", {{"order", "size"}});
  // /a 50% full, /b 40%; a 30-byte partition takes /a to 53% and /b to 70%.
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 500), Dir("/b", 100, 70, 10)};
  EXPECT_THAT(strategy.Rank(dirs, 0).order, ElementsAre(1, 0));
  EXPECT_THAT(strategy.Rank(dirs, 30).order, ElementsAre(0, 1));
}

TEST(CordonStrategy, OrderSizeFallsBackToPartitionCountWhenSpaceUnknown) {
  Strategy strategy("cordon", {{"order", "size"}});
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 1000, 0, 4),
                                     Dir("/b", 0, 0, 0, 2, 0, LDS_DIR_SPACE_UNKNOWN),
                                     Dir("/c", 1000, 10, 0, 1, 0, kCordoned)};
  for (int call = 0; call < 4; ++call) {
    const RankResult result = strategy.Rank(dirs);
    ASSERT_EQ(result.status, LDS_OK) << result.error;
    EXPECT_THAT(result.order, ElementsAre(1, 0));
  }
  const std::vector<LogLine> lines = strategy.log().lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].level, LDS_LOG_WARN);
  EXPECT_THAT(lines[0].message, HasSubstr("'/b'"));
}

TEST(CordonStrategy, OrderSizeIgnoresUnknownSpaceOfCordonedDirs) {
  Strategy strategy("cordon", {{"order", "size"}});
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 100, 0, 0),
                                     Dir("/b", 0, 0, 0, 0, 0, kCordoned | LDS_DIR_SPACE_UNKNOWN),
                                     Dir("/c", 1000, 900, 0, 7)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(2, 0));
  EXPECT_TRUE(strategy.log().lines().empty());
}

TEST(CordonStrategy, RejectsUnknownOptionNamingIt) {
  const CreateResult result = TryCreate("cordon", {{"balance", "fill"}});
  EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(result.error, HasSubstr("unknown option 'balance' for strategy cordon"));
}

TEST(CordonStrategy, RejectsBadOrderNamingKeyAndValue) {
  const CreateResult result = TryCreate("cordon", {{"order", "sise"}});
  EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(result.error, "invalid value 'sise' for option order: expected partition or size");
}

}  // namespace
}  // namespace lds_test
