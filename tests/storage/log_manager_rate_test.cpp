// log_manager_rate_test.cpp: the append rates LogManager measures and hands strategies (ABI 1.1):
// per partition and per log directory, decayed over log.dir.rate.window.ms, unknown after a
// restart, and a move's copy counted at its destination. Time is the FakeDiskProbe's clock.
#include <gtest/gtest.h>

#include <chrono>

#include "host_test_support.h"
#include "storage/log_manager.h"
#include "three_dir_test.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

constexpr uint64_t kMB = 1000ull * 1000;

class LogManagerRateTest : public test::ThreeDirTest {
 protected:
  // Three 1,000 MB disks, empty; the rate clock at 1,000 s.
  void SetUp() override {
    ThreeDirTest::SetUp();
    for (const auto& d : dirs_) probe_->set(d, 1000 * kMB, 1000 * kMB);
    probe_->set_now(1000);
  }

  // `bytes` appended to `tp` every second for `seconds` seconds.
  void produce_steadily(LogManager& m, const TopicPartition& tp, uint64_t bytes, int seconds) {
    for (int s = 0; s < seconds; ++s) {
      probe_->advance(1);
      m.append(tp.topic, tp.partition, bytes);
    }
  }

  // The candidate for log dir `i` (0-based) as a strategy would see it.
  lds_dir candidate(const LogManager& m, uint32_t i) {
    std::vector<uint32_t> indices;
    const std::vector<lds_dir> dirs = m.candidates("t", true, &indices);
    for (size_t k = 0; k < dirs.size(); ++k) {
      if (indices[k] == i) return dirs[k];
    }
    ADD_FAILURE() << "log dir " << i << " is not a candidate";
    return {};
  }
};

TEST_F(LogManagerRateTest, AppendsCountAtThePartitionAndItsLogDir) {
  auto m = make();
  m->create_partition("t", 0);  // d1
  m->create_partition("t", 1);  // d2
  produce_steadily(*m, {"t", 0}, 10'000, 60);
  EXPECT_NEAR(m->partition_rate({"t", 0}), 10'000, 300);
  EXPECT_EQ(m->partition_rate({"t", 1}), 0);
  EXPECT_EQ(m->partition_rate({"unknown", 0}), 0);
  ASSERT_TRUE(m->dir_rate(0).has_value());
  EXPECT_NEAR(*m->dir_rate(0), 10'000, 300);
  EXPECT_EQ(m->dir_rate(1), 0.0);

  const lds_dir busy = candidate(*m, 0);
  EXPECT_EQ(busy.flags & LDS_DIR_RATE_UNKNOWN, 0u);
  EXPECT_NEAR(static_cast<double>(busy.bytes_in_per_sec), 10'000, 300);
  EXPECT_EQ(candidate(*m, 1).bytes_in_per_sec, 0u);
}

TEST_F(LogManagerRateTest, RatesDecayOverTheConfiguredWindow) {
  auto m = make();
  m->set_rate_window(std::chrono::seconds(60));
  m->create_partition("t", 0);
  produce_steadily(*m, {"t", 0}, 50'000, 600);
  const double busy = m->partition_rate({"t", 0});
  probe_->advance(60);  // one window of silence
  EXPECT_NEAR(m->partition_rate({"t", 0}) / busy, 0.368, 0.01);
  EXPECT_NEAR(*m->dir_rate(0) / busy, 0.368, 0.01);
  probe_->advance(600);
  EXPECT_LT(m->partition_rate({"t", 0}), busy / 1000);
}

TEST_F(LogManagerRateTest, ARestartStartsEveryRateUnknown) {
  {
    auto m = make();
    m->create_partition("t", 0);
    produce_steadily(*m, {"t", 0}, 10'000, 60);
    ASSERT_GT(m->partition_rate({"t", 0}), 0);
  }
  auto m = make();
  for (uint32_t i = 0; i < 3; ++i) {
    EXPECT_FALSE(m->dir_rate(i).has_value()) << "d" << i + 1;
    const lds_dir d = candidate(*m, i);
    EXPECT_NE(d.flags & LDS_DIR_RATE_UNKNOWN, 0u) << "d" << i + 1;
    EXPECT_EQ(d.bytes_in_per_sec, 0u);
  }
  EXPECT_EQ(m->partition_rate({"t", 0}), 0);
  // A second of history later the rates are known again: idle until appends arrive.
  probe_->advance(1);
  EXPECT_EQ(m->dir_rate(0), 0.0);
  EXPECT_EQ(candidate(*m, 0).flags & LDS_DIR_RATE_UNKNOWN, 0u);
}

TEST_F(LogManagerRateTest, AMovesCopyCountsAtItsDestination) {
  auto m = make();
  m->create_partition("t", 0);  // d1
  produce_steadily(*m, {"t", 0}, 1 * kMB, 5);
  probe_->advance(10);
  const double source_before = *m->dir_rate(0);
  ASSERT_EQ(m->dir_rate(2), 0.0);
  ASSERT_EQ(m->alter_replica_log_dir({"t", 0}, dirs_[2].string()).error, StorageErrc::kNone);
  ASSERT_NO_FATAL_FAILURE(wait_for_moves(*m));
  ASSERT_TRUE(fs::exists(dirs_[2] / "t-0"));
  // The 5 MB copied arrived at d3 at this instant; d1 only kept its appends' history.
  probe_->advance(1);
  EXPECT_GT(*m->dir_rate(2), 0.0);
  EXPECT_LE(*m->dir_rate(0), source_before);
  // The partition's own rate counts appends only: a move is not new data.
  EXPECT_LE(m->partition_rate({"t", 0}), source_before);
}

TEST_F(LogManagerRateTest, AnExpectedRateComesFromTheRequestOrTheTopicsPartitions) {
  auto m = make();
  m->create_partition("t", 0);
  m->create_partition("t", 1);
  produce_steadily(*m, {"t", 0}, 30'000, 120);
  // The topic's two partitions took 30 kB/s between them: a third is expected at the mean.
  EXPECT_NEAR(static_cast<double>(m->choose("t", 2).expected_bytes_in_per_sec), 15'000, 300);
  // The creation request's own estimate wins.
  EXPECT_EQ(m->choose("t", 2, std::nullopt, 777).expected_bytes_in_per_sec, 777u);
  // A topic with no partitions here has no rate to go by.
  EXPECT_EQ(m->choose("new", 0).expected_bytes_in_per_sec, 0u);
}

}  // namespace
}  // namespace lds
