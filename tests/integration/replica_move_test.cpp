// replica_move_test.cpp: KIP-113 moves on a real server: results, byte-identical copies, cancel,
// throttle, the reassignment tool, and kill -9 at any point of a move.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <atomic>
#include <chrono>
#include <fstream>
#include <random>
#include <thread>

#include "admin/admin_client.h"
#include "byte_units.h"
#include "filler_log.h"
#include "io/log_layout.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

using Clock = std::chrono::steady_clock;

class ReplicaMoveTest : public ServerFixture {
 protected:
  fs::path disk(int i) const { return config_.log_dirs[static_cast<size_t>(i - 1)]; }

  json alter(const fs::path& dir, const std::string& topic, int partition) {
    json r = call_ok(
        {{"api", "AlterReplicaLogDirs"},
         {"dirs", json::array({{{"path", dir.string()},
                                {"partitions",
                                 json::array({{{"topic", topic}, {"partition", partition}}})}}})}});
    EXPECT_EQ(r["results"].size(), 1u);
    return r["results"][0];
  }

  void produce(const std::string& topic, int partition, uint64_t bytes) {
    call_ok({{"api", "Produce"}, {"topic", topic}, {"partition", partition}, {"bytes", bytes}});
  }

  void set_config(const std::string& name, const std::string& value) {
    call_ok({{"api", "IncrementalAlterConfigs"},
             {"configs", json::array({{{"name", name}, {"op", "SET"}, {"value", value}}})}});
  }

