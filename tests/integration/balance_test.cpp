// balance_test.cpp: the intra-broker balancer and drain on a real `lds-host serve` with tmpfs disks
// of different sizes: the spread ends under the threshold with the data byte-identical and every
// partition in exactly one dir; --plan changes nothing; a round on request ends back in the
// disabled state; a drain empties a dir (and is refused up front when the others cannot hold it),
// names the next step, and the retired dir's cordon is pruned at the next start; a drain starts its
// next move when one ends, not at the next tick; a drain whose dir goes offline says what is left
// there and exits 1, and the runbook's copy off a read-only disk serves it again; a third-party
// strategy that forbids a dir is honoured;
// kill -9 during balancer and drain moves loses and duplicates nothing.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/mount.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <sstream>
#include <thread>

#include "admin/admin_client.h"
#include "balance_fixture.h"

namespace lds::integration {
namespace {

using Clock = std::chrono::steady_clock;
constexpr int kPartitions = 10;
constexpr uint64_t kPartitionBytes = 2 * kMiB + 4099;  // not a multiple of any block size

TEST_F(BalanceTest, EnablingTheBalancerBringsTheSpreadUnderTheThresholdWithTheDataIntact) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{32, 48, 64}));
  start(c);
  place_on(disk(1), "t", kPartitions, kPartitionBytes);  // disk1 about 63% full, the others empty
  json before = call_ok({{"api", "DescribeBalance"}});
  EXPECT_GT(before["spreadPercent"].get<double>(), 10.0);
  EXPECT_EQ(before["state"], "disabled");

  set_configs({{"log.dir.balance.enable", "true"}, {"log.dir.balance.interval.ms", "100"}});
  ASSERT_TRUE(wait_for([&] {
    const json s = call_ok({{"api", "DescribeBalance"}});
    return s["spreadPercent"].get<double>() < 10.0 && s["inFlight"].empty();
  })) << server_log();
  ASSERT_TRUE(wait_until_settled());
  const json after = call_ok({{"api", "DescribeBalance"}});
  EXPECT_LT(after["spreadPercent"].get<double>(), 10.0);
  EXPECT_GT(after["moves"].get<uint64_t>(), 0u);
  EXPECT_GE(after["bytesMoved"].get<uint64_t>(), kPartitionBytes);
  int futures = 0;
  for (const auto& [name, dirs] : placement(&futures)) EXPECT_EQ(dirs.size(), 1u) << name;
  EXPECT_EQ(futures, 0);
  expect_intact("t", kPartitions, kPartitionBytes);
  // Every action is logged with its reason.
  EXPECT_NE(server_log().find("moving t-"), std::string::npos);
  EXPECT_NE(server_log().find(" > 10.0 points"), std::string::npos);

  // The operator surface: one balancer line in describe, and the status.
  ProcessResult d = run_host({"describe", "--socket", socket_.string()});
  EXPECT_EQ(d.exit_code, 0) << d.err;
  EXPECT_NE(d.out.find("Balancer: "), std::string::npos) << d.out;
  ProcessResult s = run_host({"balance", "--status", "--socket", socket_.string()});
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_NE(s.out.find("Moves in flight: 0"), std::string::npos) << s.out;
}

