// move_sync_points_test.cpp: a move reaches each of its sync points once, in the protocol's order,
// and at each one the disks hold exactly what that step has made durable (the commit protocol of
// docs/on-disk-format.md): seen from callbacks run by the mover thread itself.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "storage/storage_error.h"
#include "three_dir_test.h"
#include "util/sync_point.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

constexpr uint64_t kSize = 8ull << 20;  // above the catch-up's 4 MiB: one range of bulk copy first

constexpr const char* kMovePoints[] = {"during_copy",          "after_marker",
                                       "after_future_renamed", "before_source_renamed",
                                       "after_source_renamed", "after_marker_removed"};

class MoveSyncPointsTest : public test::ThreeDirTest {
 protected:
  void TearDown() override { SyncPoints::clear_all_callbacks(); }

  // What d1 and d3 hold of t-0, in the protocol's words, e.g. "d1:t-0 d3:future+marker".
  std::string on_disk() const {
    std::vector<std::string> held;
    for (const size_t i : {size_t{0}, size_t{2}}) {
      for (const auto& e : fs::directory_iterator(dirs_[i])) {
        const layout::Entry entry = layout::parse_entry(e.path().filename().string());
        if (entry.kind == layout::EntryKind::kOther) continue;
        std::string what = entry.kind == layout::EntryKind::kPartition ? "t-0"
                           : entry.kind == layout::EntryKind::kFuture  ? "future"
                                                                       : "delete";
        if (fs::exists(e.path() / layout::kMoveCompleteMarker)) what += "+marker";
        held.push_back("d" + std::to_string(i + 1) + ":" + what);
      }
    }
    std::sort(held.begin(), held.end());
    std::string out;
    for (const auto& h : held) out += (out.empty() ? "" : " ") + h;
    return out;
  }

  // Installs a callback at every point of a move that notes the point and the disks' state.
  void watch_every_point() {
    for (const char* point : kMovePoints) {
      SyncPoints::set_callback(point, [this, point] {
        const std::string state = on_disk();
        std::lock_guard<std::mutex> lock(mu_);
        seen_.push_back(std::string(point) + " | " + state);
      });
    }
  }

  std::vector<std::string> seen() {
    std::lock_guard<std::mutex> lock(mu_);
    return seen_;
  }

  std::mutex mu_;
  std::vector<std::string> seen_;  // guarded by mu_: written by the mover thread
};

TEST_F(MoveSyncPointsTest, EachPointOfAMoveSeesTheDisksAsThatStepLeftThem) {
  auto m = make();
  ASSERT_EQ(m->create_partition("t", 0).log_dir, dirs_[0].string());
  m->append("t", 0, kSize);
  watch_every_point();

  ASSERT_EQ(m->alter_replica_log_dir({"t", 0}, dirs_[2].string()).error, StorageErrc::kNone);
  // The move leaves the mover's list at the promotion, before its last points: wait for those.
  for (int i = 0; i < 3000 && (seen().size() < 6 || on_disk() != "d3:t-0"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  const std::vector<std::string> expected = {
      "during_copy | d1:t-0 d3:future",
      "after_marker | d1:t-0 d3:future+marker",
      "after_future_renamed | d1:t-0 d3:t-0+marker",
      "before_source_renamed | d1:t-0 d3:t-0+marker",
      "after_source_renamed | d1:delete d3:t-0+marker",
      "after_marker_removed | d1:delete d3:t-0",
  };
  EXPECT_EQ(seen(), expected);
  EXPECT_EQ(on_disk(), "d3:t-0") << "the mover removes the -delete copy after the last point";
  EXPECT_EQ(m->append("t", 0, 100), kSize + 100) << "t-0 is served from d3";
}

// A callback may hold the move at its point while the test looks from outside: here the marker is
// on disk in the copy, and the partition is still served from its source.
TEST_F(MoveSyncPointsTest, ACallbackHoldsTheMoveAtItsPointUntilReleased) {
  // Declared in this order so that, whatever fails, the gate opens before the LogManager's
  // destructor waits for its mover, and outlives the mover's last use of it.
  std::mutex gate;
  std::atomic<bool> reached{false};
  auto m = make();
  std::unique_lock<std::mutex> held(gate);
  ASSERT_EQ(m->create_partition("t", 0).log_dir, dirs_[0].string());
  m->append("t", 0, 1000);
  SyncPoints::set_callback("after_marker", [&] {
    reached = true;
    const std::lock_guard<std::mutex> wait_for_release(gate);
  });

  ASSERT_EQ(m->alter_replica_log_dir({"t", 0}, dirs_[2].string()).error, StorageErrc::kNone);
  for (int i = 0; i < 3000 && !reached; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_TRUE(reached) << "the move never reached after_marker";
  EXPECT_EQ(on_disk(), "d1:t-0 d3:future+marker");
  const auto d1 = m->describe()[0].partitions;
  ASSERT_EQ(d1.size(), 1u);
  EXPECT_EQ(d1[0].partition, "t-0");
  EXPECT_FALSE(d1[0].is_future) << "t-0 is still served from d1";
  held.unlock();
  wait_for_moves(*m);
  for (int i = 0; i < 1000 && on_disk() != "d3:t-0"; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(on_disk(), "d3:t-0");
}

}  // namespace
}  // namespace lds
