// balance_planner_test.cpp: the balance planner's rules on hand-built models: the lower bound, the
// fit rule, hysteresis, cooldown, the rate skip, spread-lowering acceptance, the strategy's say
// over destinations, what a stuck plan says blocks it, and the drain's fit check (empty partitions
// and no destination included).
#include "balance/balance_planner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>

#include "byte_units.h"

namespace lds {
namespace {

// Destinations in the order they are offered, as a strategy that takes every candidate would.
std::vector<uint32_t> any_order(const BalancePartition&,
                                std::span<const DestinationCandidate> candidates) {
  std::vector<uint32_t> out;
  for (const DestinationCandidate& c : candidates) out.push_back(c.dir);
  return out;
}

BalanceModel two_dirs(uint64_t total_each) {
  BalanceModel m;
  m.dirs.push_back({"/d0", total_each, 0, 0, true, false});
  m.dirs.push_back({"/d1", total_each, 0, 0, true, false});
  return m;
}

// Adds a partition of `size` bytes to dir `dir`, counting its bytes as used there.
BalancePartition& add(BalanceModel& m, uint32_t dir, uint64_t size,
                      const std::string& topic = "t") {
  m.dirs[dir].used_bytes += size;
  BalancePartition p;
  p.tp = {topic, static_cast<int32_t>(m.partitions.size())};
  p.dir = dir;
  p.size = size;
  m.partitions.push_back(p);
  return m.partitions.back();
}

TEST(BalancePlanner, LowerBoundIsTheExcessOverTheBandTop) {
  // 100 GiB each; d0 holds 80, d1 20: ideal 50%, band top 52.5% with threshold 10.
  BalanceModel m = two_dirs(100 * kGiB);
  for (int i = 0; i < 8; ++i) add(m, 0, 10 * kGiB);
  for (int i = 0; i < 2; ++i) add(m, 1, 10 * kGiB);
  BalanceSettings s;
  const BalancePlan plan = plan_balance(m, s, any_order);
  EXPECT_TRUE(plan.act);
  EXPECT_DOUBLE_EQ(plan.ideal_percent, 50);
  EXPECT_DOUBLE_EQ(plan.spread_before_percent, 60);
  // 80 - 52.5 = 27.5 GiB over; d1's deficit under 47.5% is the same 27.5 GiB.
  EXPECT_NEAR(static_cast<double>(plan.lower_bound_bytes), 27.5 * kGiB, 1);
  // Three 10 GiB partitions reach the band (30 GiB); two would leave d0 at 60%.
  EXPECT_EQ(plan.moves.size(), 3u);
  EXPECT_EQ(plan.planned_bytes, 30 * kGiB);
  EXPECT_TRUE(plan.target_reached);
  EXPECT_NEAR(plan.spread_after_percent, 0, 1e-9);
}

TEST(BalancePlanner, PicksThePartitionClosestToTheNeedWithoutOvershootingByMoreThanTenPercent) {
  // d0: 70 GiB of 100, d1: 30 of 100. Ideal 50%, threshold 10: the need is 70 - 52.5 = 17.5 GiB.
  BalanceModel m = two_dirs(100 * kGiB);
  add(m, 0, 25 * kGiB);  // overshoots the need by 43%: never picked
  add(m, 0, 19 * kGiB);  // overshoots by 8.6% and is 1.5 GiB away: the pick
  add(m, 0, 15 * kGiB);  // 2.5 GiB short
  add(m, 0, 11 * kGiB);
  add(m, 1, 30 * kGiB);
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, any_order);
  ASSERT_FALSE(plan.moves.empty());
  EXPECT_EQ(plan.moves[0].bytes, 19 * kGiB);
  for (const PlannedMove& mv : plan.moves) EXPECT_NE(mv.bytes, 25 * kGiB);
  EXPECT_LE(plan.planned_bytes, plan.lower_bound_bytes * 11 / 10);
}

TEST(BalancePlanner, TakesTheNextClosestWhenTheClosestFitsNowhere) {
  // Need 75 - 52.5 = 22.5 GiB: the 24 GiB partition is closest, but the strategy takes nothing
  // above 20 GiB anywhere (as keep.free.bytes would refuse it); the 18 GiB one is the largest that
  // fits and goes first.
  BalanceModel m = two_dirs(100 * kGiB);
  add(m, 0, 30 * kGiB);
  add(m, 0, 24 * kGiB);
  add(m, 0, 18 * kGiB);
  add(m, 0, 3 * kGiB);
  add(m, 1, 25 * kGiB);
  auto rank = [](const BalancePartition& p, std::span<const DestinationCandidate> c) {
    return p.size > 20 * kGiB ? std::vector<uint32_t>{} : any_order(p, c);
  };
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, rank);
  ASSERT_FALSE(plan.moves.empty());
  EXPECT_EQ(plan.moves[0].bytes, 18 * kGiB);
  for (const PlannedMove& mv : plan.moves) EXPECT_LE(mv.bytes, 20 * kGiB);
  // Without the strategy's limit the closest one goes.
  EXPECT_EQ(plan_balance(m, BalanceSettings{}, any_order).moves[0].bytes, 24 * kGiB);
}

