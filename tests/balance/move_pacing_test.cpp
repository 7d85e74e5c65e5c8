// move_pacing_test.cpp: how fast moves go, on real dirs with the mover's threads running (label
// concurrency: it runs under ThreadSanitizer too). The throttle is shared by every move and covers
// every byte, the catch-up included, however many mover threads copy; and a drain started by the
// balancer's thread starts its next move when one ends, not at the balancer's next tick.
#include <gtest/gtest.h>

#include <chrono>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "balance/balancer.h"
#include "byte_units.h"
#include "storage/log_manager.h"
#include "three_dir_test.h"
#include "util/logging.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using Clock = std::chrono::steady_clock;

class MovePacingTest : public test::ThreeDirTest {
 protected:
  void SetUp() override {
    set_log_level("off");
    ThreeDirTest::SetUp();
  }

  std::unique_ptr<LogManager> make_with_threads(int32_t threads) {
    LogManager::Options options;
    options.log_dirs = dirs_;
    options.mover_threads = threads;
    auto m = std::make_unique<LogManager>(options, probe_, slot_);
    m->startup();
    return m;
  }

  // Creates `count` partitions of `topic` in d1 with `bytes` each.
  static void place_in(LogManager& m, const fs::path& dir, const std::string& topic, int count,
                       uint64_t bytes) {
    for (int p = 0; p < count; ++p) {
      m.remember_preferred_dir({topic, p}, dir);
      ASSERT_EQ(m.create_partition(topic, p).log_dir, dir.string());
      if (bytes > 0) m.append(topic, p, bytes);
    }
  }
};

// Three mover threads copy three 1 MiB replicas at once under 4 MiB/s: all of them together, the
// catch-up of each included, take at least the 0.75 s the throttle gives 3 MiB. (Each thread with
// its own throttle, and the catch-up's last 4 MiB unthrottled, took a few milliseconds.)
TEST_F(MovePacingTest, AllMovesTogetherKeepToTheThrottleTheCatchUpIncluded) {
  const auto m = make_with_threads(3);
  place_in(*m, dirs_[0], "t", 3, kMiB);
  m->set_move_throttle(4 * kMiB);
  const auto started = Clock::now();
  for (int p = 0; p < 3; ++p) {
    ASSERT_EQ(m->alter_replica_log_dir({"t", p}, dirs_[1].string()).error, StorageErrc::kNone);
  }
  ASSERT_NO_FATAL_FAILURE(wait_for_moves(*m));
  const double took = std::chrono::duration<double>(Clock::now() - started).count();
  EXPECT_GE(took, 0.7) << "3 MiB moved in " << took << " s under 4 MiB/s";
  const std::vector<LogDirDescription> dirs = m->describe();
  EXPECT_EQ(dirs[1].partitions.size(), 3u);
  for (const PartitionDescription& p : dirs[1].partitions) {
    EXPECT_FALSE(p.is_future) << p.partition;
    EXPECT_EQ(p.size, kMiB) << p.partition;
  }
}

// One move at a time, the balancer's thread checking once a second: a drain of 20 empty replicas
// bound to that check takes 19 s. Woken by each move's end, it takes about as long as the moves.
TEST_F(MovePacingTest, ADrainStartsItsNextMoveWhenOneEnds) {
  const auto m = make_with_threads(1);
  constexpr int kEmpty = 20;
  place_in(*m, dirs_[0], "e", kEmpty, 0);
  Balancer balancer(*m, slot_, nullptr);
  BalanceConfig config;
  config.max_concurrent_moves = 1;  // log.dir.balance.interval.ms stays 60 s: a check each second
  balancer.configure(config, kNoMoveThrottle);
  balancer.start();
  const auto started = Clock::now();
  const DrainPlan plan = balancer.drain(
      dirs_[0], [&] { m->set_cordoned([&](const fs::path& d) { return d == dirs_[0]; }); });
  ASSERT_EQ(plan.moves.size(), static_cast<size_t>(kEmpty)) << plan.problem;
  BalanceStatus s = balancer.status();
  for (int i = 0; i < 3000 && !s.draining.empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
    s = balancer.status();
  }
  const double took = std::chrono::duration<double>(Clock::now() - started).count();
  balancer.stop();
  EXPECT_EQ(s.draining, "") << "still draining after 30 s";
  EXPECT_EQ(s.last_drain_result, "drained") << s.last_drain_message;
  EXPECT_EQ(s.moves, static_cast<uint64_t>(kEmpty));
  EXPECT_TRUE(m->describe()[0].partitions.empty());
  // Half the ticks a tick-bound drain needs: a generous bound.
  EXPECT_LT(took, 10.0) << kEmpty << " empty replicas drained in " << took << " s";
}

}  // namespace
}  // namespace lds
