// Behaviour of the size strategy: fill and free modes, reservations, keep.free.bytes, tie.bytes and
// the KIP-178 fallback to partition counting when space is unknown.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <thread>

#include "strategy_fixture.h"

namespace lds_test {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class SizeStrategyBothModes : public ::testing::TestWithParam<const char*> {
 protected:
  Strategy Make(Options extra = {}) const {
    extra.emplace_back("balance", GetParam());
    return Strategy("size", extra);
  }
};

INSTANTIATE_TEST_SUITE_P(Balance, SizeStrategyBothModes, ::testing::Values("fill", "free"));

// Elasticsearch's case: two equal disks, the emptier one first.
TEST_P(SizeStrategyBothModes, PrefersMoreUsableSpaceOnEqualDisks) {
  const Strategy strategy = Make();
  const std::vector<lds_dir> dirs = {Dir("/a", 200000, 100000), Dir("/b", 200000, 10000)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(0, 1));
}

// ... and 95000 bytes promised to the first disk make it the fuller one.
TEST_P(SizeStrategyBothModes, ReservedBytesCountAsUsed) {
  const Strategy strategy = Make();
  const std::vector<lds_dir> dirs = {Dir("/a", 200000, 100000, 95000), Dir("/b", 200000, 10000)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0));
}

TEST_P(SizeStrategyBothModes, KeepFreeBytesMakesDirsIneligible) {
  const Strategy strategy = Make({{"keep.free.bytes", "300"}});
  // Projected free with 300 expected bytes: /a 700, /b 200 (< 300), /c 0, /d exactly 300.
  const std::vector<lds_dir> dirs = {Dir("/a", 4000, 1000), Dir("/b", 4000, 500),
                                     Dir("/c", 4000, 2000, 1800), Dir("/d", 4000, 600)};
  const RankResult result = strategy.Rank(dirs, 300);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(0, 3));
}

TEST_P(SizeStrategyBothModes, NoEligibleDirWhenKeepFreeBytesExcludesEveryDir) {
  const Strategy strategy = Make({{"keep.free.bytes", "1000"}});
  const std::vector<lds_dir> dirs = {Dir("/a", 4000, 1200), Dir("/b", 4000, 900)};
  const RankResult result = strategy.Rank(dirs, 300);
  EXPECT_EQ(result.status, LDS_ERR_NO_ELIGIBLE_DIR);
  EXPECT_THAT(result.error, HasSubstr("keep.free.bytes=1000"));
}

TEST_P(SizeStrategyBothModes, EqualFreeSpaceGoesToFewerPartitionsThenLogDirsOrder) {
  const Strategy strategy = Make();
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 600, 0, 3), Dir("/b", 1000, 600, 0, 1),
                                     Dir("/c", 1000, 600, 0, 3), Dir("/d", 1000, 100, 0, 0)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0, 2, 3));
}

TEST_P(SizeStrategyBothModes, FallsBackToPartitionCountWhenSpaceUnknown) {
  const Strategy strategy = Make({{"keep.free.bytes", "999999"}});
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 1000, 0, 5), Dir("/b", 1000, 10, 0, 1),
                                     Dir("/c", 0, 0, 0, 3, 0, LDS_DIR_SPACE_UNKNOWN)};
  for (int call = 0; call < 5; ++call) {
    const RankResult result = strategy.Rank(dirs, 100);
    ASSERT_EQ(result.status, LDS_OK) << result.error;
    EXPECT_THAT(result.order, ElementsAre(1, 2, 0));
  }
  const std::vector<LogLine> lines = strategy.log().lines();
  ASSERT_EQ(lines.size(), 1u);
  EXPECT_EQ(lines[0].level, LDS_LOG_WARN);
  EXPECT_THAT(lines[0].message, HasSubstr("'/c'"));
  EXPECT_THAT(lines[0].message, HasSubstr("partition count"));
}

TEST_P(SizeStrategyBothModes, FallsBackToPartitionCountWhenTotalBytesIsZero) {
  const Strategy strategy = Make();
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 1000, 0, 2), Dir("/b", 0, 0, 0, 1)};
  for (int call = 0; call < 3; ++call) {
    const RankResult result = strategy.Rank(dirs);
    ASSERT_EQ(result.status, LDS_OK) << result.error;
    EXPECT_THAT(result.order, ElementsAre(1, 0));
  }
  EXPECT_EQ(strategy.log().CountAtLevel(LDS_LOG_WARN), 1u);
  EXPECT_EQ(strategy.log().lines().size(), 1u);
}