TEST_F(BalanceTest, PlanPrintsTheMovesAndChangesNothing) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{32, 48, 64}));
  start(c);
  place_on(disk(1), "t", kPartitions, kPartitionBytes);
  const auto placed = placement();
  const std::string dynamic_before = read_file(fs::path(config_file_.string() + ".dynamic"));

  ProcessResult r = run_host({"balance", "--plan", "--socket", socket_.string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("lower bound"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("t-"), std::string::npos) << "the plan lists no move: " << r.out;
  EXPECT_NE(r.out.find(disk(1).string()), std::string::npos) << r.out;
  ProcessResult j = run_host({"balance", "--plan", "--json", "--socket", socket_.string()});
  const json plan = json::parse(j.out)["plan"];
  EXPECT_FALSE(plan["moves"].empty());
  EXPECT_GT(plan["lowerBoundBytes"].get<uint64_t>(), 0u);

  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  int futures = 0;
  EXPECT_EQ(placement(&futures), placed);
  EXPECT_EQ(futures, 0);
  const json s = call_ok({{"api", "DescribeBalance"}});
  EXPECT_EQ(s["moves"], 0);
  EXPECT_EQ(s["rounds"], 0);
  EXPECT_EQ(read_file(fs::path(config_file_.string() + ".dynamic")), dynamic_before);
  expect_intact("t", kPartitions, kPartitionBytes);
}

TEST_F(BalanceTest, ExecuteRunsOneRoundAndCancelStopsIt) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{32, 48, 64}));
  start(c);
  place_on(disk(1), "t", kPartitions, kPartitionBytes);
  // Slow moves, so that the round is still running when it is cancelled.
  set_configs({{"replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(kMiB / 2)}});
  ProcessResult e = run_host({"balance", "--execute", "--socket", socket_.string()});
  EXPECT_EQ(e.exit_code, 0) << e.err;
  json s = call_ok({{"api", "DescribeBalance"}});
  EXPECT_EQ(s["state"], "balancing");
  EXPECT_EQ(s["inFlight"].size(), 2u) << "log.dir.balance.max.concurrent.moves is 2";
  ProcessResult x = run_host({"balance", "--cancel", "--socket", socket_.string()});
  EXPECT_EQ(x.exit_code, 0) << x.err;
  s = call_ok({{"api", "DescribeBalance"}});
  EXPECT_TRUE(s["inFlight"].empty());
  EXPECT_EQ(s["planned"], 0);
  EXPECT_EQ(s["state"], "cancelled");
  ASSERT_TRUE(wait_for([&] {
    int futures = 0;
    placement(&futures);
    return futures == 0;
  }));
  // Back to Kafka's default, no throttle.
  set_configs({{"replica.alter.log.dirs.io.max.bytes.per.second", "9223372036854775807"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  expect_intact("t", kPartitions, kPartitionBytes);
}

TEST_F(BalanceTest, ARoundOnRequestWithTheBalancerDisabledEndsInTheDisabledState) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{32, 48, 64}));
  start(c);
  place_on(disk(1), "t", kPartitions, kPartitionBytes);
  // A band of +-0.5 points that 2 MiB steps cannot land in: the round stops short of it, and
  // says what blocks it.
  set_configs({{"log.dir.balance.threshold.percent", "2"}});
  ProcessResult e = run_host({"balance", "--execute", "--json", "--socket", socket_.string()});
  EXPECT_EQ(e.exit_code, 0) << e.err;
  const json plan = json::parse(e.out)["plan"];
  ASSERT_FALSE(plan["moves"].empty()) << e.out;
  ASSERT_FALSE(plan["targetReached"].get<bool>()) << e.out;
  EXPECT_NE(plan["summary"].get<std::string>().find(
                "; no further move lowers the spread; the smallest candidate, t-"),
            std::string::npos)
      << e.out;
  ASSERT_TRUE(wait_until_settled()) << server_log();
  EXPECT_GT(call_ok({{"api", "DescribeBalance"}})["moves"].get<uint64_t>(), 0u);
  ProcessResult s = run_host({"balance", "--status", "--socket", socket_.string()});
  EXPECT_EQ(s.exit_code, 0) << s.err;
  EXPECT_TRUE(s.out.starts_with("Balancer disabled: spread ")) << s.out;
  EXPECT_NE(s.out.find("\nMoves in flight: 0 (0 planned)\n"), std::string::npos) << s.out;
  expect_intact("t", kPartitions, kPartitionBytes);
}

TEST_F(BalanceTest, DrainNamesTheNextStepAndTheRetiredDirsCordonIsPrunedAtTheNextStart) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{32, 48, 64}));
  start(c);
  place_on(disk(1), "t", 4, kPartitionBytes);
  set_configs({{"log.level", "info"}});
  ProcessResult r =
      run_host({"drain", "--dir", disk(1).string(), "--wait", "--socket", socket_.string()}, 120);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << server_log();
  EXPECT_TRUE(r.out.ends_with("\nDrained " + disk(1).string() +
                              ". Next: remove it from log.dirs and restart the broker.\n"))
      << r.out;
  const fs::path dynamic(config_file_.string() + ".dynamic");
  const std::string cordoned = read_file(dynamic);
  const std::string cordon_line = "\"cordoned.log.dirs\" = \"" + disk(1).string() + "\"\n";
  ASSERT_NE(cordoned.find(cordon_line), std::string::npos) << cordoned;

  // The operator's next step: disk1 leaves log.dirs, and the broker restarts.
  stop();
  const fs::path retired = disk(1);
  ServerConfig without = config_;
  without.log_dirs.erase(without.log_dirs.begin());
  start(without);
  std::string expected = cordoned;
  expected.erase(expected.find(cordon_line), cordon_line.size());
  EXPECT_EQ(read_file(dynamic), expected);
  const std::string log = server_log();
  const std::string line =
      "Pruned " + retired.string() + " from cordoned.log.dirs: it is no longer in log.dirs.";
  const size_t at = log.find(line);
  EXPECT_NE(at, std::string::npos) << log;
  EXPECT_EQ(log.find(line, at + 1), std::string::npos) << "logged twice:\n" << log;
  EXPECT_EQ(log.find("All cordoned log dirs must be entries"), std::string::npos) << log;
  expect_intact("t", 4, kPartitionBytes);
}

