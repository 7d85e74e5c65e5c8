// placement_history_test.cpp: PlacementHistory keeps the last explanation of each recently placed
// partition, figures and reasons intact, and never more than its capacity: the oldest go first.
#include "placement/placement_history.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace lds {
namespace {

const std::vector<std::string> kDirs = {"/data/d1", "/data/d2", "/data/d3", "/data/d4"};

// t-<partition> placed in /data/d2 at `seconds` past the epoch: d2 then d4 ranked, d1 cordoned,
// d3 left out for space.
PastPlacement placement_of(const std::string& topic, int32_t partition, int64_t seconds = 0) {
  PastPlacement p;
  PlacementExplanation& e = p.explanation;
  e.topic = topic;
  e.partition = partition;
  e.expected_bytes = 1 << 20;
  e.strategy = "size";
  e.generation = 3;
  auto dir = [](const std::string& path, uint32_t rank, const std::string& left_out) {
    PlacementCandidate c;
    c.log_dir = path;
    c.space_known = true;
    c.total_bytes = 1000;
    c.usable_bytes = 600 + rank;
    c.reserved_bytes = 7;
    c.partition_count = 2 + rank;
    c.topic_partition_count = 1;
    c.rank = rank;
    c.left_out = left_out;
    return c;
  };
  e.dirs = {dir("/data/d2", 1, ""), dir("/data/d4", 2, ""), dir("/data/d1", 0, "cordoned"),
            dir("/data/d3", 0,
                "below log.directory.select.size.keep.free.bytes (16.0 MiB): 12.0 MiB free after "
                "placing 1.0 MiB")};
  p.placed_in = "/data/d2";
  p.placed_at = std::chrono::system_clock::time_point(std::chrono::seconds(seconds));
  return p;
}

TEST(PlacementHistory, GivesBackTheRankingFiguresAndReasonsOfThePlacement) {
  PlacementHistory history(kDirs, 8);
  const PastPlacement kept = placement_of("t", 0, 1796285400);
  history.keep(kept);

  const std::optional<PastPlacement> found = history.find("t", 0);
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->placed_in, "/data/d2");
  EXPECT_EQ(found->placed_at, kept.placed_at);
  const PlacementExplanation& e = found->explanation;
  EXPECT_EQ(e.topic, "t");
  EXPECT_EQ(e.partition, 0);
  EXPECT_EQ(e.strategy, "size");
  EXPECT_EQ(e.generation, 3u);
  EXPECT_EQ(e.expected_bytes, 1u << 20);
  ASSERT_EQ(e.dirs.size(), 4u);
  for (size_t i = 0; i < e.dirs.size(); ++i) {
    SCOPED_TRACE(i);
    const PlacementCandidate& want = kept.explanation.dirs[i];
    EXPECT_EQ(e.dirs[i].log_dir, want.log_dir);
    EXPECT_EQ(e.dirs[i].rank, want.rank);
    EXPECT_EQ(e.dirs[i].left_out, want.left_out);
    EXPECT_EQ(e.dirs[i].usable_bytes, want.usable_bytes);
    EXPECT_EQ(e.dirs[i].reserved_bytes, want.reserved_bytes);
    EXPECT_EQ(e.dirs[i].partition_count, want.partition_count);
  }
  EXPECT_EQ(placement_line(e), placement_line(kept.explanation));
  EXPECT_FALSE(history.find("t", 1).has_value());
  EXPECT_FALSE(history.find("u", 0).has_value());
}

TEST(PlacementHistory, DropsTheOldestPlacementsPastItsCapacity) {
  constexpr int kCapacity = 64;
  PlacementHistory history(kDirs, kCapacity);
  for (int32_t p = 0; p < 10 * kCapacity; ++p) {
    history.keep(placement_of("t", p));
    EXPECT_LE(history.size(), static_cast<size_t>(kCapacity));
  }
  EXPECT_EQ(history.size(), static_cast<size_t>(kCapacity));
  for (int32_t p = 0; p < 9 * kCapacity; ++p) {
    EXPECT_FALSE(history.find("t", p).has_value()) << "t-" << p << " should have been dropped";
  }
  for (int32_t p = 9 * kCapacity; p < 10 * kCapacity; ++p) {
    EXPECT_TRUE(history.find("t", p).has_value()) << "t-" << p << " should be kept";
  }
}

TEST(PlacementHistory, APartitionPlacedAgainIsKeptOnceAsTheNewest) {
  PlacementHistory history(kDirs, 2);
  history.keep(placement_of("t", 0, 1));
  history.keep(placement_of("t", 1, 2));
  history.keep(placement_of("t", 0, 3));  // deleted and created again
  EXPECT_EQ(history.size(), 2u);
  history.keep(placement_of("t", 2, 4));  // drops t-1, the oldest now
  EXPECT_FALSE(history.find("t", 1).has_value());
  ASSERT_TRUE(history.find("t", 0).has_value());
  EXPECT_EQ(history.find("t", 0)->placed_at,
            std::chrono::system_clock::time_point(std::chrono::seconds(3)));
  EXPECT_TRUE(history.find("t", 2).has_value());
}

TEST(PlacementHistory, ForgetsADeletedPartition) {
  PlacementHistory history(kDirs, 4);
  history.keep(placement_of("t", 0));
  history.keep(placement_of("t", 1));
  history.forget("t", 0);
  EXPECT_FALSE(history.find("t", 0).has_value());
  EXPECT_TRUE(history.find("t", 1).has_value());
  EXPECT_EQ(history.size(), 1u);
}

TEST(PlacementHistory, KeepsNothingWithCapacityZero) {
  PlacementHistory history(kDirs, 0);
  history.keep(placement_of("t", 0));
  EXPECT_EQ(history.size(), 0u);
  EXPECT_FALSE(history.find("t", 0).has_value());
}

}  // namespace
}  // namespace lds