TEST(BalancePlanner, OvershootsOnlyWithinTheBandWhenEveryPartitionIsLargerThanTheNeed) {
  // Need 7.5 GiB (d0 at 60%, ideal 50%, band 47.5..52.5) and only 10 GiB partitions: one of them
  // lowers the spread from 20 to 0 points and keeps both dirs in the band.
  BalanceModel m = two_dirs(100 * kGiB);
  for (int i = 0; i < 6; ++i) add(m, 0, 10 * kGiB);
  for (int i = 0; i < 4; ++i) add(m, 1, 10 * kGiB);
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, any_order);
  ASSERT_EQ(plan.moves.size(), 1u);
  EXPECT_EQ(plan.moves[0].bytes, 10 * kGiB);
  EXPECT_TRUE(plan.target_reached);
  // A 30 GiB partition would leave d0 under the band's bottom: it is never the one.
  BalanceModel lumpy = two_dirs(100 * kGiB);
  add(lumpy, 0, 30 * kGiB);
  add(lumpy, 0, 30 * kGiB);
  for (int i = 0; i < 4; ++i) add(lumpy, 1, 10 * kGiB);
  EXPECT_TRUE(plan_balance(lumpy, BalanceSettings{}, any_order).moves.empty());
}

TEST(BalancePlanner, NeverMovesEmptyOrMovingPartitions) {
  BalanceModel m = two_dirs(100 * kGiB);
  add(m, 0, 0);
  BalancePartition& moving = add(m, 0, 18 * kGiB);
  moving.moving = true;
  moving.moving_to = 0;
  add(m, 0, 60 * kGiB);
  add(m, 1, 10 * kGiB);
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, any_order);
  for (const PlannedMove& mv : plan.moves) {
    EXPECT_NE(mv.tp.partition, 0) << "the empty partition moved";
    EXPECT_NE(mv.tp.partition, 1) << "the moving partition moved again";
  }
}

TEST(BalancePlanner, ActsAboveTheThresholdAndKeepsGoingToHalfOfItWhileBalancing) {
  // Spread 8 points: below the threshold of 10, above half of it.
  BalanceModel m = two_dirs(100 * kGiB);
  for (int i = 0; i < 54; ++i) add(m, 0, kGiB);
  for (int i = 0; i < 46; ++i) add(m, 1, kGiB);
  BalanceSettings s;
  BalancePlan idle = plan_balance(m, s, any_order);
  EXPECT_FALSE(idle.act);
  EXPECT_TRUE(idle.moves.empty());
  s.balancing = true;  // a round under way goes on to the band (spread 5)
  BalancePlan going = plan_balance(m, s, any_order);
  EXPECT_TRUE(going.act);
  EXPECT_FALSE(going.moves.empty());
  EXPECT_LE(going.spread_after_percent, 5.0);
  // Within half the threshold, a round under way stops.
  BalanceModel near = two_dirs(100 * kGiB);
  for (int i = 0; i < 51; ++i) add(near, 0, kGiB);
  for (int i = 0; i < 49; ++i) add(near, 1, kGiB);
  EXPECT_FALSE(plan_balance(near, s, any_order).act);
}

TEST(BalancePlanner, SkipsPartitionsInTheirCooldown) {
  BalanceModel m = two_dirs(100 * kGiB);
  BalancePartition& recent = add(m, 0, 20 * kGiB);
  recent.last_moved_ms = 1000;
  add(m, 0, 50 * kGiB);
  add(m, 1, 30 * kGiB);
  BalanceSettings s;
  s.now_ms = 1000 + s.cooldown_ms - 1;
  for (const PlannedMove& mv : plan_balance(m, s, any_order).moves) {
    EXPECT_NE(mv.tp.partition, 0) << "moved again within its cooldown";
  }
  s.now_ms = 1000 + s.cooldown_ms;
  const BalancePlan later = plan_balance(m, s, any_order);
  ASSERT_FALSE(later.moves.empty());
  EXPECT_EQ(later.moves[0].tp.partition, 0);
}

