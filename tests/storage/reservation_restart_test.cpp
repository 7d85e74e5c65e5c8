// reservation_restart_test.cpp: the bytes reserved for a partition placed with an expected size
// survive a restart and a move (its lds.partition file), and a hand-edited bad file is logged with
// its path and read as no expected size.
#include <gtest/gtest.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "byte_units.h"
#include "host_test_support.h"
#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "three_dir_test.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::LogCapture;

class ReservationRestartTest : public test::ThreeDirTest {
 protected:
  // Reserved bytes of d1, d2, d3 as DescribeLogDirs reports them.
  static std::vector<uint64_t> reserved(const LogManager& m) {
    std::vector<uint64_t> out;
    for (const auto& d : m.describe()) out.push_back(d.reserved_bytes);
    return out;
  }
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
    ASSERT_EQ(r.error, StorageErrc::kNone) << r.message;
    ASSERT_NO_FATAL_FAILURE(wait_for_moves(*m));
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
    // The file is written still, for the replica's identity; it records no expected size.
    std::ifstream in(dirs_[0] / "t-0" / layout::kPartitionMetadata);
    const layout::PartitionMetadata meta =
        layout::parse_partition_metadata(std::string(std::istreambuf_iterator<char>(in), {}));
    EXPECT_EQ(meta.problem, "");
    EXPECT_EQ(meta.expected_bytes, 0u);
    EXPECT_EQ(meta.replica_id.size(), 22u) << meta.replica_id;
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