  // The dir a partition is current in, and the dir of its future replica ("" when none).
  std::pair<std::string, std::string> where(const std::string& tp) {
    std::pair<std::string, std::string> out;
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      for (const auto& p : d["partitions"]) {
        if (p["partition"] != tp) continue;
        (p["isFuture"].get<bool>() ? out.second : out.first) = d["logDir"].get<std::string>();
      }
    }
    return out;
  }

  // A reassignment file of `partitions` (Kafka's JSON), written to the temp folder as `name`.
  std::string write_plan(const std::string& name, const json& partitions) {
    const fs::path file = temp_ / name;
    std::ofstream(file) << json{{"version", 1}, {"partitions", partitions}}.dump();
    return file.string();
  }

  // lds-host reassign with the file `plan` and `args` (--wait, --verify, --timeout N).
  ProcessResult reassign(const std::string& plan, const std::vector<std::string>& args = {}) {
    std::vector<std::string> argv = {"reassign", "--socket", socket_.string(),
                                     "--reassignment-json-file", plan};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_host(argv);
  }

  bool wait_until_moved(const std::string& tp, int timeout_ms = 20000) {
    auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (Clock::now() < deadline) {
      if (where(tp).second.empty()) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Every partition directory on disk, and any -future or -delete leftovers.
  std::vector<std::string> entries_named(const std::string& suffix_or_name) {
    std::vector<std::string> found;
    for (const auto& d : config_.log_dirs) {
      if (!fs::is_directory(d)) continue;
      for (const auto& e : fs::directory_iterator(d)) {
        const std::string name = e.path().filename().string();
        if (name == suffix_or_name || (name.size() > suffix_or_name.size() &&
                                       name.compare(name.size() - suffix_or_name.size(),
                                                    suffix_or_name.size(), suffix_or_name) == 0)) {
          found.push_back(e.path().string());
        }
      }
    }
    return found;
  }

  // Asserts `tp` exists in exactly one directory with exactly `size` bytes of the payload pattern.
  void expect_exactly_once(const std::string& topic, int partition, uint64_t size) {
    const std::string name = layout::partition_dir(topic, partition);
    auto copies = entries_named(name);
    ASSERT_EQ(copies.size(), 1u) << name << " is in " << copies.size() << " directories";
    EXPECT_EQ(test::filler_log_problem(copies[0], topic, partition, size), "") << name;
  }

  void expect_no_leftovers() {
    EXPECT_TRUE(entries_named("-future").empty());
    EXPECT_TRUE(entries_named("-delete").empty());
  }
};

TEST_F(ReplicaMoveTest, ResultsFollowKafka) {
  ServerConfig c = default_config(4);
  fs::remove_all(c.log_dirs[3]);
  std::ofstream(c.log_dirs[3]) << "not a directory";  // disk4 starts offline
  start(c);
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});
  ASSERT_EQ(where("t-0").first, disk(1).string());

  json r = alter("/nowhere", "t", 0);
  EXPECT_EQ(r["error"], "LOG_DIR_NOT_FOUND");
  EXPECT_EQ(r["message"], "Log dir /nowhere is not found in the config.");
  EXPECT_EQ(alter("disk2", "t", 0)["error"], "LOG_DIR_NOT_FOUND");

  r = alter(disk(4), "t", 0);
  EXPECT_EQ(r["error"], "KAFKA_STORAGE_ERROR");
  EXPECT_EQ(r["message"], "Log directory " + disk(4).string() + " is offline");

  set_config("cordoned.log.dirs", disk(3).string());
  r = alter(disk(3), "t", 0);
  EXPECT_EQ(r["error"], "INVALID_REPLICA_ASSIGNMENT");
  EXPECT_EQ(r["message"], "Log directory " + disk(3).string() + " is cordoned");

  r = alter(disk(1), "t", 0);  // already there
  EXPECT_EQ(r["error"], "NONE");
  EXPECT_TRUE(entries_named("-future").empty());

  // Not hosted yet: refused, but remembered for its creation, then forgotten once used.
  r = alter(disk(2), "later", 5);
  EXPECT_EQ(r["error"], "REPLICA_NOT_AVAILABLE");
  json created = call_ok({{"api", "CreatePartitions"}, {"topic", "later"}, {"partitions", {5}}});
  EXPECT_EQ(created["partitions"][0]["logDir"], disk(2).string());
  EXPECT_EQ(created["partitions"][0]["strategy"], "preferred");
  call_ok({{"api", "DeleteTopic"}, {"topic", "later"}});
  created = call_ok({{"api", "CreatePartitions"}, {"topic", "later"}, {"partitions", {5}}});
  EXPECT_EQ(created["partitions"][0]["strategy"], "partition");

  // `any` clears a remembered preference too.
  EXPECT_EQ(alter(disk(2), "other", 0)["error"], "REPLICA_NOT_AVAILABLE");
  EXPECT_EQ(alter("any", "other", 0)["error"], "NONE");
  created = call_ok({{"api", "CreatePartitions"}, {"topic", "other"}, {"partitions", {0}}});
  EXPECT_EQ(created["partitions"][0]["strategy"], "partition");

  // A destination with `..` in it is canonicalised before it is compared.
  r = alter(disk(1) / ".." / disk(2).filename(), "t", 0);
  EXPECT_EQ(r["error"], "NONE");
  ASSERT_TRUE(wait_until_moved("t-0"));
  EXPECT_EQ(where("t-0").first, disk(2).string());
}

TEST_F(ReplicaMoveTest, LargeMoveWithProduceRunningIsByteIdenticalInTheDestinationOnly) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "big"}, {"partitions", {0}}});
  for (int i = 0; i < 8; ++i) produce("big", 0, 8 * kMiB);
  uint64_t total = 64 * kMiB;
  // Slow the copy down so that appends really land while it runs.
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(64 * kMiB));
  ASSERT_EQ(alter(disk(3), "big", 0)["error"], "NONE");
  // Appends while the copy runs (a bounded number: a producer that outruns the throttle would keep
  // the move from ever catching up, as in Kafka).
  int appends_during_copy = 0;
  for (int i = 0; i < 24 && !where("big-0").second.empty(); ++i) {
    produce("big", 0, 256 * 1024 + 3);
    total += 256 * 1024 + 3;
    ++appends_during_copy;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_GT(appends_during_copy, 0) << "the move finished before any append";
  ASSERT_TRUE(wait_until_moved("big-0"));
  EXPECT_EQ(where("big-0").first, disk(3).string());
  expect_exactly_once("big", 0, total);
  expect_no_leftovers();
  // Appends continue in the new place.
  produce("big", 0, 1000);
  expect_exactly_once("big", 0, total + 1000);
}