TEST_F(BalanceTest, DrainEmptiesTheDirAndSavesItsCordon) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{32, 48, 64}));
  start(c);
  place_on(disk(1), "t", kPartitions, kPartitionBytes);
  call_ok({{"api", "CreatePartitions"}, {"topic", "empty"}, {"partitions", {0}}});
  ProcessResult r =
      run_host({"drain", "--dir", disk(1).string(), "--wait", "--socket", socket_.string()}, 120);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << server_log();
  EXPECT_NE(r.out.find("Drained " + disk(1).string()), std::string::npos) << r.out;
  EXPECT_EQ(partitions_in(disk(1)), 0u);
  expect_intact("t", kPartitions, kPartitionBytes);
  // The cordon is a dynamic config change, saved like any other: it survives a restart.
  auto cordon = [&] {
    const json configs = call_ok({{"api", "DescribeConfigs"}})["configs"];
    for (const auto& cfg : configs) {
      if (cfg["name"] == "cordoned.log.dirs") return cfg;
    }
    return json();
  };
  EXPECT_EQ(cordon()["value"], disk(1).string());
  EXPECT_EQ(cordon()["source"], "DYNAMIC");
  restart();
  EXPECT_EQ(cordon()["value"], disk(1).string());
  EXPECT_EQ(partitions_in(disk(1)), 0u);
}

// A drain is not bound to the balancer's tick (once a second at the default interval): the next
// move starts as soon as one ends. One move at a time, 40 empty replicas would take 40 ticks.
TEST_F(BalanceTest, ADrainStartsItsNextMoveWhenOneEndsNotAtTheNextTick) {
  start(default_config(3));
  set_configs({{"log.dir.balance.max.concurrent.moves", "1"}});
  constexpr int kEmpty = 40;
  json partitions = json::array();
  std::vector<int> ids;
  for (int p = 0; p < kEmpty; ++p) {
    partitions.push_back({{"topic", "e"}, {"partition", p}});
    ids.push_back(p);
  }
  // Every one in disk1: a remembered KIP-113 preference, then one creation.
  call_ok({{"api", "AlterReplicaLogDirs"},
           {"dirs", json::array({{{"path", disk(1).string()}, {"partitions", partitions}}})}});
  call_ok({{"api", "CreatePartitions"}, {"topic", "e"}, {"partitions", ids}});
  ASSERT_EQ(partitions_in(disk(1)), static_cast<size_t>(kEmpty));
  const auto started = Clock::now();
  ProcessResult r =
      run_host({"drain", "--dir", disk(1).string(), "--wait", "--socket", socket_.string()}, 120);
  const double took = std::chrono::duration<double>(Clock::now() - started).count();
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err << server_log();
  EXPECT_EQ(partitions_in(disk(1)), 0u);
  EXPECT_EQ(placement().size(), static_cast<size_t>(kEmpty));
  // Tick-bound it takes 39 ticks of 1 s; a quarter of that is a generous bound.
  EXPECT_LT(took, 10.0) << kEmpty << " empty replicas drained in " << took << " s";
}