TEST(BalancePlanner, SkipsPartitionsAppendingFasterThanHalfTheThrottle) {
  BalanceModel m = two_dirs(100 * kGiB);
  BalancePartition& hot = add(m, 0, 20 * kGiB);
  hot.bytes_in_per_sec = 600;
  add(m, 0, 50 * kGiB);
  add(m, 1, 30 * kGiB);
  BalanceSettings s;
  s.throttle_bytes_per_sec = 1000;  // half is 500 B/s
  for (const PlannedMove& mv : plan_balance(m, s, any_order).moves) {
    EXPECT_NE(mv.tp.partition, 0) << "a partition that would never catch up was moved";
  }
  // Kafka's default, Long.MAX_VALUE, is no throttle: every copy catches up.
  s.throttle_bytes_per_sec = 9223372036854775807ull;
  const BalancePlan unthrottled = plan_balance(m, s, any_order);
  ASSERT_FALSE(unthrottled.moves.empty());
  EXPECT_EQ(unthrottled.moves[0].tp.partition, 0);
}

TEST(BalancePlanner, PlansNoMoveWhileTheThrottleLetsNoByteThrough) {
  BalanceModel m = two_dirs(100 * kGiB);
  add(m, 0, 20 * kGiB);
  add(m, 0, 50 * kGiB);
  add(m, 1, 10 * kGiB);
  BalanceSettings s;
  s.throttle_bytes_per_sec = 0;
  const BalancePlan held = plan_balance(m, s, any_order);
  EXPECT_TRUE(held.act);
  EXPECT_TRUE(held.moves.empty());
  EXPECT_EQ(held.summary,
            "spread 60.0 > 10.0 points, but replica.alter.log.dirs.io.max.bytes.per.second is 0, "
            "so no move can copy a byte until it is raised");
  s.throttle_bytes_per_sec = 1;
  EXPECT_FALSE(plan_balance(m, s, any_order).moves.empty());
}

TEST(BalancePlanner, TakesOnlyMovesThatLowerTheSpread) {
  // d0 holds one 60 GiB partition of 100; d1 holds 10. Moving it would leave d0 at 0% and d1 at
  // 70%: a spread of 70 > 50. No move is taken.
  BalanceModel m = two_dirs(100 * kGiB);
  add(m, 0, 60 * kGiB);
  add(m, 1, 10 * kGiB);
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, any_order);
  EXPECT_TRUE(plan.act);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_FALSE(plan.target_reached);
  EXPECT_DOUBLE_EQ(plan.spread_after_percent, plan.spread_before_percent);
}

TEST(BalancePlanner, AStuckPlanNamesItsSmallestCandidateThatWouldOvershootTheBand) {
  // d0 holds two 30 GiB partitions of 100, d1 four of 10: ideal 50%, band 47.5..52.5. Either 30
  // GiB partition would take d1 to 70%.
  BalanceModel m = two_dirs(100 * kGiB);
  add(m, 0, 30 * kGiB);
  add(m, 0, 30 * kGiB);
  for (int i = 0; i < 4; ++i) add(m, 1, 10 * kGiB);
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, any_order);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(plan.summary,
            "0 moves of 0 B (lower bound 7.5 GiB): spread 20.0 > 10.0 points; no further move "
            "lowers the spread; the smallest candidate, t-0 (30.0 GiB) from /d0 to /d1, would "
            "overshoot the band: /d1 would reach 70.0%, over the band's top of 52.5%");
}

TEST(BalancePlanner, AStuckPlanNamesItsSmallestCandidateThatFitsInNoRoomLeftAfterReservations) {
  // d0: two 45 GiB partitions of 100. d1: 20 GiB, 2 used and 4 reserved by a move in flight into
  // it, so 14 GiB left. Ideal 96/120 = 80%; the smallest candidate is 45 GiB.
  BalanceModel m;
  m.dirs.push_back({"/d0", 100 * kGiB, 0, 0, true, false});
  m.dirs.push_back({"/d1", 20 * kGiB, 0, 4 * kGiB, true, false});
  add(m, 0, 45 * kGiB);
  add(m, 0, 45 * kGiB);
  add(m, 1, 2 * kGiB);
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, any_order);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(plan.summary,
            "0 moves of 0 B (lower bound 9.5 GiB): spread 60.0 > 10.0 points; no further move "
            "lowers the spread; the smallest candidate, t-0 (45.0 GiB) from /d0 to /d1, does not "
            "fit: /d1 has 14.0 GiB left after reservations");
}