TEST_F(ReplicaMoveTest, AnyCancelsAMoveAndKeepsTheSource) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "c"}, {"partitions", {0}}});
  produce("c", 0, 16 * kMiB);
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(2 * kMiB));
  ASSERT_EQ(alter(disk(3), "c", 0)["error"], "NONE");
  EXPECT_EQ(where("c-0").second, disk(3).string());
  // While it runs, the future replica counts in its destination and shows its lag.
  json d3 = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), disk(3));
  ASSERT_EQ(d3["partitions"].size(), 1u);
  EXPECT_TRUE(d3["partitions"][0]["isFuture"].get<bool>());
  EXPECT_GT(d3["partitions"][0]["offsetLag"].get<uint64_t>(), 0u);

  EXPECT_EQ(alter("any", "c", 0)["error"], "NONE");
  EXPECT_EQ(where("c-0"), std::make_pair(disk(1).string(), std::string()));
  for (int i = 0; i < 100 && !entries_named("-future").empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  expect_no_leftovers();
  expect_exactly_once("c", 0, 16 * kMiB);
}

TEST_F(ReplicaMoveTest, ANewDestinationRestartsTheMove) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "r"}, {"partitions", {0}}});
  produce("r", 0, 16 * kMiB);
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(2 * kMiB));
  ASSERT_EQ(alter(disk(2), "r", 0)["error"], "NONE");
  ASSERT_EQ(alter(disk(3), "r", 0)["error"], "NONE");
  EXPECT_EQ(where("r-0").second, disk(3).string());
  // Kafka's default, Long.MAX_VALUE: no throttle.
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", "9223372036854775807");
  ASSERT_TRUE(wait_until_moved("r-0"));
  EXPECT_EQ(where("r-0").first, disk(3).string());
  expect_exactly_once("r", 0, 16 * kMiB);
  expect_no_leftovers();
}

// Kafka's quota (QuotaConfig.brokerQuotaConfigs, apache/kafka
// server-common/src/main/java/org/apache/kafka/server/config/QuotaConfig.java): a bound of 0 bytes
// per second lets no byte through. The move is accepted and shown as running, copies nothing, and
// finishes once the key is raised.
TEST_F(ReplicaMoveTest, AZeroThrottleHoldsTheMoveUntilItIsRaised) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "held"}, {"partitions", {0}}});
  // Less than the 4 MiB a move's catch-up copies at once: only the throttle can hold it.
  produce("held", 0, 2 * kMiB);
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", "0");
  ASSERT_EQ(alter(disk(3), "held", 0)["error"], "NONE");
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));
  json d3 = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), disk(3));
  ASSERT_EQ(d3["partitions"].size(), 1u) << d3.dump();
  EXPECT_TRUE(d3["partitions"][0]["isFuture"].get<bool>());
  EXPECT_EQ(d3["partitions"][0]["size"].get<uint64_t>(), 0u) << "a zero quota copied bytes";
  EXPECT_EQ(d3["partitions"][0]["offsetLag"].get<uint64_t>(), 2 * kMiB);
  uint64_t future_bytes = 0;
  for (const std::string& future : entries_named("-future")) {
    for (const auto& f : fs::recursive_directory_iterator(future)) {
      if (f.is_regular_file()) future_bytes += f.file_size();
    }
  }
  EXPECT_EQ(future_bytes, 0u);
  const fs::path file = temp_ / "held.json";
  std::ofstream(file) << json{{"version", 1},
                              {"partitions",
                               {{{"topic", "held"},
                                 {"partition", 0},
                                 {"replicas", {0}},
                                 {"log_dirs", {disk(3).string()}}}}}}
                             .dump();
  ProcessResult r = run_host({"reassign", "--socket", socket_.string(), "--reassignment-json-file",
                              file.string(), "--verify"});
  EXPECT_NE(r.out.find("Reassignment of replica held-0-0 is still in progress."), std::string::npos)
      << r.out;
  EXPECT_EQ(where("held-0"), std::make_pair(disk(1).string(), disk(3).string()));

  set_config("replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(64 * kMiB));
  ASSERT_TRUE(wait_until_moved("held-0"));
  EXPECT_EQ(where("held-0").first, disk(3).string());
  expect_exactly_once("held", 0, 2 * kMiB);
  expect_no_leftovers();
}

