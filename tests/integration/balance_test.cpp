// balance_test.cpp: the intra-broker balancer and drain on a real `lds-host serve` with tmpfs disks
// of different sizes: the spread ends under the threshold with the data byte-identical and every
// partition in exactly one dir; --plan changes nothing; a drain empties a dir (and is refused up
// front when the others cannot hold it); a third-party strategy that forbids a dir is honoured;
// kill -9 during balancer and drain moves loses and duplicates nothing.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <map>
#include <thread>

#include "admin/admin_client.h"
#include "core/log_layout.h"
#include "filler_log.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

using Clock = std::chrono::steady_clock;
constexpr uint64_t kMiB = 1ull << 20;
constexpr int kPartitions = 10;
constexpr uint64_t kPartitionBytes = 2 * kMiB + 4099;  // not a multiple of any block size

class BalanceTest : public ServerFixture {
 protected:
  // Mounts one tmpfs per size as the log dirs of `c`. Returns why it could not, or "".
  std::string mount_disks(ServerConfig& c, const std::vector<uint64_t>& mib) {
    c.log_dirs.clear();
    for (size_t i = 0; i < mib.size(); ++i) {
      const fs::path dir = temp_ / ("disk" + std::to_string(i + 1));
      if (std::string why = mount_tmpfs(dir, mib[i]); !why.empty()) return why;
      c.log_dirs.push_back(dir);
    }
    return "";
  }

  fs::path disk(int i) const { return config_.log_dirs[static_cast<size_t>(i - 1)]; }

  void set_configs(const std::map<std::string, std::string>& values) {
    json configs = json::array();
    for (const auto& [k, v] : values) configs.push_back({{"name", k}, {"op", "SET"}, {"value", v}});
    call_ok({{"api", "IncrementalAlterConfigs"}, {"configs", configs}});
  }

  // Creates `topic` partitions 0..count-1 in `dir` (a remembered KIP-113 preference) with
  // `bytes` each.
  void place_on(const fs::path& dir, const std::string& topic, int count, uint64_t bytes) {
    for (int p = 0; p < count; ++p) {
      json r = call_ok(
          {{"api", "AlterReplicaLogDirs"},
           {"dirs",
            json::array({{{"path", dir.string()},
                          {"partitions", json::array({{{"topic", topic}, {"partition", p}}})}}})}});
      EXPECT_EQ(r["results"][0]["error"], "REPLICA_NOT_AVAILABLE");
      r = call_ok({{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", {p}}});
      EXPECT_EQ(r["partitions"][0]["logDir"], dir.string());
      call_ok({{"api", "Produce"}, {"topic", topic}, {"partition", p}, {"bytes", bytes}});
    }
  }

  // Partition name -> the dirs it is current in, and the number of future replicas.
  std::map<std::string, std::vector<std::string>> placement(int* futures = nullptr) {
    std::map<std::string, std::vector<std::string>> out;
    if (futures) *futures = 0;
    const json dirs = log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}));
    for (const auto& d : dirs) {
      for (const auto& p : d["partitions"]) {
        if (p["isFuture"].get<bool>()) {
          if (futures) ++*futures;
          continue;
        }
        out[p["partition"].get<std::string>()].push_back(d["logDir"].get<std::string>());
      }
    }
    return out;
  }

  size_t partitions_in(const fs::path& dir) {
    const json d = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), dir);
    return d["partitions"].size();
  }

  bool wait_for(const std::function<bool()>& done, int timeout_ms = 60000) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (Clock::now() < deadline) {
      if (done()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    return done();
  }

  // Waits until the balancer has nothing in flight or planned and is not draining.
  bool wait_until_settled() {
    return wait_for([&] {
      const json s = call_ok({{"api", "DescribeBalance"}});
      return s["inFlight"].empty() && s["planned"] == 0 && s["draining"].is_null();
    });
  }

  // Every partition of `topic` is on disk in exactly one log dir, with exactly `size` bytes of the
  // payload pattern, and no -future or -delete directory is left.
  void expect_intact(const std::string& topic, int count, uint64_t size) {
    for (int p = 0; p < count; ++p) {
      const std::string name = layout::partition_dir(topic, p);
      std::vector<fs::path> copies;
      for (const fs::path& d : config_.log_dirs) {
        if (fs::exists(d / name)) copies.push_back(d / name);
      }
      ASSERT_EQ(copies.size(), 1u) << name << " is in " << copies.size() << " log dirs";
      EXPECT_EQ(test::filler_log_problem(copies[0], topic, p, size), "") << name;
    }
    for (const fs::path& d : config_.log_dirs) {
      for (const auto& e : fs::directory_iterator(d)) {
        const std::string n = e.path().filename().string();
        EXPECT_FALSE(n.ends_with("-future") || n.ends_with("-delete")) << e.path();
      }
    }
  }
};

// tmpfs needs root: skip, saying why, otherwise.
#define REQUIRE_TMPFS(c, mib)                                          \
  do {                                                                 \
    if (std::string why = mount_disks(c, mib); !why.empty()) {         \
      GTEST_SKIP() << "needs tmpfs disks of different sizes: " << why; \
    }                                                                  \
  } while (0)

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
  set_configs({{"replica.alter.log.dirs.io.max.bytes.per.second", "0"}});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  expect_intact("t", kPartitions, kPartitionBytes);
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
  // With the largest disk forbidden the spread cannot reach the threshold, and it says so.
  EXPECT_EQ(call_ok({{"api", "DescribeBalance"}})["state"], "stuck");
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
      const std::string topic = "k" + std::to_string(run++);
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