TEST(BalancePlanner, AStuckPlanSaysWhenTheStrategyAcceptsNoDestination) {
  BalanceModel m = two_dirs(100 * kGiB);
  for (int i = 0; i < 8; ++i) add(m, 0, 10 * kGiB);
  auto none = [](const BalancePartition&, std::span<const DestinationCandidate>) {
    return std::vector<uint32_t>{};
  };
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, none);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_TRUE(plan.summary.ends_with(
      "; no further move lowers the spread; the smallest candidate, t-0 (10.0 GiB) from /d0, has "
      "no destination below the ideal fill that the strategy accepts"))
      << plan.summary;
}

TEST(BalancePlanner, NeverMovesIntoCordonedOfflineOrUnrankedDirs) {
  BalanceModel m;
  m.dirs.push_back({"/full", 100 * kGiB, 0, 0, true, false});
  m.dirs.push_back({"/cordoned", 100 * kGiB, 0, 0, true, true});
  m.dirs.push_back({"/offline", 100 * kGiB, 0, 0, false, false});
  m.dirs.push_back({"/forbidden", 100 * kGiB, 0, 0, true, false});
  m.dirs.push_back({"/open", 100 * kGiB, 0, 0, true, false});
  for (int i = 0; i < 9; ++i) add(m, 0, 10 * kGiB);
  // The strategy refuses /forbidden, as a plugin's own rule would.
  auto rank = [](const BalancePartition& p, std::span<const DestinationCandidate> c) {
    std::vector<uint32_t> out = any_order(p, c);
    out.erase(std::remove(out.begin(), out.end(), 3u), out.end());
    return out;
  };
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, rank);
  ASSERT_FALSE(plan.moves.empty());
  for (const PlannedMove& mv : plan.moves) EXPECT_EQ(mv.to, 4u) << m.dirs[mv.to].path;
}

TEST(BalancePlanner, DrainRefusesNamingTheShortfallAndCountsMovesInFlight) {
  BalanceModel m = two_dirs(100 * kGiB);
  add(m, 0, 30 * kGiB);
  add(m, 1, 50 * kGiB);
  // A move in flight into d1 will take 25 GiB more: 25 GiB are left for d0's 30.
  m.dirs[1].reserved_bytes = 25 * kGiB;
  DrainPlan refused = plan_drain(m, 0, any_order);
  EXPECT_TRUE(refused.moves.empty());
  EXPECT_EQ(refused.shortfall_bytes, 5 * kGiB);
  EXPECT_EQ(refused.bytes, 30 * kGiB);
  EXPECT_EQ(refused.room_bytes, 25 * kGiB);
  EXPECT_NE(refused.problem.find(std::to_string(5 * kGiB) + " bytes short"), std::string::npos)
      << refused.problem;
  m.dirs[1].reserved_bytes = 0;
  DrainPlan ok = plan_drain(m, 0, any_order);
  EXPECT_TRUE(ok.problem.empty()) << ok.problem;
  ASSERT_EQ(ok.moves.size(), 1u);
  EXPECT_EQ(ok.moves[0].to, 1u);
}

TEST(BalancePlanner, DrainMovesEmptyPartitionsToo) {
  BalanceModel m = two_dirs(100 * kGiB);
  add(m, 0, 0);
  add(m, 0, kGiB);
  const DrainPlan plan = plan_drain(m, 0, any_order);
  EXPECT_EQ(plan.moves.size(), 2u);
}

TEST(BalancePlanner, DrainRefusesWhenAnEmptyPartitionHasNoDestination) {
  // The strategy takes no dir for the empty partition: 0 bytes short, yet the drain cannot end.
  BalanceModel m = two_dirs(100 * kGiB);
  add(m, 0, 0);
  add(m, 0, kGiB);
  auto rank = [](const BalancePartition& p, std::span<const DestinationCandidate> c) {
    return p.size == 0 ? std::vector<uint32_t>{} : any_order(p, c);
  };
  const DrainPlan plan = plan_drain(m, 0, rank);
  EXPECT_TRUE(plan.moves.empty());
  ASSERT_EQ(plan.unplaced.size(), 1u);
  EXPECT_EQ(plan.unplaced[0], m.partitions[0].tp);
  EXPECT_NE(plan.problem.find("1 empty partition of it fits in no single one"), std::string::npos)
      << plan.problem;
}

TEST(BalancePlanner, DrainWithEveryOtherDirCordonedSaysSo) {
  BalanceModel m = two_dirs(100 * kGiB);
  m.dirs[1].cordoned = true;
  add(m, 0, 0);
  const DrainPlan plan = plan_drain(m, 0, any_order);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(plan.problem,
            "Cannot drain /d0: no other log directory is online and uncordoned to take its 1 "
            "partition.");
}

}  // namespace
}  // namespace lds