TEST_F(ReplicaMoveTest, ThrottleVisiblySlowsTheCopy) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "a"}, {"partitions", {0, 1}}});
  produce("a", 0, 24 * kMiB);
  produce("a", 1, 24 * kMiB);
  auto timed_move = [&](int partition, const fs::path& to) {
    auto start_time = Clock::now();
    EXPECT_EQ(alter(to, "a", partition)["error"], "NONE");
    EXPECT_TRUE(wait_until_moved("a-" + std::to_string(partition)));
    return std::chrono::duration<double>(Clock::now() - start_time).count();
  };
  const double fast = timed_move(0, disk(3));
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(12 * kMiB));
  const double slow = timed_move(1, disk(3));
  // 24 MiB at 12 MiB/s is 2 s; the bound is loose because the machine is shared.
  EXPECT_GT(slow, 1.2) << "throttled move took " << slow << " s";
  EXPECT_GT(slow, 3 * fast) << "unthrottled " << fast << " s, throttled " << slow << " s";
}

// The throttle covers every byte of a move, the catch-up's too (Kafka's intra-broker quota does):
// replicas smaller than the few MiB a catch-up copies with appends paused, which used to move
// unthrottled, take at least the time the throttle gives their bytes, and arrive whole.
TEST_F(ReplicaMoveTest, TheThrottleCoversEveryByteOfSmallReplicas) {
  start(default_config(3));
  // All three in disk1 (a remembered KIP-113 preference), so that each one moves.
  for (int p = 0; p < 3; ++p)
    EXPECT_EQ(alter(disk(1), "small", p)["error"], "REPLICA_NOT_AVAILABLE");
  call_ok({{"api", "CreatePartitions"}, {"topic", "small"}, {"partitions", {0, 1, 2}}});
  for (int p = 0; p < 3; ++p) {
    produce("small", p, kMiB);
    ASSERT_EQ(where("small-" + std::to_string(p)).first, disk(1).string());
  }
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(2 * kMiB));
  const auto start_time = Clock::now();
  for (int p = 0; p < 3; ++p) ASSERT_EQ(alter(disk(3), "small", p)["error"], "NONE");
  for (int p = 0; p < 3; ++p) ASSERT_TRUE(wait_until_moved("small-" + std::to_string(p)));
  const double took = std::chrono::duration<double>(Clock::now() - start_time).count();
  // 3 MiB at 2 MiB/s: 1.5 s at least (a lower bound only; a busy machine takes longer).
  EXPECT_GE(took, 1.4) << "3 x 1 MiB moved in " << took << " s under 2 MiB/s";
  for (int p = 0; p < 3; ++p) {
    EXPECT_EQ(where("small-" + std::to_string(p)).first, disk(3).string());
    expect_exactly_once("small", p, kMiB);
  }
  expect_no_leftovers();
}

// A reassignment file Kafka's tool refuses, and its sentence (the file's path before it).
struct BadReassignment {
  std::string json;
  std::string message;
};

