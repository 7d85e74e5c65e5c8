// reservation_restart_test.cpp: the bytes reserved for a partition placed with an expected size
// survive a restart and a move (its lds.partition file), and a hand-edited bad file is logged with
// its path and read as no expected size.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "core/log_layout.h"
#include "core/log_manager.h"
#include "host_test_support.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::FakeDiskProbe;
using test::LogCapture;
using test::TempDir;

constexpr uint64_t kMiB = 1ull << 20;

class ReservationRestartTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (int i = 1; i <= 3; ++i) dirs_.push_back(tmp_.path() / ("d" + std::to_string(i)));
    for (const auto& d : dirs_) probe_->set(d, 1ull << 40, 1ull << 39);
    slot_.publish(test::load_plugin("partition", {}, slot_.next_generation()));
  }

  std::unique_ptr<LogManager> make() {
    LogManager::Options options;
    options.log_dirs = dirs_;
    auto m = std::make_unique<LogManager>(options, probe_, slot_);
    m->startup();
    return m;
  }

  // Reserved bytes of d1, d2, d3 as DescribeLogDirs reports them.
  static std::vector<uint64_t> reserved(const LogManager& m) {
    std::vector<uint64_t> out;
    for (const auto& d : m.describe()) out.push_back(d.reserved_bytes);
    return out;
  }

  TempDir tmp_;
  std::vector<fs::path> dirs_;
  std::shared_ptr<FakeDiskProbe> probe_ = std::make_shared<FakeDiskProbe>();
  StrategySlot slot_;
};

TEST_F(ReservationRestartTest, TheReservationIsTheSameAfterARestartAndFollowsAMove) {
  {
    auto m = make();
    ASSERT_EQ(m->create_partition("t", 0, 32 * kMiB).log_dir, dirs_[0].string());
    m->append("t", 0, kMiB);
    ASSERT_EQ(reserved(*m), (std::vector<uint64_t>{31 * kMiB, 0, 0}));
  }
  {
    auto m = make();
    EXPECT_EQ(reserved(*m), (std::vector<uint64_t>{31 * kMiB, 0, 0}));
    const auto r = m->alter_replica_log_dir({"t", 0}, dirs_[2].string());
    ASSERT_EQ(r.error, ErrorCode::kNone) << r.message;
    for (int i = 0; i < 3000 && m->moves_in_progress() > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(m->moves_in_progress(), 0u);
    ASSERT_TRUE(m->failed_moves().empty());
    EXPECT_EQ(reserved(*m), (std::vector<uint64_t>{0, 0, 31 * kMiB}));
    EXPECT_TRUE(fs::exists(dirs_[2] / "t-0" / layout::kPartitionMetadata));
  }
  auto m = make();
  EXPECT_EQ(reserved(*m), (std::vector<uint64_t>{0, 0, 31 * kMiB}));
  // Writing the expected bytes uses the reservation up, and no more is reserved after that.
  m->append("t", 0, 31 * kMiB + 100);
  EXPECT_EQ(reserved(*m), (std::vector<uint64_t>{0, 0, 0}));
}

TEST_F(ReservationRestartTest, APartitionPlacedWithoutAnExpectedSizeReservesNothingAfterARestart) {
  {
    auto m = make();
    m->create_partition("t", 0, 0);
    EXPECT_FALSE(fs::exists(dirs_[0] / "t-0" / layout::kPartitionMetadata));
  }
  auto m = make();
  EXPECT_EQ(reserved(*m), (std::vector<uint64_t>{0, 0, 0}));
}

TEST_F(ReservationRestartTest, AHandEditedBadFileIsLoggedWithItsPathAndReadAsNoExpectedSize) {
  {
    auto m = make();
    m->create_partition("t", 0, 32 * kMiB);
    m->create_partition("u", 0, 8 * kMiB);
  }
  const fs::path bad = dirs_[0] / "t-0" / layout::kPartitionMetadata;
  std::ofstream(bad) << "expected.bytes=lots\n";
  LogCapture log("lds.log_manager");
  auto m = make();
  EXPECT_NE(log.text().find("Ignoring " + bad.string() +
                            ": line 1 is not expected.bytes=<bytes>; the partition's expected "
                            "size is taken as 0."),
            std::string::npos)
      << log.text();
  // t-0 reserves nothing; u-0 (in d2) keeps its 8 MiB; both are served.
  EXPECT_EQ(reserved(*m), (std::vector<uint64_t>{0, 8 * kMiB, 0}));
  EXPECT_EQ(m->partition_count(), 2u);
}

}  // namespace
}  // namespace lds
