// throttled_move_stop_test.cpp: a move paced by a low
// replica.alter.log.dirs.io.max.bytes.per.second sleeps between its ranges for as long as the limit
// asks (at 1 byte/s, over an hour for one 4 KiB range), yet stops within a look at the limit when
// it is cancelled or the broker shuts down.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <future>

#include "storage/log_manager.h"
#include "three_dir_test.h"

namespace lds {
namespace {

// The dirs holding t-0, its future copy included.
std::vector<std::string> dirs_of_t0(const LogManager& m) {
  std::vector<std::string> out;
  for (const LogDirDescription& d : m.describe()) {
    for (const PartitionDescription& p : d.partitions) {
      if (p.partition == "t-0") out.push_back(d.log_dir + (p.is_future ? " (future)" : ""));
    }
  }
  return out;
}

class ThrottledMoveStopTest : public test::ThreeDirTest {
 protected:
  // t-0 (64 KiB) moving from d1 to d2 at 1 byte/s, its first range copied: its mover sleeps.
  void start_slow_move() {
    m_ = make();
    ASSERT_EQ(m_->create_partition("t", 0).log_dir, dirs_[0].string());
    m_->append("t", 0, 64 << 10);
    m_->set_move_throttle(1);
    ASSERT_EQ(m_->alter_replica_log_dir({"t", 0}, dirs_[1].string()).error, StorageErrc::kNone);
    for (int i = 0; i < 3000 && m_->move_counters().copied_bytes == 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_GT(m_->move_counters().copied_bytes, 0u) << "the move never copied its first range";
  }

  std::unique_ptr<LogManager> m_;
};

TEST_F(ThrottledMoveStopTest, ACancelledMoveStopsWithoutWaitingOutTheLimit) {
  ASSERT_NO_FATAL_FAILURE(start_slow_move());
  ASSERT_EQ(m_->alter_replica_log_dir({"t", 0}, "any").error, StorageErrc::kNone);
  wait_for_moves(*m_);  // 30 s at most, against the 4,096 s the range's pacing asks
  EXPECT_EQ(dirs_of_t0(*m_), std::vector<std::string>{dirs_[0].string()});
}

TEST_F(ThrottledMoveStopTest, ShutdownStopsAMoveWithoutWaitingOutTheLimit) {
  ASSERT_NO_FATAL_FAILURE(start_slow_move());
  auto shutdown = std::async(std::launch::async, [this] { m_.reset(); });
  if (shutdown.wait_for(std::chrono::seconds(30)) != std::future_status::ready) {
    // The future would wait for the sleeping mover for an hour: the suite ends here, failed.
    std::fprintf(stderr, "FAILED: the LogManager's shutdown waited for the move's throttle\n");
    std::_Exit(1);
  }
  // The move was dropped, not left half-done: t-0 is still in d1 after a restart.
  m_ = make();
  EXPECT_EQ(dirs_of_t0(*m_), std::vector<std::string>{dirs_[0].string()});
}

}  // namespace
}  // namespace lds