std::vector<BadReassignment> bad_reassignments() {
  return {
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[1,2],"log_dirs":["any"]}]})",
       "Size of replicas list [1, 2] is different from size of log dirs list [any] for partition "
       "foo-0"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0],"log_dirs":["data/d1"]}]})",
       "Log dir data/d1 of partition foo-0 must be \"any\" or an absolute path starting with /"},
      {R"({"version":2,"partitions":[]})", "Not supported version field value 2"},
      {R"({"version":1,"partitions":[]})", "Partition reassignment list cannot be empty"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0}]})",
       "No such field exists: `replicas`"},
      {R"({"version":1)", "The reassignment file is not valid JSON."},
      // Kafka's decoding and checks (ReassignPartitionsCommand, DecodeJson): numbers outside
      // int32 are refused, never wrapped to another partition or broker.
      {R"({"version":1,"partitions":[{"topic":"rr","partition":4294967296,"replicas":[0]}]})",
       "Expected `Integer` value, received 4294967296"},
      {R"({"version":1,"partitions":[{"topic":"rr","partition":-2147483649,"replicas":[0]}]})",
       "Expected `Integer` value, received -2147483649"},
      {R"({"version":1,"partitions":[{"topic":"rr","partition":0,"replicas":[4294967296]}]})",
       "Expected `Integer` value, received 4294967296"},
      {R"({"version":1,"partitions":[{"topic":"rr","partition":1.5,"replicas":[0]}]})",
       "Expected `Integer` value, received 1.5"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":0}]})",
       "Expected `JSON array` value, received 0"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0],"log_dirs":0}]})",
       "Expected `JSON array` value, received 0"},
      {R"({"version":1})", "Partition reassignment list cannot be empty"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[]}]})",
       "Partition replica list cannot be empty"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0]},)"
       R"({"topic":"foo","partition":0,"replicas":[0]}]})",
       "Partition reassignment contains duplicate topic partitions: foo-0"},
      {R"({"version":1,"partitions":[{"topic":"foo","partition":0,"replicas":[0,0]},)"
       R"({"topic":"foo","partition":1,"replicas":[1,2,1]}]})",
       "Partition replica lists may not contain duplicate entries: foo-0 contains multiple "
       "entries for 0. foo-1 contains multiple entries for 1"},
  };
}

TEST_F(ReplicaMoveTest, ReassignToolValidatesTheFileWithKafkasMessages) {
  start(default_config(3));
  int i = 0;
  for (const BadReassignment& c : bad_reassignments()) {
    const fs::path file = temp_ / ("bad" + std::to_string(i++) + ".json");
    std::ofstream(file) << c.json;
    ProcessResult r = run_host(
        {"reassign", "--socket", socket_.string(), "--reassignment-json-file", file.string()});
    EXPECT_EQ(r.exit_code, 2) << c.json;
    EXPECT_EQ(r.err, "lds-host: " + file.string() + ": " + c.message + "\n") << c.json;
  }
}

TEST_F(ReplicaMoveTest, ReassignToolMovesAndWaits) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1, 2}}});
  produce("t", 0, 8 * kMiB);
  // Broker 0 is second in the replica list; only its entry applies, and `any` is skipped.
  const std::string moves = write_plan(
      "moves.json", {{{"topic", "t"},
                      {"partition", 0},
                      {"replicas", {3, 0}},
                      {"log_dirs", {"any", disk(3).string()}}},
                     {{"topic", "t"}, {"partition", 1}, {"replicas", {0}}, {"log_dirs", {"any"}}}});
  ProcessResult r = reassign(moves, {"--wait"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Successfully started moving log directory to " + disk(3).string() +
                       " for replica t-0 with broker 0 \n"),
            std::string::npos)
      << r.out;
  // The progress bar is drawn on a terminal only (stderr): a script reads Kafka's lines alone.
  EXPECT_EQ(r.out.find('%'), std::string::npos) << r.out;
  EXPECT_EQ(r.err.find('%'), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Reassignment of replica t-0-0 completed successfully.\n"),
            std::string::npos)
      << r.out;

  // The finished move named with a trailing slash, and through a symlink: still completed.
  const fs::path link = temp_ / "disk3-link";
  fs::create_directory_symlink(disk(3), link);
  for (const std::string& dir : {disk(3).string() + "/", link.string(), link.string() + "/"}) {
    const std::string plan =
        write_plan("spelled.json",
                   {{{"topic", "t"}, {"partition", 0}, {"replicas", {0}}, {"log_dirs", {dir}}}});
    EXPECT_EQ(reassign(plan, {"--verify"}).out,
              "Status of partition reassignment:\n"
              "Reassignment of partition t-0 is completed.\n"
              "Reassignment of replica t-0-0 completed successfully.\n"
              "Clearing broker-level throttles on broker 0\n"
              "Clearing topic-level throttles on topic t\n")
        << dir;
  }
}

