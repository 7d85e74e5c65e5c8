// balancer_stuck_disk_test.cpp: the balancer on a real LogManager whose destination disk is stuck
// (its filesystem frozen, so a move's start waits in mkdir): status(), plan() and cancel() still
// answer, and the move that was starting is stopped once the disk comes back. Root only: the
// destination is an ext4 image of the test's own; the test skips, saying why, otherwise.
#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <thread>

#include "balance/balancer.h"
#include "byte_units.h"
#include "ext4_image.h"
#include "frozen_disk.h"
#include "host_test_support.h"
#include "temp_dir.h"
#include "util/logging.h"

namespace lds {
namespace {

namespace fs = std::filesystem;
using std::chrono::seconds;

constexpr uint64_t kPartitionBytes = 4 * kKiB;
constexpr int kPartitions = 8;

// Waits up to 30 s for `f`; true if it answered.
template <typename T>
bool answers(std::future<T>& f) {
  return f.wait_for(seconds(30)) == std::future_status::ready;
}

TEST(BalancerStuckDisk, CancelPlanAndStatusAnswerWhileAMoveStartsOnAStuckDisk) {
  set_log_level("off");
  test::TempDir tmp;
  const fs::path a = tmp.path() / "a";
  const fs::path b = tmp.path() / "b";
  fs::create_directories(a);
  if (const std::string why = test::mount_ext4_image(tmp.path() / "b.img", b, 8); !why.empty()) {
    GTEST_SKIP() << why;
  }
  struct Unmount {
    fs::path dir;
    ~Unmount() { ::umount2(dir.c_str(), MNT_DETACH); }
  } unmount{b};

  // Each dir as large as the eight partitions; /b empty, /a full once they are written.
  constexpr uint64_t kDirBytes = kPartitions * kPartitionBytes;
  auto disks = std::make_shared<test::FakeDiskProbe>();
  disks->set(a, kDirBytes, kDirBytes);
  disks->set(b, kDirBytes, kDirBytes);
  StrategySlot slot;
  LogManager::Options o;
  o.log_dirs = {a, b};
  LogManager logs(o, disks, slot);
  logs.startup();
  logs.set_move_throttle(1);  // a move started never finishes its copy within the test
  for (int p = 0; p < kPartitions; ++p) {
    logs.remember_preferred_dir({"t", p}, a);
    logs.create_partition("t", p);
    logs.append("t", p, kPartitionBytes);
  }
  disks->set(a, kDirBytes, 0);  // 100% against 0%
  Balancer balancer(logs, slot, nullptr);
  BalanceConfig c;
  c.enable = true;
  c.interval_ms = 1;
  c.max_concurrent_moves = 1;
  balancer.configure(c, kNoMoveThrottle);

  test::FrozenDisk frozen(b, std::chrono::minutes(2));
  if (!frozen.why().empty()) GTEST_SKIP() << frozen.why();
  std::thread ticker([&] { balancer.tick(); });  // plans a round; its first move waits on /b
  bool starting = false;
  for (int i = 0; i < 3000 && !starting; ++i) {
    starting = balancer.status().in_flight.size() == 1;
    if (!starting) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  auto plan = std::async(std::launch::async, [&] { return balancer.plan(); });
  const bool plan_answered = starting && answers(plan);
  auto cancel = std::async(std::launch::async, [&] { return balancer.cancel(); });
  const bool cancel_answered = starting && answers(cancel);
  auto status = std::async(std::launch::async, [&] { return balancer.status(); });
  const bool status_answered = starting && answers(status);
  frozen.thaw();  // before any assertion: whatever waited on /b goes on
  ticker.join();

  ASSERT_TRUE(starting) << "the tick never started a move";
  ASSERT_TRUE(plan_answered) << "plan() waited for the stuck disk";
  ASSERT_TRUE(cancel_answered) << "cancel() waited for the stuck disk";
  ASSERT_TRUE(status_answered) << "status() waited for the stuck disk";
  EXPECT_TRUE(plan.get().act);
  EXPECT_EQ(cancel.get(), 1u) << "the move that was starting counts as cancelled";
  const BalanceStatus s = status.get();
  EXPECT_EQ(s.state, "cancelled");
  EXPECT_TRUE(s.in_flight.empty());
  // Once the disk came back, the tick that started the move stopped it, and the mover dropped
  // its copy on /b.
  for (int i = 0; i < 3000 && logs.moves_in_progress() > 0; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_EQ(logs.moves_in_progress(), 0u);
  EXPECT_EQ(balancer.status().state, "cancelled");
  for (const fs::directory_entry& e : fs::directory_iterator(b)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name == "lost+found" || name == ".lock" || name == "meta.properties")
        << "left on /b: " << e.path();
  }
  for (const LogDirDescription& d : logs.describe()) {
    const size_t expected = d.log_dir == a.string() ? kPartitions : 0;
    EXPECT_EQ(d.partitions.size(), expected) << d.log_dir;
  }
}

}  // namespace
}  // namespace lds