TEST_P(SizeStrategyBothModes, KnownSpaceLogsNothing) {
  const Strategy strategy = Make();
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 100), Dir("/b", 1000, 900)};
  for (int call = 0; call < 3; ++call) ASSERT_EQ(strategy.Rank(dirs).status, LDS_OK);
  EXPECT_TRUE(strategy.log().lines().empty());
}

TEST_P(SizeStrategyBothModes, IgnoresCordonFlags) {
  const Strategy strategy = Make();
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 100),
                                     Dir("/b", 1000, 900, 0, 0, 0, LDS_DIR_CORDONED)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0));
}

TEST_P(SizeStrategyBothModes, OverReservedDirsSaturateInsteadOfWrapping) {
  const Strategy strategy = Make();
  // Reservations and estimates beyond the disk must not wrap around into "lots of free space":
  // both dirs project 0 free bytes (a tie won by fewer partitions) and /a the higher fill.
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 100, UINT64_MAX, 1),
                                     Dir("/b", 1000, 10, 0, 0)};
  const RankResult result = strategy.Rank(dirs, UINT64_MAX);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0));
}

TEST(SizeStrategy, WarnsOnceWhenManyThreadsHitTheFallback) {
  const Strategy strategy("size");
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 1000, 0, 2),
                                     Dir("/b", 0, 0, 0, 1, 0, LDS_DIR_SPACE_UNKNOWN)};
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      for (int call = 0; call < 200; ++call) {
        const RankResult result = strategy.Rank(dirs);
        ASSERT_EQ(result.status, LDS_OK);
        ASSERT_THAT(result.order, ElementsAre(1, 0));
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  EXPECT_EQ(strategy.log().lines().size(), 1u);
}

TEST(SizeStrategy, EachInstanceWarnsOnceOnItsOwn) {
  const std::vector<lds_dir> dirs = {Dir("/a", 0, 0, 0, 0, 0, LDS_DIR_SPACE_UNKNOWN)};
  const Strategy first("size");
  const Strategy second("size");
  ASSERT_EQ(first.Rank(dirs).status, LDS_OK);
  ASSERT_EQ(first.Rank(dirs).status, LDS_OK);
  ASSERT_EQ(second.Rank(dirs).status, LDS_OK);
  EXPECT_EQ(first.log().lines().size(), 1u);
  EXPECT_EQ(second.log().lines().size(), 1u);
}

TEST(SizeStrategy, DefaultBalanceIsFill) {
  const Strategy strategy("size");
  // Fill picks the small empty disk; free would pick the big one.
  const std::vector<lds_dir> dirs = {Dir("/big", 4000, 3000), Dir("/small", 1000, 1000)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0));
}

TEST(SizeStrategy, FillPicksLowerFractionAndFreePicksMoreBytesOnUnequalDisks) {
  // /big: 4000 total, 3000 usable (25% full). /small: 1000 total, empty.
  const std::vector<lds_dir> dirs = {Dir("/big", 4000, 3000), Dir("/small", 1000, 1000)};
  const Strategy fill("size", {{"balance", "fill"}});
  const RankResult fill_result = fill.Rank(dirs);
  ASSERT_EQ(fill_result.status, LDS_OK) << fill_result.error;
  EXPECT_THAT(fill_result.order, ElementsAre(1, 0));

  const Strategy free("size", {{"balance", "free"}});
  const RankResult free_result = free.Rank(dirs);
  ASSERT_EQ(free_result.status, LDS_OK) << free_result.error;
  EXPECT_THAT(free_result.order, ElementsAre(0, 1));
}

TEST(SizeStrategy, ExpectedBytesWeighMoreOnSmallerDisksInFillMode) {
  const Strategy strategy("size");
  // /big is 50% full, /small 40%. A 30-byte partition takes /big to 53% but /small to 70%.
  const std::vector<lds_dir> dirs = {Dir("/big", 1000, 500), Dir("/small", 100, 60)};
  const RankResult no_estimate = strategy.Rank(dirs, 0);
  ASSERT_EQ(no_estimate.status, LDS_OK) << no_estimate.error;
  EXPECT_THAT(no_estimate.order, ElementsAre(1, 0));
  const RankResult with_estimate = strategy.Rank(dirs, 30);
  ASSERT_EQ(with_estimate.status, LDS_OK) << with_estimate.error;
  EXPECT_THAT(with_estimate.order, ElementsAre(0, 1));
}

