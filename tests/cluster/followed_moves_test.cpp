// followed_moves_test.cpp: what successive DescribeLogDirs answers say became of the moves the
// cluster balancer follows: moved, ended short, gone, adopted; and the answer read mid-swap (the
// future replica gone, the moved one not listed yet), which is read again before it counts.
#include "cluster/followed_moves.h"

#include <gtest/gtest.h>

#include "byte_units.h"

namespace lds::cluster {
namespace {

using kafka::DescribeLogDirsResponse;

const TopicPartition kTp{"t", 3};

// Broker 1 with /d0 and /d1; t-3 (8 MiB) in `current`, and its future replica in `future` when
// that is not empty.
BrokerView read(const std::string& current, const std::string& future = "",
                int64_t copied = 3 * kMiB) {
  DescribeLogDirsResponse response;
  for (const char* path : {"/d0", "/d1"}) {
    DescribeLogDirsResponse::Result r;
    r.log_dir = path;
    r.total_bytes = 128 * kMiB;
    r.usable_bytes = 100 * kMiB;
    if (current == path) r.topics.push_back({"t", {{3, 8 * kMiB, 0, false}}});
    if (future == path) r.topics.push_back({"t", {{3, copied, 700, true}}});
    response.results.push_back(r);
  }
  return broker_view(1, "h:1", response);
}

FollowedMoves started_from_d0_to_d1() {
  FollowedMoves moves;
  moves.start(kTp, {"/d0", "/d1", 1000, 0, false});
  return moves;
}

TEST(FollowedMoves, AMoveInFlightStaysFollowed) {
  FollowedMoves moves = started_from_d0_to_d1();
  const auto seen = moves.note(read("/d0", "/d1"), 2000);
  EXPECT_TRUE(seen.ended.empty());
  EXPECT_TRUE(seen.adopted.empty());
  EXPECT_TRUE(moves.follows(kTp));
  EXPECT_EQ(moves.unconfirmed(), 0u);
}

TEST(FollowedMoves, TheReplicaInItsDestinationIsMoved) {
  FollowedMoves moves = started_from_d0_to_d1();
  const auto seen = moves.note(read("/d1"), 2000);
  ASSERT_EQ(seen.ended.size(), 1u);
  EXPECT_EQ(seen.ended[0].outcome, FollowedMoves::Outcome::kMoved);
  EXPECT_EQ(seen.ended[0].size, uint64_t(8 * kMiB));
  EXPECT_EQ(seen.ended[0].copied, uint64_t(8 * kMiB));
  EXPECT_FALSE(moves.follows(kTp));
}

TEST(FollowedMoves, AnAnswerReadMidSwapIsReadAgainBeforeTheMoveCountsAsShort) {
  // Kafka lists current replicas, then future ones; a swap in between shows the replica still
  // at its source and no future replica. The next answer shows it moved.
  FollowedMoves moves = started_from_d0_to_d1();
  auto seen = moves.note(read("/d0"), 2000);
  EXPECT_TRUE(seen.ended.empty());
  EXPECT_TRUE(moves.follows(kTp));
  EXPECT_EQ(moves.unconfirmed(), 1u);
  seen = moves.note(read("/d1"), 2250);
  ASSERT_EQ(seen.ended.size(), 1u);
  EXPECT_EQ(seen.ended[0].outcome, FollowedMoves::Outcome::kMoved);
  EXPECT_EQ(moves.size(), 0u);
}

TEST(FollowedMoves, TwiceReadBackAtItsSourceItEndedShort) {
  FollowedMoves moves = started_from_d0_to_d1();
  EXPECT_TRUE(moves.note(read("/d0"), 2000).ended.empty());
  const auto seen = moves.note(read("/d0"), 2250);
  ASSERT_EQ(seen.ended.size(), 1u);
  EXPECT_EQ(seen.ended[0].outcome, FollowedMoves::Outcome::kShort);
  EXPECT_EQ(seen.ended[0].at, "/d0");
  EXPECT_FALSE(moves.follows(kTp));
}

TEST(FollowedMoves, InFlightAgainAfterOneReadBackItIsFollowedAfresh) {
  FollowedMoves moves = started_from_d0_to_d1();
  EXPECT_TRUE(moves.note(read("/d0"), 2000).ended.empty());
  EXPECT_TRUE(moves.note(read("/d0", "/d1"), 2250).ended.empty());
  EXPECT_EQ(moves.unconfirmed(), 0u);
  // One more read back at the source is again only the first.
  EXPECT_TRUE(moves.note(read("/d0"), 2500).ended.empty());
  EXPECT_TRUE(moves.follows(kTp));
}

TEST(FollowedMoves, APartitionNoLongerOnTheBrokerIsGone) {
  FollowedMoves moves = started_from_d0_to_d1();
  const auto seen = moves.note(read(""), 2000);
  ASSERT_EQ(seen.ended.size(), 1u);
  EXPECT_EQ(seen.ended[0].outcome, FollowedMoves::Outcome::kGone);
}

TEST(FollowedMoves, AFutureNotStartedHereIsAdoptedOnce) {
  FollowedMoves moves;
  auto seen = moves.note(read("/d0", "/d1", 5 * kMiB), 2000);
  ASSERT_EQ(seen.adopted.size(), 1u);
  EXPECT_EQ(seen.adopted[0].tp, kTp);
  EXPECT_EQ(seen.adopted[0].move.from_path, "/d0");
  EXPECT_EQ(seen.adopted[0].move.to_path, "/d1");
  EXPECT_EQ(seen.adopted[0].future.offset_lag, 700);
  EXPECT_TRUE(moves.note(read("/d0", "/d1"), 2250).adopted.empty());
  // Only what was copied while it was followed counts as this balancer's copy.
  seen = moves.note(read("/d1"), 2500);
  ASSERT_EQ(seen.ended.size(), 1u);
  EXPECT_EQ(seen.ended[0].copied, uint64_t(3 * kMiB));
}

}  // namespace
}  // namespace lds::cluster