// disk1 is remounted read-only while a drain copies its replicas off (4 MiB each at 4 MiB/s, one
// at a time), and the next Produce there takes it offline. The replicas left there cannot move:
// `drain --wait` names them with their count and bytes and exits 1, the broker logs the same
// sentence (not "drained"), and `describe` shows them under the offline dir. The runbook's way off
// a read-only but readable disk (docs/operations.md: stop the broker, copy them to another log
// dir, take the disk out of log.dirs, start) serves them again, whole.
// A drain of disk 1 whose tmpfs turns read-only under it, and what the operator then sees and does.
class OfflineDrainTest : public BalanceTest {
 protected:
  static constexpr int kReplicas = 6;

  // Runs `drain --wait` on disk 1, holding kReplicas of 4 MiB, and remounts disk 1 read-only once
  // two have moved; a Produce there then finds it failing. Returns the drain's result.
  ProcessResult drain_until_read_only() {
    place_on(disk(1), "x", kReplicas, 4 * kMiB);
    set_configs({{"log.dir.balance.max.concurrent.moves", "1"},
                 {"replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(4 * kMiB)},
                 {"log.level", "info"}});
    ProcessResult drain;
    std::thread waiter([&] {
      drain = run_host({"drain", "--dir", disk(1).string(), "--wait", "--socket", socket_.string()},
                       120);
    });
    two_moved_ = wait_for([&] { return partitions_in(disk(1)) <= kReplicas - 2; });
    if (two_moved_) {
      EXPECT_EQ(::mount("tmpfs", disk(1).c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr), 0)
          << "mount -o remount,ro " << disk(1) << ": " << std::strerror(errno);
      // Held here: a range-for over a member of a temporary reads freed memory.
      const json partitions =
          dir_entry(call_ok({{"api", "DescribeLogDirs"}}), disk(1))["partitions"];
      if (!partitions.empty()) {
        const std::string name = partitions[0]["partition"].get<std::string>();
        call({{"api", "Produce"},
              {"topic", "x"},
              {"partition", std::stoi(name.substr(2))},
              {"bytes", 100}});
      }
    }
    waiter.join();
    return drain;
  }

  // "<n> MiB" of `count` replicas of 4 MiB, as the sentences print it.
  static std::string mib_of(size_t count) {
    char bytes[32];
    std::snprintf(bytes, sizeof bytes, "%.1f MiB", 4.0 * static_cast<double>(count));
    return bytes;
  }

  // What the stopped drain says, naming the replicas `left` on disk 1.
  std::string stopped_sentence(const json& left) {
    std::string names;
    for (const auto& n : left) names += (names.empty() ? "" : ", ") + n.get<std::string>();
    return "Drain of " + disk(1).string() + " stopped: " + std::to_string(left.size()) +
           (left.size() == 1 ? " replica (" : " replicas (") + mib_of(left.size()) +
           (left.size() == 1 ? ") remains" : ") remain") + " on it, now offline: " + names;
  }

  // describe: the offline dir's row counts its unreadable replicas, and names them.
  void expect_described_as_offline(size_t left) {
    const ProcessResult d = run_host({"describe", "--socket", socket_.string()});
    EXPECT_EQ(d.exit_code, 0) << d.err;
    char tail[64];
    std::snprintf(tail, sizeof tail, " %6zu %11s", left, mib_of(left).c_str());
    bool row = false;
    std::istringstream lines(d.out);
    for (std::string line; std::getline(lines, line);) {
      if (line.starts_with(disk(1).string() + " ") && line.find("OFFLINE") != std::string::npos) {
        row = true;
        EXPECT_TRUE(line.ends_with(tail)) << line;
      }
    }
    EXPECT_TRUE(row) << d.out;
    EXPECT_NE(d.out.find("  " + disk(1).string() + " (OFFLINE): " + std::to_string(left) +
                         (left == 1 ? " unreadable replica (" : " unreadable replicas (") +
                         mib_of(left) + "):"),
              std::string::npos)
        << d.out;
  }

  // The runbook: stop, copy each replica left to disk 2 with cp -a, take the read-only disk out of
  // log.dirs, start.
  void copy_off_and_restart(const json& left) {
    stop();
    for (const auto& n : left) {
      const ProcessResult cp = run_program(
          {"cp", "-a", (disk(1) / n.get<std::string>()).string(), disk(2).string() + "/"});
      ASSERT_EQ(cp.exit_code, 0) << cp.err;
    }
    ServerConfig without = config_;
    without.log_dirs.erase(without.log_dirs.begin());
    start(without);
  }

  bool two_moved_ = false;
};

TEST_F(OfflineDrainTest, ADrainWhoseDirGoesOfflineNamesWhatIsLeftThereAndTheRunbookCopiesItOff) {
  ServerConfig c = default_config(3);
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{64, 64, 64}));
  start(c);
  const ProcessResult drain = drain_until_read_only();
  ASSERT_TRUE(two_moved_) << server_log();
  const json d1 = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), disk(1));
  ASSERT_FALSE(d1["error"].is_null()) << d1.dump();
  const json left = d1["unreadablePartitions"];
  ASSERT_GE(left.size(), 1u) << d1.dump();
  const std::string sentence = stopped_sentence(left);
  EXPECT_EQ(drain.exit_code, 1) << drain.out << drain.err;
  EXPECT_EQ(drain.err, "lds-host: " + sentence + "\n") << drain.out;
  EXPECT_EQ(drain.out.find("Drained"), std::string::npos) << drain.out;
  EXPECT_NE(server_log().find(sentence), std::string::npos) << server_log();
  EXPECT_EQ(server_log().find("drained " + disk(1).string()), std::string::npos) << server_log();
  const json status = call_ok({{"api", "DescribeBalance"}});
  EXPECT_TRUE(status["draining"].is_null()) << status.dump();
  EXPECT_EQ(status["lastDrain"]["result"], "stopped") << status.dump();
  expect_described_as_offline(left.size());

  ASSERT_NO_FATAL_FAILURE(copy_off_and_restart(left));
  expect_intact("x", kReplicas, 4 * kMiB);
  const int first = std::stoi(left[0].get<std::string>().substr(2));
  const json r =
      call_ok({{"api", "Produce"}, {"topic", "x"}, {"partition", first}, {"bytes", 100}});
  EXPECT_EQ(r.value("size", 0ull), 4 * kMiB + 100) << r.dump();
}

