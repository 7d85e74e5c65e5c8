// balance_shared_filesystem_test.cpp: the balance and drain planners on log directories that share
// one filesystem: its size and room are counted once (a move's room check too), its dirs read one
// fill, and a drain that would overfill it is refused naming the dirs and the figures.
#include <gtest/gtest.h>

#include <algorithm>

#include "balance/balance_planner.h"
#include "byte_units.h"

namespace lds {
namespace {

constexpr uint64_t kShared = 7;  // the filesystem id /d1 and /d2 are on

std::vector<uint32_t> any_order(const BalancePartition&,
                                std::span<const DestinationCandidate> candidates) {
  std::vector<uint32_t> out;
  for (const DestinationCandidate& c : candidates) out.push_back(c.dir);
  return out;
}

void add_partitions(BalanceModel& m, uint32_t dir, int count, uint64_t size) {
  for (int i = 0; i < count; ++i) {
    BalancePartition p;
    p.tp = {"t", static_cast<int32_t>(m.partitions.size())};
    p.dir = dir;
    p.size = size;
    m.partitions.push_back(p);
  }
}

// /d0 on a filesystem of its own; /d1 and /d2 on one 40 MiB filesystem, each reading its size
// and its used bytes, as statvfs reports them for both.
BalanceModel shared_layout(uint64_t d0_total, uint64_t d0_used, uint64_t shared_used) {
  BalanceModel m;
  m.dirs.push_back({"/d0", d0_total, d0_used, 0, true, false});
  m.dirs.push_back({"/d1", 40 * kMiB, shared_used, 0, true, false});
  m.dirs.push_back({"/d2", 40 * kMiB, shared_used, 0, true, false});
  m.dirs[0].filesystem = 1;
  m.dirs[1].filesystem = kShared;
  m.dirs[2].filesystem = kShared;
  return m;
}

TEST(BalanceSharedFilesystem, DrainOntoTwoDirsOfOneFilesystemCountsItsRoomOnce) {
  // 48 MiB on /d0 (cordoned by the drain); /d1 and /d2 share 40 MiB with 1 MiB used: 39 MiB of
  // room, not 78.
  BalanceModel m = shared_layout(100 * kMiB, 48 * kMiB, 1 * kMiB);
  m.dirs[0].cordoned = true;
  add_partitions(m, 0, 6, 8 * kMiB);
  const DrainPlan plan = plan_drain(m, 0, any_order);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(plan.bytes, 48 * kMiB);
  EXPECT_EQ(plan.room_bytes, 39 * kMiB);
  EXPECT_EQ(plan.shortfall_bytes, 9 * kMiB);
  EXPECT_EQ(plan.problem,
            "Cannot drain /d0: its 50331648 bytes (48.0 MiB) do not fit on the other online, "
            "uncordoned log directories, which can take 40894464 bytes (39.0 MiB) with moves in "
            "flight counted, /d1 and /d2 share one filesystem, counted once; 9437184 bytes short.");
}

TEST(BalanceSharedFilesystem, DrainThatFitsTheSharedFilesystemPlansOnlyWhatFitsOnIt) {
  // 32 MiB fit in the 39 MiB room; each move lands on one of the two dirs, and what the moves
  // before it copied onto the other counts against it.
  BalanceModel m = shared_layout(100 * kMiB, 32 * kMiB, 1 * kMiB);
  m.dirs[0].cordoned = true;
  add_partitions(m, 0, 4, 8 * kMiB);
  auto alternate = [n = 0](const BalancePartition&,
                           std::span<const DestinationCandidate> c) mutable {
    std::vector<uint32_t> out;
    for (const DestinationCandidate& d : c) out.push_back(d.dir);
    if (n++ % 2 == 1) std::reverse(out.begin(), out.end());
    return out;
  };
  const DrainPlan plan = plan_drain(m, 0, alternate);
  EXPECT_TRUE(plan.problem.empty()) << plan.problem;
  EXPECT_EQ(plan.moves.size(), 4u);
  EXPECT_EQ(plan.room_bytes, 39 * kMiB);
  // A fifth 8 MiB partition no longer fits: 33 of 40 MiB are taken after four.
  add_partitions(m, 0, 1, 8 * kMiB);
  m.dirs[0].used_bytes += 8 * kMiB;
  const DrainPlan over = plan_drain(m, 0, any_order);
  EXPECT_TRUE(over.moves.empty());
  EXPECT_EQ(over.shortfall_bytes, 1 * kMiB);
}

TEST(BalanceSharedFilesystem, PlanFiguresCountTheSharedFilesystemOnce) {
  // /d0: 24 of 40 MiB (60%); the shared filesystem: 6 of 40 MiB (15%). Over two filesystems the
  // ideal is 30 / 80 = 37.5%, not 36 / 120 = 30%.
  BalanceModel m = shared_layout(40 * kMiB, 24 * kMiB, 6 * kMiB);
  add_partitions(m, 0, 24, 1 * kMiB);
  add_partitions(m, 1, 3, 1 * kMiB);
  add_partitions(m, 2, 3, 1 * kMiB);
  const BalancePlan plan = plan_balance(m, BalanceSettings{}, any_order);
  EXPECT_TRUE(plan.act);
  EXPECT_DOUBLE_EQ(plan.ideal_percent, 37.5);
  EXPECT_DOUBLE_EQ(plan.spread_before_percent, 45);
  ASSERT_EQ(plan.dirs.size(), 3u);
  EXPECT_DOUBLE_EQ(plan.dirs[1].before_percent, 15);
  EXPECT_DOUBLE_EQ(plan.dirs[2].before_percent, 15);
  // 24 - 40% of 40 = 8 MiB over the band's top, and as much under its bottom: once, not twice.
  EXPECT_EQ(plan.lower_bound_bytes, 8 * kMiB);
  EXPECT_EQ(plan.planned_bytes, 8 * kMiB);
  EXPECT_TRUE(plan.target_reached) << plan.summary;
  // Both dirs read their filesystem's fill, and the bytes are conserved over the two filesystems.
  EXPECT_DOUBLE_EQ(plan.dirs[1].after_percent, plan.dirs[2].after_percent);
  EXPECT_DOUBLE_EQ(plan.dirs[0].after_percent, 40);
  EXPECT_DOUBLE_EQ(plan.dirs[1].after_percent, 35);
  for (const PlannedMove& mv : plan.moves) EXPECT_EQ(mv.from, 0u);
}

TEST(BalanceSharedFilesystem, RoomLeftForAMoveCountsTheMovesIntoEveryDirOfTheFilesystem) {
  // What the balancer checks before it starts a planned move: 40 MiB, 1 used, 10 MiB still to be
  // copied into /d1 and 8 into /d2 leave 21 MiB for a move into either.
  BalanceModel m = shared_layout(100 * kMiB, 0, 1 * kMiB);
  m.dirs[1].reserved_bytes = 10 * kMiB;
  m.dirs[2].reserved_bytes = 8 * kMiB;
  EXPECT_EQ(balance_room_bytes(m, 1), 21 * kMiB);
  EXPECT_EQ(balance_room_bytes(m, 2), 21 * kMiB);
  EXPECT_EQ(balance_room_bytes(m, 0), 100 * kMiB);
}

TEST(BalanceSharedFilesystem, DirsOfOneFilesystemAreNothingToBalance) {
  BalanceModel m = shared_layout(40 * kMiB, 0, 30 * kMiB);
  m.dirs.erase(m.dirs.begin());
  add_partitions(m, 0, 30, 1 * kMiB);
  BalanceSettings s;
  s.force = true;
  const BalancePlan plan = plan_balance(m, s, any_order);
  EXPECT_TRUE(plan.moves.empty());
  EXPECT_EQ(plan.summary,
            "the online, uncordoned log directories share one filesystem: nothing to balance");
}

}  // namespace
}  // namespace lds
