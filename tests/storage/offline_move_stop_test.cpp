// offline_move_stop_test.cpp: a directory going offline (LogManager::mark_offline, whoever calls
// it) stops every move from or to it, as Kafka stops the moves of a failed log dir: the copy stops
// at its next chunk, its future copy is removed, its reservation is released, and the move is
// listed in the failed moves with why, one log line each.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "host_test_support.h"
#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "three_dir_test.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::LogCapture;

constexpr uint64_t kSize = 8ull << 20;

class OfflineMoveStopTest : public test::ThreeDirTest {
 protected:
  void SetUp() override {
    ThreeDirTest::SetUp();
    m_ = make();
    ASSERT_EQ(m_->create_partition("t", 0).log_dir, dirs_[0].string());
    m_->append("t", 0, kSize);
    ASSERT_EQ(m_->create_partition("u", 0).log_dir, dirs_[1].string());  // a bystander
    m_->append("u", 0, 1000);
    m_->set_move_throttle(256 * 1024);  // the copy takes half a minute
  }

  // The future copy of t-0 in d3, once the move has copied something into it.
  fs::path started_future() {
    for (int i = 0; i < 500; ++i) {
      for (const auto& d : m_->describe()) {
        for (const auto& p : d.partitions) {
          if (p.is_future && p.size > 0) {
            for (const auto& e : fs::directory_iterator(dirs_[2])) {
              if (layout::parse_entry(e.path().filename().string()).kind ==
                  layout::EntryKind::kFuture)
                return e.path();
            }
          }
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "the move did not start copying";
    return {};
  }

  void expect_stopped(const fs::path& future, uint32_t offline, const std::string& side) {
    for (int i = 0; i < 500 && (fs::exists(future) || m_->moves_in_progress() > 0); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_FALSE(fs::exists(future)) << "the future copy should be removed";
    EXPECT_EQ(m_->moves_in_progress(), 0u);
    const std::string message = "Move of t-0 from " + dirs_[0].string() + " to " +
                                dirs_[2].string() + " stopped: its " + side + " log directory " +
                                dirs_[offline].string() + " went offline (test: the disk failed).";
    const auto failed = m_->failed_moves();
    ASSERT_EQ(failed.size(), 1u);
    EXPECT_EQ(failed[0].partition, "t-0");
    EXPECT_EQ(failed[0].log_dir, dirs_[2].string());
    EXPECT_EQ(failed[0].error, StorageErrc::kDirUnavailable);
    EXPECT_EQ(failed[0].message, message);
    const auto described = m_->describe();
    EXPECT_EQ(described[2].reserved_bytes, 0u) << "the move's reservation is released";
    for (const auto& d : described) {
      for (const auto& p : d.partitions) EXPECT_FALSE(p.is_future) << d.log_dir;
    }
    EXPECT_EQ(described[1].error, StorageErrc::kNone);
    EXPECT_EQ(m_->append("u", 0, 100), 1100u) << "the other partitions keep working";
  }

  std::unique_ptr<LogManager> m_;
};

TEST_F(OfflineMoveStopTest, AMoveWhoseSourceGoesOfflineStopsAndIsReportedWithWhy) {
  ASSERT_EQ(m_->alter_replica_log_dir({"t", 0}, dirs_[2].string()).error, StorageErrc::kNone);
  const fs::path future = started_future();
  LogCapture log("lds.log_manager");
  m_->mark_offline(0, "test: the disk failed");
  expect_stopped(future, 0, "source");
  const std::string text = log.text();
  const std::string line = "Move of t-0 from " + dirs_[0].string() + " to " + dirs_[2].string() +
                           " stopped: its source log directory";
  ASSERT_NE(text.find(line), std::string::npos) << text;
  EXPECT_EQ(text.find(line, text.find(line) + 1), std::string::npos) << "logged once: " << text;
  EXPECT_EQ(m_->describe()[2].error, StorageErrc::kNone) << "the destination stays online";
}

TEST_F(OfflineMoveStopTest, AMoveWhoseDestinationGoesOfflineStopsAndTheSourceStaysServed) {
  ASSERT_EQ(m_->alter_replica_log_dir({"t", 0}, dirs_[2].string()).error, StorageErrc::kNone);
  const fs::path future = started_future();
  m_->mark_offline(2, "test: the disk failed");
  expect_stopped(future, 2, "destination");
  EXPECT_EQ(m_->append("t", 0, 100), kSize + 100) << "t-0 is still served from d1";
}

}  // namespace
}  // namespace lds