// --verify, each of Kafka's states (tools/src/main/java/org/apache/kafka/tools/reassign/
// ReassignPartitionsCommand.java): partitionReassignmentStatesToString's line per partition
// ("Reassignment of partition %s is completed.", or for a partition no broker hosts "There is no
// active reassignment of partition " + tp + ", but replica set is " + current + " rather than " +
// target + "." with an empty current set), then replicaMoveStatesToString's per replica:
// CompletedMoveState, ActiveMoveState ("is still in progress.", or "Partition " + tp + " on
// broker " + id + " is being moved to log dir " + future + " instead of " + target + "."),
// CancelledMoveState ("is not being moved from log dir " + current + " to " + target + ".") and
// MissingReplicaMoveState ("cannot be found in any live log directory on broker " + id + ".").
// While a move of the file runs, no throttle is cleared.
TEST_F(ReplicaMoveTest, ReassignVerifyNamesEachOfKafkasStates) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1, 2}}});
  ASSERT_EQ(where("t-2").first, disk(3).string());
  ASSERT_EQ(alter(disk(3), "t", 0)["error"], "NONE");
  ASSERT_TRUE(wait_until_moved("t-0"));
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(kMiB));
  produce("t", 1, 8 * kMiB);
  ASSERT_EQ(alter(disk(3), "t", 1)["error"], "NONE");  // a slow move in progress
  const std::string verify = write_plan(
      "verify.json",
      {{{"topic", "t"}, {"partition", 0}, {"replicas", {0}}, {"log_dirs", {disk(3).string()}}},
       {{"topic", "t"}, {"partition", 1}, {"replicas", {0}}, {"log_dirs", {disk(3).string()}}},
       {{"topic", "t"}, {"partition", 2}, {"replicas", {0}}, {"log_dirs", {disk(1).string()}}},
       {{"topic", "t"}, {"partition", 9}, {"replicas", {0}}, {"log_dirs", {disk(1).string()}}}});
  ProcessResult r = reassign(verify, {"--verify"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "Status of partition reassignment:\n"
            "Reassignment of partition t-0 is completed.\n"
            "Reassignment of partition t-1 is completed.\n"
            "Reassignment of partition t-2 is completed.\n"
            "There is no active reassignment of partition t-9, but replica set is  rather than "
            "0.\n"
            "Reassignment of replica t-0-0 completed successfully.\n"
            "Reassignment of replica t-1-0 is still in progress.\n"
            "Partition t-2 on broker 0 is not being moved from log dir " +
                disk(3).string() + " to " + disk(1).string() +
                ".\n"
                "Partition t-9 cannot be found in any live log directory on broker 0.\n");
  const std::string elsewhere = write_plan(
      "elsewhere.json",
      {{{"topic", "t"}, {"partition", 1}, {"replicas", {0}}, {"log_dirs", {disk(1).string()}}}});
  EXPECT_EQ(reassign(elsewhere, {"--verify"}).out,
            "Status of partition reassignment:\nReassignment of partition t-1 is completed.\n"
            "Partition t-1 on broker 0 is being moved to log dir " +
                disk(3).string() + " instead of " + disk(1).string() + ".\n");
}

// A replica this broker never gets: retried every 100 ms, then Kafka's timeout message.
TEST_F(ReplicaMoveTest, ReassignTimesOutOnAReplicaNeverCreated) {
  start(default_config(3));
  const std::string missing = write_plan("missing.json", {{{"topic", "nothere"},
                                                           {"partition", 0},
                                                           {"replicas", {0}},
                                                           {"log_dirs", {disk(2).string()}}}});
  const auto t0 = Clock::now();
  const ProcessResult r = reassign(missing, {"--timeout", "400"});
  EXPECT_GE(std::chrono::duration<double>(Clock::now() - t0).count(), 0.4);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "lds-host: Timed out before log directory move could be started for: nothere-0-0\n");
}

