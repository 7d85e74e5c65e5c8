// A burst of placements with host-style reservations: size spreads by space, partition by count.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "strategy_fixture.h"

namespace lds_test {
namespace {

using ::testing::ElementsAre;

constexpr uint64_t kPartitionBytes = 5 * kMB;
constexpr int kPartitions = 60;

// Three equal 300 MB disks with 300, 200 and 100 MB free, all without partitions.
std::vector<lds_dir> ThreeDisks() {
  return {Dir("/large-free", 300 * kMB, 300 * kMB), Dir("/medium-free", 300 * kMB, 200 * kMB),
          Dir("/small-free", 300 * kMB, 100 * kMB)};
}

// Places kPartitions partitions one by one as the host does: each pick reserves the partition's
// expected bytes in the chosen dir and counts the partition there. Returns placements per dir.
std::vector<int> PlaceBurst(const Strategy& strategy, std::vector<lds_dir>& dirs) {
  std::vector<int> placed(dirs.size(), 0);
  for (int i = 0; i < kPartitions; ++i) {
    const RankResult result = strategy.Rank(dirs, kPartitionBytes);
    EXPECT_EQ(result.status, LDS_OK) << result.error;
    if (result.status != LDS_OK || result.order.empty()) break;
    lds_dir& chosen = dirs[result.order[0]];
    chosen.reserved_bytes += kPartitionBytes;
    chosen.partition_count += 1;
    chosen.topic_partition_count += 1;
    placed[result.order[0]] += 1;
  }
  return placed;
}

class BurstPlacementBySize : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(Balance, BurstPlacementBySize, ::testing::Values("fill", "free"));

TEST_P(BurstPlacementBySize, SizeStrategyLevelsFreeSpaceWithoutOverfilling) {
  const Strategy strategy("size", {{"balance", GetParam()}});
  std::vector<lds_dir> dirs = ThreeDisks();
  // 300 MB of new data brings all three disks to 200 MB used: 40, 20 and 0 partitions.
  EXPECT_THAT(PlaceBurst(strategy, dirs), ElementsAre(40, 20, 0));
  for (const lds_dir& dir : dirs) {
    EXPECT_EQ(dir.total_bytes - dir.usable_bytes + dir.reserved_bytes, 200 * kMB) << dir.path;
  }
}

TEST(BurstPlacement, PartitionStrategySpreadsEvenlyAndFillsTheSmallDisk) {
  const Strategy strategy("partition");
  std::vector<lds_dir> dirs = ThreeDisks();
  EXPECT_THAT(PlaceBurst(strategy, dirs), ElementsAre(20, 20, 20));
  // Every byte the small disk has left is now promised, while the large disk is one third full.
  const lds_dir& small = dirs[2];
  EXPECT_GE(small.reserved_bytes, small.usable_bytes);
  EXPECT_EQ(dirs[0].reserved_bytes, 100 * kMB);
}

TEST(BurstPlacement, SizeStrategyWithoutReservationsPilesOntoTheEmptiestDisk) {
  // Without the host's reservations the size strategy sees no change between picks.
  const Strategy strategy("size");
  const std::vector<lds_dir> dirs = ThreeDisks();
  std::vector<int> placed(dirs.size(), 0);
  for (int i = 0; i < kPartitions; ++i) placed[strategy.Rank(dirs, kPartitionBytes).order.at(0)]++;
  EXPECT_THAT(placed, ElementsAre(kPartitions, 0, 0));
}

}  // namespace
}  // namespace lds_test
