// balance_shared_filesystem_test.cpp: log dirs that share one filesystem on a real server. A drain
// onto them counts the filesystem's room once and is refused when it would overfill it, the
// balancer's plan figures count it once, and moves into its dirs are checked against every
// reservation on it (issue 26, item 4: a drain of 48 MiB onto two dirs of one 40 MiB filesystem
// was accepted and filled it to 97.5%).
#include <gtest/gtest.h>

#include <string>

#include "balance_fixture.h"

namespace lds::integration {
namespace {

constexpr uint64_t kPartitionBytes = 8 * kMiB;

class SharedFilesystemTest : public BalanceTest {
 protected:
  // disk1 on a 64 MiB tmpfs of its own; shared/a and shared/b, two log dirs on one 40 MiB tmpfs.
  std::string mount_shared(ServerConfig& c) {
    c.log_dirs.clear();
    if (std::string why = mount_tmpfs(temp_ / "disk1", 64); !why.empty()) return why;
    if (std::string why = mount_tmpfs(temp_ / "shared", 40); !why.empty()) return why;
    c.log_dirs = {temp_ / "disk1", temp_ / "shared" / "a", temp_ / "shared" / "b"};
    fs::create_directories(c.log_dirs[1]);
    fs::create_directories(c.log_dirs[2]);
    return "";
  }
};

#define REQUIRE_SHARED(c)                                                         \
  do {                                                                            \
    if (std::string why = mount_shared(c); !why.empty()) {                        \
      GTEST_SKIP() << "needs two tmpfs disks, one holding two log dirs: " << why; \
    }                                                                             \
  } while (0)

TEST_F(SharedFilesystemTest, ADrainOntoTwoDirsOfOneFilesystemIsRefusedCountingItOnce) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_SHARED(c);
  start(c);
  place_on(disk(1), "t", 6, kPartitionBytes);  // 48 MiB; the shared filesystem holds 40
  const auto placed = placement();
  ProcessResult r = run_host({"drain", "--dir", disk(1).string(), "--socket", socket_.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("INVALID_REPLICA_ASSIGNMENT"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Cannot drain " + disk(1).string() +
                       ": its 50331648 bytes (48.0 MiB) do "
                       "not fit on the other online, uncordoned log directories, which can take "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" MiB) with moves in flight counted, " + disk(2).string() + " and " +
                       disk(3).string() + " share one filesystem, counted once; "),
            std::string::npos)
      << r.err;
  EXPECT_NE(r.err.find(" bytes short."), std::string::npos) << r.err;
  // Nothing changed: no cordon, no move.
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(placement(), placed);
  EXPECT_TRUE(call_ok({{"api", "DescribeBalance"}})["draining"].is_null());
}

TEST_F(SharedFilesystemTest, ThePlanCountsTheSharedFilesystemOnce) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_SHARED(c);
  start(c);
  place_on(disk(1), "t", 4, kPartitionBytes);  // 32 MiB of 64: 50%; the shared filesystem empty
  const json dirs = log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}));
  auto used = [&](const fs::path& d) {
    const json e = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), d);
    return e["totalBytes"].get<double>() - e["usableBytes"].get<double>();
  };
  auto total = [&](const fs::path& d) {
    return dir_entry(call_ok({{"api", "DescribeLogDirs"}}), d)["totalBytes"].get<double>();
  };
  ASSERT_EQ(dirs.size(), 3u);
  const json plan = call_ok({{"api", "Balance"}, {"action", "plan"}})["plan"];
  // Two filesystems, not three dirs: (used1 + used_shared) / (64 + 40 MiB), about 31%, where
  // counting the shared one twice said 32 / 144 MiB, about 22%.
  const double ideal = 100 * (used(disk(1)) + used(disk(2))) / (total(disk(1)) + total(disk(2)));
  EXPECT_NEAR(plan["idealFillPercent"].get<double>(), ideal, 0.5) << plan.dump();
  EXPECT_GT(plan["idealFillPercent"].get<double>(), 28) << plan.dump();
  const json fills = plan["logDirs"];
  ASSERT_EQ(fills.size(), 3u);
  EXPECT_DOUBLE_EQ(fills[1]["fillPercentAfter"].get<double>(),
                   fills[2]["fillPercentAfter"].get<double>())
      << plan.dump();
  // The planned bytes land on one filesystem: its after-fill counts all of them.
  const double planned = plan["plannedBytes"].get<double>();
  EXPECT_GT(planned, 0) << plan.dump();
  EXPECT_NEAR(fills[1]["fillPercentAfter"].get<double>(),
              100 * (used(disk(2)) + planned) / total(disk(2)), 0.5)
      << plan.dump();
  for (const auto& m : plan["moves"]) EXPECT_EQ(m["from"], disk(1).string()) << plan.dump();
}

TEST_F(SharedFilesystemTest, AMoveIntoADirIsCheckedAgainstTheReservationsOfItsFilesystem) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_SHARED(c);
  start(c);
  place_on(disk(1), "t", 4, kPartitionBytes);
  place_on(disk(1), "u", 1, 10 * kMiB);
  // Slow moves stay in flight, their reservations held: 4 x 8 MiB onto a and b leave at most
  // 8 MiB of the 40 MiB filesystem, less than u-0's 10 MiB, though b alone reserved only 16 MiB.
  set_configs({{"replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(kMiB / 4)}});
  auto move = [&](const std::string& topic, int p, const fs::path& to) {
    return call_ok(
        {{"api", "AlterReplicaLogDirs"},
         {"dirs",
          json::array({{{"path", to.string()},
                        {"partitions", json::array({{{"topic", topic}, {"partition", p}}})}}})}});
  };
  for (int p = 0; p < 4; ++p) {
    const json r = move("t", p, disk(2 + p % 2));
    EXPECT_EQ(r["results"][0]["error"], "NONE") << r.dump();
  }
  const json refused = move("u", 0, disk(3));
  EXPECT_EQ(refused["results"][0]["error"], "KAFKA_STORAGE_ERROR") << refused.dump();
  EXPECT_NE(refused.dump().find("Not enough space in " + disk(3).string() + " to move u-0"),
            std::string::npos)
      << refused.dump();
  // The moves in flight stop; the replicas stay where they are.
  for (int p = 0; p < 4; ++p) move("t", p, "any");
}

}  // namespace
}  // namespace lds::integration
