// balance_full_disk_test.cpp: a balancer or drain whose every move fails for space stops retrying
// it, says once why (its log and DescribeBalance's `waiting`), settles, and moves again once space
// returns. Torture seed 340431315 found the drain case: empty partitions drained into a full
// tmpfs failed, and the drain planned them again forever.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>

#include "balance_fixture.h"

namespace lds::integration {
namespace {

constexpr uint64_t kPartitionBytes = 2 * kMiB + 4099;

// How many times `needle` occurs in `text`.
size_t count_of(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

// A balancer or drain on tmpfs disks, watched through DescribeBalance and the server log.
class FullDiskBalanceTest : public BalanceTest {
 protected:
  json balance() { return call_ok({{"api", "DescribeBalance"}}); }

  // Creates `topic`-`partition` in `dir` (AlterReplicaLogDirs first, as Kafka's reassignment
  // does); the log dir it went to.
  std::string create_in(const fs::path& dir, const std::string& topic, int partition,
                        uint64_t expected_bytes = 0) {
    call_ok({{"api", "AlterReplicaLogDirs"},
             {"dirs", json::array({{{"path", dir.string()},
                                    {"partitions", json::array({{{"topic", topic},
                                                                 {"partition", partition}}})}}})}});
    json create = {{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", {partition}}};
    if (expected_bytes > 0) create["expectedBytes"] = expected_bytes;
    return call_ok(create)["partitions"][0].value("logDir", "");
  }

  // The server log before and after 1.5 s of waiting: 30 balance intervals.
  std::pair<std::string, std::string> log_across_a_wait() {
    std::string before = server_log();
    std::this_thread::sleep_for(std::chrono::milliseconds(1500));
    return {std::move(before), server_log()};
  }

  // `drain --wait` of disk1 into a full disk2 returns once nothing can move, with the reason,
  // rather than hang.
  void expect_drain_returns_saying_why() {
    const ProcessResult r =
        run_host({"drain", "--dir", disk(1).string(), "--wait", "--socket", socket_.string()}, 60);
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err << server_log();
    EXPECT_NE(r.err.find("The drain of " + disk(1).string() + " waits"), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("Not enough space in " + disk(2).string()), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("its filesystem is full (No space left on device)"), std::string::npos)
        << r.err;
    EXPECT_EQ(r.err.find("0 B needed"), std::string::npos) << r.err;
  }

  // The waiting drain settles: nothing in flight, no future replica, no move tried again, the
  // reason logged once.
  void expect_drain_settled() {
    const auto [log_before, log_after] = log_across_a_wait();
    const json s = balance();
    EXPECT_EQ(s["state"], "draining");
    EXPECT_TRUE(s["inFlight"].empty()) << s.dump();
    ASSERT_TRUE(s["waiting"].is_string()) << s.dump();
    EXPECT_NE(s["waiting"].get<std::string>().find(disk(2).string()), std::string::npos);
    int futures = 0;
    placement(&futures);
    EXPECT_EQ(futures, 0);
    EXPECT_EQ(count_of(log_after, "Moving e-"), count_of(log_before, "Moving e-"))
        << "the drain tried a failed move again with nothing changed:\n"
        << log_after.substr(log_before.size());
    EXPECT_EQ(count_of(log_after, "waits: "), 1u) << "the reason is logged once:\n" << log_after;
  }
};

TEST_F(FullDiskBalanceTest, ADrainIntoAFullFilesystemWaitsSayingSoAndGoesOnWhenSpaceReturns) {
  ServerConfig c = default_config(3, "size");
  if (std::string why = mount_disks(c, {32, 16, 16}, true); !why.empty()) {
    GTEST_SKIP() << "needs tmpfs disks: " << why;
  }
  c.extra_lines = {"log.dir.balance.interval.ms = 50",
                   "log.dir.balance.cooldown.ms = 3600000"};  // no retry by the clock here
  start(c);
  // Empty partitions on disk1: a drain plans them into any dir, as they need 0 bytes.
  for (int p = 0; p < 3; ++p) ASSERT_EQ(create_in(disk(1), "e", p), disk(1).string());
  set_configs({{"cordoned.log.dirs", disk(3).string()}});
  fill_disk(disk(2));  // the only destination left has no byte free

  expect_drain_returns_saying_why();
  ASSERT_NO_FATAL_FAILURE(expect_drain_settled());
  // The failed move is where `reassign --verify` and DescribeLogDirs show it, in the same words.
  const json failed = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), disk(2))["failedMoves"];
  ASSERT_FALSE(failed.empty()) << failed.dump();
  EXPECT_NE(failed[0].dump().find("its filesystem is full"), std::string::npos) << failed.dump();

  unfill_disk(disk(2));
  ASSERT_TRUE(wait_for([&] { return balance()["draining"].is_null(); }, 30000)) << server_log();
  EXPECT_EQ(partitions_in(disk(1)), 0u);
  EXPECT_EQ(partitions_in(disk(2)), 3u);
  EXPECT_TRUE(balance()["waiting"].is_null());
}

TEST_F(FullDiskBalanceTest, ABalancerWhoseMovesAreRefusedForSpaceWaitsAndGoesOnWhenSpaceReturns) {
  ServerConfig c = default_config(2, "size");
  if (std::string why = mount_disks(c, {64, 64}, true); !why.empty()) {
    GTEST_SKIP() << "needs tmpfs disks: " << why;
  }
  c.extra_lines = {"log.dir.balance.interval.ms = 50", "log.dir.balance.cooldown.ms = 3600000"};
  start(c);
  place_on(disk(1), "t", 8, kPartitionBytes);  // disk1 about 27% full, disk2 empty
  // disk2 looks empty, but an empty partition there expects 63 MiB: its reservation leaves less
  // than one replica's bytes, so every balancer move into it is refused up front.
  create_in(disk(2), "big", 0, 63 * kMiB);
  set_configs({{"log.dir.balance.enable", "true"}});

  ASSERT_TRUE(wait_for([&] { return balance()["state"] == "stuck"; }, 30000))
      << balance().dump() << server_log();
  const auto [log_before, log_after] = log_across_a_wait();
  const json s = balance();
  EXPECT_EQ(s["state"], "stuck");
  EXPECT_EQ(s["moves"], 0);
  ASSERT_TRUE(s["waiting"].is_string()) << s.dump();
  EXPECT_NE(s["waiting"].get<std::string>().find("Not enough space in " + disk(2).string()),
            std::string::npos)
      << s.dump();
  // One refusal for space blocks every move at least as large into that dir: one try in all.
  EXPECT_EQ(count_of(log_after, "could not start moving"), 1u) << log_after;
  EXPECT_EQ(count_of(log_after, "cannot balance now"), 1u) << log_after;
  EXPECT_EQ(log_after.size(), log_before.size()) << "a waiting balancer logs nothing more:\n"
                                                 << log_after.substr(log_before.size());

  // Space returns: the reservation goes with its topic, and the balancer moves again.
  call_ok({{"api", "DeleteTopic"}, {"topic", "big"}});
  ASSERT_TRUE(wait_for(
      [&] {
        const json b = balance();
        return b["moves"].get<int>() > 0 && b["inFlight"].empty() &&
               b["spreadPercent"].get<double>() <= 10.0;
      },
      60000))
      << balance().dump() << server_log();
  EXPECT_TRUE(balance()["waiting"].is_null());
  expect_intact("t", 8, kPartitionBytes);
}

}  // namespace
}  // namespace lds::integration