TEST(SizeStrategy, FillTreatsEqualFractionsOfDifferentDisksAsTies) {
  const Strategy strategy("size");
  // Both exactly half full; the tie goes to fewer partitions, then log.dirs order.
  const std::vector<lds_dir> dirs = {Dir("/a", 1000, 500, 0, 3), Dir("/b", 3000, 1500, 0, 1),
                                     Dir("/c", 2000, 1000, 0, 3)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0, 2));
}

TEST(SizeStrategy, FillComparesFractionsExactlyNearUint64Max) {
  const Strategy strategy("size");
  // (2^64-2)/(2^64-1) > (2^64-3)/(2^64-2): equal in double precision, not in exact arithmetic.
  const std::vector<lds_dir> dirs = {Dir("/a", UINT64_MAX, 1, 0, 0),
                                     Dir("/b", UINT64_MAX - 1, 1, 0, 5)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 0));
}

TEST(SizeStrategy, FreeModeRanksByProjectedFreeBytesDescending) {
  const Strategy strategy("size", {{"balance", "free"}});
  const std::vector<lds_dir> dirs = {Dir("/a", 10000, 5000, 4000), Dir("/b", 10000, 3000, 0),
                                     Dir("/c", 10000, 8000, 1000)};
  const RankResult result = strategy.Rank(dirs, 500);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(2, 1, 0));
}

TEST(SizeStrategy, FreeModeTieBytesBucketsNearlyEqualDirs) {
  // Free bytes 10000, 9500, 8999, 9000; buckets of 1001 bytes below the best: 0, 0, 1, 0.
  const std::vector<lds_dir> dirs = {Dir("/a", 20000, 10000, 0, 5), Dir("/b", 20000, 9500, 0, 1),
                                     Dir("/c", 20000, 8999, 0, 0), Dir("/d", 20000, 9000, 0, 2)};
  const Strategy bucketed("size", {{"balance", "free"}, {"tie.bytes", "1000"}});
  const RankResult bucketed_result = bucketed.Rank(dirs);
  ASSERT_EQ(bucketed_result.status, LDS_OK) << bucketed_result.error;
  EXPECT_THAT(bucketed_result.order, ElementsAre(1, 3, 0, 2));

  const Strategy exact("size", {{"balance", "free"}});
  const RankResult exact_result = exact.Rank(dirs);
  ASSERT_EQ(exact_result.status, LDS_OK) << exact_result.error;
  EXPECT_THAT(exact_result.order, ElementsAre(0, 1, 3, 2));
}

TEST(SizeStrategy, FreeModeMaximalTieBytesTiesEverything) {
  const Strategy strategy("size", {{"balance", "free"}, {"tie.bytes", "18446744073709551615"}});
  const std::vector<lds_dir> dirs = {Dir("/a", UINT64_MAX, UINT64_MAX, 0, 4),
                                     Dir("/b", UINT64_MAX, 0, 0, 2), Dir("/c", 100, 50, 0, 2)};
  const RankResult result = strategy.Rank(dirs);
  ASSERT_EQ(result.status, LDS_OK) << result.error;
  EXPECT_THAT(result.order, ElementsAre(1, 2, 0));
}

TEST(SizeStrategy, RejectsUnknownOptionNamingIt) {
  const CreateResult result = TryCreate("size", {{"balanse", "fill"}});
  EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT);
  EXPECT_THAT(result.error, HasSubstr("unknown option 'balanse' for strategy size"));
}

TEST(SizeStrategy, RejectsBadBalanceNamingKeyAndValue) {
  const CreateResult result = TryCreate("size", {{"balance", "fil"}});
  EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT);
  EXPECT_EQ(result.error, "invalid value 'fil' for option balance: expected fill or free");
}

TEST(SizeStrategy, RejectsByteOptionsThatAreNotUnsignedDecimalIntegers) {
  for (const char* key : {"tie.bytes", "keep.free.bytes"}) {
    for (const char* value :
         {"-1", "", "12abc", " 5", "5 ", "+5", "1e6", "0x10", "18446744073709551616"}) {
      const CreateResult result = TryCreate("size", {{key, value}});
      EXPECT_EQ(result.status, LDS_ERR_INVALID_ARGUMENT) << key << "=" << value;
      EXPECT_THAT(result.error,
                  HasSubstr(std::string("invalid value '") + value + "' for option " + key));
    }
  }
}

TEST(SizeStrategy, AcceptsByteOptionsUpToUint64Max) {
  for (const char* value : {"0", "007", "18446744073709551615"}) {
    EXPECT_EQ(TryCreate("size", {{"tie.bytes", value}, {"keep.free.bytes", value}}).status, LDS_OK)
        << value;
  }
}

}  // namespace
}  // namespace lds_test