TEST_F(ReplicaMoveTest, ReassignRetriesUntilTheReplicaIsCreated) {
  start(default_config(3));
  const std::string plan = write_plan(
      "later.json",
      {{{"topic", "late"}, {"partition", 0}, {"replicas", {0}}, {"log_dirs", {disk(3).string()}}}});
  std::thread creator([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    call_ok({{"api", "CreatePartitions"}, {"topic", "late"}, {"partitions", {0}}});
  });
  const ProcessResult r = reassign(plan, {"--timeout", "5000"});
  creator.join();
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Successfully started moving log directory to " + disk(3).string() +
                       " for replica late-0 with broker 0 \n"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(where("late-0").first, disk(3).string());  // created there, from the remembered dir
}

// Moves of m-0 and m-1, each killed at a random moment or at an injected point between the
// protocol's steps (LDS_CRASH_POINT).
class MoveCrashTest : public ReplicaMoveTest {
 protected:
  static constexpr const char* kPoints[] = {"",
                                            "",
                                            "during_copy",
                                            "after_marker",
                                            "after_future_renamed",
                                            "after_source_renamed",
                                            "after_marker_removed"};

  // The point run `run` stops at ("": a random moment): every point twice first, then at random.
  std::string point_of(int run) {
    const int fixed = 2 * static_cast<int>(std::size(kPoints));
    return kPoints[run < fixed ? run % std::size(kPoints) : rng_() % std::size(kPoints)];
  }

  // Starts the server with `point` armed.
  void start_at(const ServerConfig& c, const std::string& point) {
    if (point.empty()) {
      ::unsetenv("LDS_CRASH_POINT");
    } else {
      ::setenv("LDS_CRASH_POINT", point.c_str(), 1);
    }
    start(c);
    ::unsetenv("LDS_CRASH_POINT");
  }

  // Asks to move both partitions to another dir each, chosen at random. An injected point may
  // already have killed the server: a request may then fail.
  void move_both_elsewhere() {
    for (int p = 0; p < 2; ++p) {
      const auto copies = entries_named(layout::partition_dir("m", p));
      ASSERT_EQ(copies.size(), 1u);
      fs::path to = disk(1 + static_cast<int>(rng_() % 3));
      if (to == fs::path(copies[0]).parent_path()) to = disk(to == disk(3) ? 1 : 3);
      try {
        AdminClient client(socket_);
        client.call(
            json{{"api", "AlterReplicaLogDirs"},
                 {"dirs",
                  {{{"path", to.string()}, {"partitions", {{{"topic", "m"}, {"partition", p}}}}}}}}
                .dump());
      } catch (const std::exception&) {
        // the injected crash point was reached
      }
    }
  }

  // A random moment passes, or, with an injected point (reached by every move), the server kills
  // itself there.
  void wait_for(const std::string& point) {
    if (point.empty()) {
      std::this_thread::sleep_for(std::chrono::milliseconds(rng_() % 200));
      return;
    }
    bool died = false;
    for (int i = 0; i < 500 && !died; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
      died = has_exited(server_pid());
    }
    EXPECT_TRUE(died) << "the server never reached crash point " << point;
  }

 private:
  std::mt19937 rng_{20261130};
};

// kill -9 at a random moment of a move, or at an injected point between the protocol's steps;
// after a restart every partition exists exactly once, complete, and nothing is left over. Each
// point is reached twice, then random moments fill the runs: 50, or 16 in a sanitizer build
// (the torture test adds kill -9 at random moments of moves in the Release build).
TEST_F(MoveCrashTest, KillNineDuringMovesNeverLosesOrDuplicatesAPartition) {
#ifdef LDS_SANITIZED_BUILD
  constexpr int kDefaultRuns = 16;
#else
  constexpr int kDefaultRuns = 50;
#endif
  const char* env = std::getenv("LDS_CRASH_RUNS");
  const int runs = env ? std::atoi(env) : kDefaultRuns;
  const ServerConfig c = default_config(3);
  const std::vector<uint64_t> sizes = {6 * kMiB, 3 * kMiB + 17};
  for (int run = 0; run < runs; ++run) {
    SCOPED_TRACE("run " + std::to_string(run));
    const std::string point = point_of(run);
    start_at(c, point);
    if (run == 0) {
      call_ok({{"api", "CreatePartitions"}, {"topic", "m"}, {"partitions", {0, 1}}});
      produce("m", 0, sizes[0]);
      produce("m", 1, sizes[1]);
      set_config("replica.alter.log.dirs.io.max.bytes.per.second", std::to_string(48 * kMiB));
    }
    ASSERT_NO_FATAL_FAILURE(move_both_elsewhere());
    wait_for(point);
    kill9();
    start(c);
    ASSERT_EQ(call_ok({{"api", "DescribeLogDirs"}})["error"], "NONE");
    expect_exactly_once("m", 0, sizes[0]);
    expect_exactly_once("m", 1, sizes[1]);
    expect_no_leftovers();
    kill9();
  }
}

