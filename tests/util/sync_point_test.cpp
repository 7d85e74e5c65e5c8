// sync_point_test.cpp: LDS_SYNC_POINT runs the callback installed for its name and nothing else,
// callbacks can be replaced and cleared from any thread, and LDS_CRASH_POINT / LDS_PAUSE_POINT
// kill or pause a process at their point.
#include "util/sync_point.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace lds {
namespace {

class SyncPointTest : public ::testing::Test {
 protected:
  void TearDown() override { SyncPoints::clear_all_callbacks(); }
};

TEST_F(SyncPointTest, CallbackRunsEachTimeItsPointIsReached) {
  int runs = 0;
  SyncPoints::set_callback("test_point", [&] { ++runs; });
  LDS_SYNC_POINT("test_point");
  EXPECT_EQ(runs, 1);
  LDS_SYNC_POINT("test_point");
  EXPECT_EQ(runs, 2);
}

TEST_F(SyncPointTest, CallbackDoesNotRunAtOtherPoints) {
  int runs = 0;
  SyncPoints::set_callback("test_point", [&] { ++runs; });
  LDS_SYNC_POINT("test_point_other");
  LDS_SYNC_POINT("test_poin");
  EXPECT_EQ(runs, 0);
}

TEST_F(SyncPointTest, ClearedCallbackNoLongerRuns) {
  int runs = 0;
  SyncPoints::set_callback("test_point", [&] { ++runs; });
  SyncPoints::clear_callback("test_point");
  LDS_SYNC_POINT("test_point");
  EXPECT_EQ(runs, 0);
  SyncPoints::clear_callback("test_point");  // a second clear is a no-op
}

TEST_F(SyncPointTest, ClearAllRemovesEveryCallback) {
  int runs = 0;
  SyncPoints::set_callback("test_a", [&] { ++runs; });
  SyncPoints::set_callback("test_b", [&] { ++runs; });
  SyncPoints::clear_all_callbacks();
  LDS_SYNC_POINT("test_a");
  LDS_SYNC_POINT("test_b");
  EXPECT_EQ(runs, 0);
}

TEST_F(SyncPointTest, SettingAgainReplacesTheCallback) {
  std::string ran;
  SyncPoints::set_callback("test_point", [&] { ran += "first;"; });
  SyncPoints::set_callback("test_point", [&] { ran += "second;"; });
  LDS_SYNC_POINT("test_point");
  EXPECT_EQ(ran, "second;");
}

TEST_F(SyncPointTest, EmptyCallbackClearsThePoint) {
  int runs = 0;
  SyncPoints::set_callback("test_point", [&] { ++runs; });
  SyncPoints::set_callback("test_point", {});
  LDS_SYNC_POINT("test_point");  // would throw std::bad_function_call if it were kept
  EXPECT_EQ(runs, 0);
}

// The callback runs with the table's lock let go: one that clears itself (or installs another)
// would otherwise deadlock.
TEST_F(SyncPointTest, CallbackMayChangeTheTableItself) {
  int runs = 0;
  SyncPoints::set_callback("test_point", [&] {
    ++runs;
    SyncPoints::clear_callback("test_point");
    SyncPoints::set_callback("test_next", [&] { runs += 10; });
  });
  LDS_SYNC_POINT("test_point");
  LDS_SYNC_POINT("test_point");
  LDS_SYNC_POINT("test_next");
  EXPECT_EQ(runs, 11);
}

// Points reached on several threads while another installs and clears callbacks: no lost count
// while installed, and a clean ThreadSanitizer run (label concurrency).
TEST_F(SyncPointTest, PointsAreReachedSafelyWhileCallbacksChange) {
  std::atomic<int> runs{0};
  SyncPoints::set_callback("test_counted", [&] { runs.fetch_add(1); });
  std::atomic<bool> done{false};
  std::thread changer([&] {
    for (int i = 0; i < 2000; ++i) {
      SyncPoints::set_callback("test_churn", [] {});
      SyncPoints::clear_callback("test_churn");
    }
    done = true;
  });
  std::vector<std::thread> reachers;
  constexpr int kReachers = 3;
  constexpr int kReaches = 2000;
  for (int t = 0; t < kReachers; ++t) {
    reachers.emplace_back([] {
      for (int i = 0; i < kReaches; ++i) {
        LDS_SYNC_POINT("test_counted");
        LDS_SYNC_POINT("test_churn");
      }
    });
  }
  for (auto& r : reachers) r.join();
  changer.join();
  EXPECT_TRUE(done);
  EXPECT_EQ(runs.load(), kReachers * kReaches);
}

// The environment is read at a process's first sync point, so each of these runs in a fresh
// process: the threadsafe death-test style re-executes this binary for the statement.
TEST(SyncPointEnvironmentDeathTest, CrashPointKillsTheProcessAtThatPointOnly) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("LDS_CRASH_POINT", "test_crash_here", 1);
        LDS_SYNC_POINT("test_not_here");
        std::fputs("passed test_not_here\n", stderr);
        LDS_SYNC_POINT("test_crash_here");
        std::exit(0);  // not reached: killed at test_crash_here
      },
      ::testing::KilledBySignal(SIGKILL), "passed test_not_here");
}

TEST(SyncPointEnvironmentDeathTest, PausePointSleepsThereForTheGivenMilliseconds) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        ::setenv("LDS_PAUSE_POINT", "test_pause_here:300", 1);
        const auto start = std::chrono::steady_clock::now();
        LDS_SYNC_POINT("test_not_here");
        const auto before = std::chrono::steady_clock::now() - start;
        LDS_SYNC_POINT("test_pause_here");
        const auto paused = std::chrono::steady_clock::now() - start - before;
        std::fprintf(stderr, "elsewhere %lld ms, at the point %lld ms\n",
                     static_cast<long long>(
                         std::chrono::duration_cast<std::chrono::milliseconds>(before).count()),
                     static_cast<long long>(
                         std::chrono::duration_cast<std::chrono::milliseconds>(paused).count()));
        std::exit(before < std::chrono::milliseconds(300) &&
                          paused >= std::chrono::milliseconds(300)
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "at the point [0-9]+ ms");
}

}  // namespace
}  // namespace lds