TEST_F(BalanceTest, DrainIsRefusedUpFrontNamingTheShortfallWhenTheOthersCannotHoldIt) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{64, 16, 16}));
  start(c);
  place_on(disk(1), "t", 20, kPartitionBytes);  // about 40 MiB; the others hold 32 MiB at most
  const auto placed = placement();
  ProcessResult r = run_host({"drain", "--dir", disk(1).string(), "--socket", socket_.string()});
  EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
  EXPECT_NE(r.err.find("INVALID_REPLICA_ASSIGNMENT"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("bytes short"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(disk(1).string()), std::string::npos) << r.err;
  // Nothing changed: no cordon, no move.
  const json configs = call_ok({{"api", "DescribeConfigs"}})["configs"];
  for (const auto& cfg : configs) {
    if (cfg["name"] == "cordoned.log.dirs") {
      EXPECT_EQ(cfg["value"], "");
    }
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  EXPECT_EQ(placement(), placed);
  EXPECT_TRUE(call_ok({{"api", "DescribeBalance"}})["draining"].is_null());
}

TEST_F(BalanceTest, AThirdPartyStrategyThatForbidsADirIsHonoured) {
  ServerConfig c = default_config(3, "forbiddir");
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{32, 48, 64}));
  c.plugin_dir = LDS_FORBID_PLUGIN_DIR;
  // The largest and emptiest disk, the one a fill-based balancer would fill first.
  c.extra_lines = {"\"log.directory.select.forbiddir.dir\" = \"" + c.log_dirs[2].string() + "\""};
  start(c);
  place_on(disk(1), "t", kPartitions, kPartitionBytes);
  set_configs({{"log.dir.balance.enable", "true"}, {"log.dir.balance.interval.ms", "100"}});
  // Watch the forbidden dir while the balancer works: no replica, current or future, ever.
  bool moved = false;
  ASSERT_TRUE(wait_for([&] {
    EXPECT_EQ(partitions_in(disk(3)), 0u);
    const json s = call_ok({{"api", "DescribeBalance"}});
    moved = s["moves"].get<uint64_t>() > 0;
    return moved && s["inFlight"].empty() && s["planned"] == 0;
  })) << server_log();
  ASSERT_TRUE(wait_until_settled());
  EXPECT_EQ(partitions_in(disk(3)), 0u);
  EXPECT_GT(partitions_in(disk(2)), 0u);
  // With the largest disk forbidden the spread cannot reach the threshold, and it says what
  // blocks it, from its next plan (the last move's end is seen at once, the plan an interval on).
  json stuck;
  EXPECT_TRUE(wait_for([&] {
    stuck = call_ok({{"api", "DescribeBalance"}});
    return stuck["state"] == "stuck";
  })) << stuck.dump();
  EXPECT_NE(stuck["waiting"].get<std::string>().find(
                "; no further move lowers the spread; the smallest candidate, t-"),
            std::string::npos)
      << stuck["waiting"];
  // A drain of disk1 goes to disk2 only, too.
  ProcessResult r =
      run_host({"drain", "--dir", disk(1).string(), "--wait", "--socket", socket_.string()}, 120);
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_EQ(partitions_in(disk(1)), 0u);
  EXPECT_EQ(partitions_in(disk(3)), 0u);
  expect_intact("t", kPartitions, kPartitionBytes);
}