// Kafka's longest legal topic (249 characters): its -future and -delete names are capped at 255
// bytes as Kafka's LocalLog.logDirNameWithSuffixCappedLength caps them, so it moves, is deleted,
// and stays deleted after a restart, with every dir online.
TEST_F(ReplicaMoveTest, A249CharacterTopicIsMovedDeletedAndStaysGoneAfterARestart) {
  start(default_config(3));
  const std::string topic = std::string(231, 'l') + "-long.topic_name-0";
  ASSERT_EQ(topic.size(), 249u);
  json created = call_ok({{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", {0}}});
  const fs::path from = created["partitions"][0]["logDir"].get<std::string>();
  const fs::path to = from == disk(3) ? disk(1) : disk(3);
  produce(topic, 0, 2 * kMiB);
  const std::string tp = layout::partition_dir(topic, 0);
  EXPECT_EQ(alter(to, topic, 0)["error"], "NONE");
  ASSERT_TRUE(wait_until_moved(tp));
  EXPECT_EQ(where(tp).first, to.string());
  expect_exactly_once(topic, 0, 2 * kMiB);
  expect_no_leftovers();
  auto expect_all_online = [&] {
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      EXPECT_TRUE(d["error"].is_null()) << d.dump();
      EXPECT_TRUE(d["failedMoves"].empty()) << d.dump();
    }
  };
  expect_all_online();
  call_ok({{"api", "DeleteTopic"}, {"topic", topic}});
  EXPECT_TRUE(entries_named(tp).empty());
  expect_no_leftovers();
  expect_all_online();
  restart();
  for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
    EXPECT_TRUE(d["partitions"].empty()) << "the deleted topic came back: " << d.dump();
  }
  EXPECT_TRUE(entries_named(tp).empty());
  expect_no_leftovers();
  expect_all_online();
}

// The bytes reserved for a partition placed with an expected size are the same after a restart,
// and after a move they are reserved in the new dir, across a restart too.
TEST_F(ReplicaMoveTest, ReservationsSurviveARestartAndFollowAMove) {
  start(default_config(3));
  json created = call_ok({{"api", "CreatePartitions"},
                          {"topic", "r"},
                          {"partitions", {0}},
                          {"expectedBytes", 32 * kMiB}});
  const fs::path from = created["partitions"][0]["logDir"].get<std::string>();
  const fs::path to = from == disk(3) ? disk(1) : disk(3);
  produce("r", 0, kMiB);
  auto reserved = [&](const fs::path& dir) {
    return dir_entry(call_ok({{"api", "DescribeLogDirs"}}), dir)["reservedBytes"].get<uint64_t>();
  };
  ASSERT_EQ(reserved(from), 31 * kMiB);
  restart();
  EXPECT_EQ(reserved(from), 31 * kMiB) << "after a restart";
  EXPECT_EQ(alter(to, "r", 0)["error"], "NONE");
  ASSERT_TRUE(wait_until_moved("r-0"));
  EXPECT_EQ(reserved(from), 0u);
  EXPECT_EQ(reserved(to), 31 * kMiB) << "after the move";
  restart();
  EXPECT_EQ(reserved(from), 0u);
  EXPECT_EQ(reserved(to), 31 * kMiB) << "after the move and a restart";
  expect_exactly_once("r", 0, kMiB);
}

}  // namespace
}  // namespace lds::integration