// kill -9 at the protocol's crash points during moves the balancer and a drain started: after a
// restart every partition exists exactly once, complete.
TEST_F(BalanceTest, KillNineDuringBalancerAndDrainMovesLosesAndDuplicatesNothing) {
  ServerConfig c = default_config(3, "size");
  REQUIRE_TMPFS(c, (std::vector<uint64_t>{32, 48, 64}));
  const char* points[] = {"during_copy", "after_marker", "after_source_renamed",
                          "after_future_renamed"};
  int run = 0;
  for (const char* point : points) {
    for (const bool drain : {false, true}) {
      SCOPED_TRACE(std::string(point) + (drain ? " during a drain" : " during a balancer move"));
      // Appended: GCC 12 at -O3 reports a false -Wrestrict on `"k" + std::to_string(run)`.
      const std::string topic = std::string("k").append(std::to_string(run++));
      start(c);
      place_on(disk(1), topic, 4, kPartitionBytes);
      stop();
      ::setenv("LDS_CRASH_POINT", point, 1);
      start(c);
      ::unsetenv("LDS_CRASH_POINT");
      try {
        AdminClient client(socket_);
        if (drain) {
          client.call(json{{"api", "DrainLogDir"}, {"logDir", disk(1).string()}}.dump());
        } else {
          client.call(json{{"api", "Balance"}, {"action", "execute"}}.dump());
        }
      } catch (const std::exception&) {
        // the crash point was reached while answering
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(500));
      kill9();
      start(c);
      call_ok({{"api", "DescribeLogDirs"}});
      expect_intact(topic, 4, kPartitionBytes);
      call_ok({{"api", "DeleteTopic"}, {"topic", topic}});
      // Back to an uncordoned disk1 for the next run.
      call_ok({{"api", "IncrementalAlterConfigs"},
               {"configs", json::array({{{"name", "cordoned.log.dirs"}, {"op", "DELETE"}}})}});
      stop();
    }
  }
}

}  // namespace
}  // namespace lds::integration
