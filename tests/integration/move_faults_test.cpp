// move_faults_test.cpp: replica moves against the faults a broker meets: a partition deleted while
// it is copied, a destination that fills up, a destination name taken by a stray entry (at run
// time and across kill -9), and two copies of a partition at startup. Each case checks which dirs
// stay online, where the bytes are, and what the operator is told.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <chrono>
#include <fstream>
#include <thread>

#include "byte_units.h"
#include "io/log_layout.h"
#include "reliability_support.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

using Clock = std::chrono::steady_clock;
// Kafka's default for replica.alter.log.dirs.io.max.bytes.per.second, Long.MAX_VALUE: no throttle.
constexpr uint64_t kNoThrottle = 9223372036854775807ull;

// The last line of a refused start's stderr: the one sentence it exits with (log lines come first).
std::string last_line(const std::string& text) {
  const size_t end = text.ends_with('\n') ? text.size() - 1 : text.size();
  const size_t start = text.rfind('\n', end == 0 ? 0 : end - 1);
  return text.substr(start == std::string::npos ? 0 : start + 1,
                     end - (start == std::string::npos ? 0 : start + 1));
}

class MoveFaultTest : public ServerFixture {
 protected:
  void TearDown() override {
    ::unsetenv("LDS_CRASH_POINT");
    if (running()) kill9();
    ServerFixture::TearDown();
  }

  fs::path disk(int i) const { return config_.log_dirs[static_cast<size_t>(i - 1)]; }

  json alter(const fs::path& dir, const std::string& topic, int partition) {
    json r = call_ok(
        {{"api", "AlterReplicaLogDirs"},
         {"dirs", json::array({{{"path", dir.string()},
                                {"partitions",
                                 json::array({{{"topic", topic}, {"partition", partition}}})}}})}});
    return r["results"][0];
  }
  json produce(const std::string& topic, int partition, uint64_t bytes) {
    return call({{"api", "Produce"}, {"topic", topic}, {"partition", partition}, {"bytes", bytes}});
  }
  void set_throttle(uint64_t bytes_per_second) {
    call_ok({{"api", "IncrementalAlterConfigs"},
             {"configs", json::array({{{"name", "replica.alter.log.dirs.io.max.bytes.per.second"},
                                       {"op", "SET"},
                                       {"value", std::to_string(bytes_per_second)}}})}});
  }

  // Waits until no move is running (no future replica listed); false on timeout.
  bool wait_for_no_move(int timeout_ms = 20000) {
    const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
    while (Clock::now() < deadline) {
      bool moving = false;
      for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
        for (const auto& p : d["partitions"]) moving = moving || p["isFuture"].get<bool>();
      }
      if (!moving) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  // Entries of every log dir whose names end with `suffix`.
  std::vector<fs::path> entries_ending(const std::string& suffix) const {
    std::vector<fs::path> out;
    for (const auto& d : config_.log_dirs) {
      for (const auto& e : fs::directory_iterator(d)) {
        if (e.path().filename().string().ends_with(suffix)) out.push_back(e.path());
      }
    }
    return out;
  }

  void expect_all_online() {
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      EXPECT_TRUE(d["error"].is_null()) << d["logDir"] << ": " << d["errorMessage"];
    }
  }

  // The failedMoves entries DescribeLogDirs lists under `dir`.
  json failed_moves(const fs::path& dir) {
    return dir_entry(call_ok({{"api", "DescribeLogDirs"}}), dir)["failedMoves"];
  }

  ProcessResult verify(const std::string& topic, int partition, const fs::path& dir) {
    const fs::path file = temp_ / "verify.json";
    std::ofstream(file) << json{{"version", 1},
                                {"partitions",
                                 {{{"topic", topic},
                                   {"partition", partition},
                                   {"replicas", {0}},
                                   {"log_dirs", {dir.string()}}}}}}
                               .dump();
    return run_host({"reassign", "--socket", socket_.string(), "--reassignment-json-file",
                     file.string(), "--verify"});
  }

  // --verify of the move of <topic>-0 to `dir`, which failed with `message`: Kafka's lines for it.
  void expect_verify_reports_failure(const std::string& topic, const fs::path& dir,
                                     const std::string& message) {
    const ProcessResult v = verify(topic, 0, dir);
    EXPECT_EQ(v.exit_code, 1);
    EXPECT_EQ(v.out, "Status of partition reassignment:\nReassignment of partition " + topic +
                         "-0 is completed.\nReassignment of replica " + topic +
                         "-0-0 failed: KAFKA_STORAGE_ERROR: " + message +
                         "\nClearing broker-level throttles on broker 0\nClearing topic-level "
                         "throttles on topic " +
                         topic + "\n");
  }

  // Something that is not part of a move at `at`: a directory, or a file.
  static void put_stray(const fs::path& at, bool as_dir) {
    if (as_dir) {
      fs::create_directories(at);
    } else {
      std::ofstream(at) << "not a partition";
    }
  }

  // Kafka's refusal to start with two copies of `tp`, at `first` and `second`.
  static std::string duplicate_copies(const std::string& tp, const fs::path& first,
                                      const fs::path& second) {
    return "lds-host: Duplicate log directories for " + tp + " are found in both " +
           first.string() + " and " + second.string() +
           ". It is likely because log directory failure happened while broker was replacing "
           "current replica with future replica. Recover broker from this failure by manually "
           "deleting one of the two directories for this partition. It is recommended to delete "
           "the partition in the log directory that is known to have failed recently.";
  }
};

TEST_F(MoveFaultTest, DeletingATopicWhileItsReplicaIsCopiedCancelsTheMoveAndNoDirGoesOffline) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "gone"}, {"partitions", {0}}});
  ASSERT_EQ(produce("gone", 0, 16 * kMiB)["error"], "NONE");
  // Another topic in the same dir, to check the dirs keep working afterwards.
  call_ok({{"api", "CreatePartitions"}, {"topic", "big"}, {"partitions", {0}}});
  set_throttle(2 * kMiB);
  ASSERT_EQ(alter(disk(3), "gone", 0)["error"], "NONE");
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // mid-copy
  ASSERT_FALSE(entries_ending("-future").empty()) << "the copy should still be running";
  EXPECT_EQ(call_ok({{"api", "DeleteTopic"}, {"topic", "gone"}})["deleted"], 1);
  ASSERT_TRUE(wait_for_no_move());
  for (int i = 0; i < 100 && !entries_ending("-future").empty(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  EXPECT_TRUE(entries_ending("-future").empty());
  EXPECT_TRUE(entries_ending("-delete").empty());
  EXPECT_TRUE(copies_of(config_.log_dirs, "gone-0").empty());
  expect_all_online();
  EXPECT_TRUE(failed_moves(disk(3)).empty());
  for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
    for (const auto& p : d["partitions"]) EXPECT_NE(p["partition"], "gone-0");
  }
  // The dirs keep working, the destination included.
  set_throttle(kNoThrottle);
  ASSERT_EQ(produce("big", 0, 2 * kMiB)["error"], "NONE");
  ASSERT_EQ(alter(disk(3), "big", 0)["error"], "NONE");
  ASSERT_TRUE(wait_for_no_move());
  EXPECT_EQ(partition_problem(disk(3) / "big-0", "big", 0, 2 * kMiB), "");
  restart();
  expect_all_online();
  EXPECT_TRUE(copies_of(config_.log_dirs, "gone-0").empty());
}

// A stray file, then a stray directory, at the destination's final name: the move fails alone
// before anything is renamed, the source stays served, and the failure is reported.
TEST_F(MoveFaultTest, AStrayEntryAtTheDestinationFailsThatMoveOnlyAndIsReported) {
  start(default_config(3));
  call_ok({{"api", "CreatePartitions"}, {"topic", "s"}, {"partitions", {0}}});
  ASSERT_EQ(produce("s", 0, 3 * kMiB + 5)["error"], "NONE");
  uint64_t size = 3 * kMiB + 5;
  for (int target : {2, 3}) {
    const bool as_dir = target == 3;
    SCOPED_TRACE(as_dir ? "stray directory" : "stray file");
    const fs::path stray = disk(target) / "s-0";
    put_stray(stray, as_dir);
    ASSERT_EQ(alter(disk(target), "s", 0)["error"], "NONE");
    ASSERT_TRUE(wait_for_no_move());
    const std::string message = "Cannot move s-0 to " + disk(target).string() + ": " +
                                stray.string() + " is already taken by " +
                                (as_dir ? "a directory" : "a file") +
                                " that is not part of the move; the move is cancelled.";
    EXPECT_EQ(
        failed_moves(disk(target)),
        json::array(
            {{{"partition", "s-0"}, {"error", "KAFKA_STORAGE_ERROR"}, {"message", message}}}));
    expect_verify_reports_failure("s", disk(target), message);
    expect_all_online();
    EXPECT_EQ(partition_problem(disk(1) / "s-0", "s", 0, size), "");
    EXPECT_TRUE(entries_ending("-future").empty());
    EXPECT_TRUE(fs::exists(stray)) << "the stray entry is the operator's to remove";
    ASSERT_EQ(produce("s", 0, 100)["error"], "NONE");  // the source still takes appends
    size += 100;
  }
  // A new move of it clears the failure; with the stray file gone, it reaches disk2.
  fs::remove(disk(2) / "s-0");
  ASSERT_EQ(alter(disk(2), "s", 0)["error"], "NONE");
  EXPECT_TRUE(failed_moves(disk(3)).empty());
  ASSERT_TRUE(wait_for_no_move());
  EXPECT_EQ(partition_problem(disk(2) / "s-0", "s", 0, size), "");

  // The stray directory left in disk3 is a second copy of s-0 at the next start: refused with
  // Kafka's sentence, nothing deleted.
  stop();
  ProcessResult r = run_host({"serve", "--config", config_file_.string()}, 20);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(last_line(r.err), duplicate_copies("s-0", disk(2) / "s-0", disk(3) / "s-0"));
  EXPECT_EQ(partition_problem(disk(2) / "s-0", "s", 0, size), "");
  EXPECT_TRUE(fs::is_directory(disk(3) / "s-0"));
  fs::remove(disk(3) / "s-0");
  start();
  expect_all_online();
  EXPECT_EQ(partition_problem(disk(2) / "s-0", "s", 0, size), "");
}

// kill -9 once the copy is marked complete, with a stray file (then a stray directory) at the
// final name: the restart refuses with one sentence naming the paths and deletes nothing; once the
// stray entry is gone, the restart finishes the move.
TEST_F(MoveFaultTest, KillNineWithTheDestinationBlockedRefusesTheRestartUntilTheStrayIsGone) {
  ServerConfig c = default_config(3);
  start(c);
  call_ok({{"api", "CreatePartitions"}, {"topic", "k"}, {"partitions", {0}}});
  ASSERT_EQ(produce("k", 0, 2 * kMiB + 3)["error"], "NONE");
  stop();
  int from = 1;
  for (int to : {3, 2}) {
    const bool as_dir = to == 2;
    SCOPED_TRACE(as_dir ? "stray directory" : "stray file");
    const fs::path source = disk(from) / "k-0", stray = disk(to) / "k-0";
    ::setenv("LDS_CRASH_POINT", "after_marker", 1);
    start(c);
    ::unsetenv("LDS_CRASH_POINT");
    put_stray(stray, as_dir);  // while the broker runs: one found at startup is a second copy
    try {
      alter(disk(to), "k", 0);
    } catch (const std::exception&) {
      // the crash point may already have been reached
    }
    for (int i = 0; i < 500 && !has_exited(server_pid()); ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    EXPECT_TRUE(has_exited(server_pid())) << "the crash point was not reached";
    kill9();
    const auto futures = entries_ending("-future");
    ASSERT_EQ(futures.size(), 1u);
    ASSERT_TRUE(fs::exists(futures[0] / layout::kMoveCompleteMarker));
    ProcessResult r = run_host({"serve", "--config", config_file_.string()}, 20);
    EXPECT_EQ(r.exit_code, 2) << r.err;
    if (as_dir) {
      // A directory at the final name is a second copy of k-0: Kafka's refusal.
      EXPECT_EQ(last_line(r.err),
                duplicate_copies("k-0", from < to ? source : stray, from < to ? stray : source));
    } else {
      EXPECT_EQ(last_line(r.err),
                "lds-host: The interrupted move of k-0 cannot be finished: " + stray.string() +
                    " is taken by a file that is not part of the move, so the complete copy " +
                    futures[0].string() + " cannot be renamed there; move " + stray.string() +
                    " out of the log directory and start again.");
    }
    EXPECT_TRUE(fs::exists(futures[0] / layout::kMoveCompleteMarker));
    EXPECT_TRUE(fs::exists(stray));
    EXPECT_EQ(partition_problem(source, "k", 0, 2 * kMiB + 3), "");
    fs::remove(stray);
    start(c);
    expect_all_online();
    EXPECT_EQ(partition_problem(disk(to) / "k-0", "k", 0, 2 * kMiB + 3), "");
    EXPECT_EQ(copies_of(config_.log_dirs, "k-0").size(), 1u);
    EXPECT_TRUE(entries_ending("-future").empty());
    EXPECT_TRUE(entries_ending("-delete").empty());
    stop();
    from = to;
  }
}

// t-0 (16 MiB) on disk1, an 8 MiB tmpfs disk2 and a 24 MiB tmpfs disk3, for moves that do not fit.
class FullDestinationTest : public MoveFaultTest {
 protected:
  // Up front: 16 MiB do not fit in the 8 MiB disk2, and the refusal says how much is free.
  void expect_refused_up_front() {
    const uint64_t usable2 =
        dir_entry(call_ok({{"api", "DescribeLogDirs"}}), disk(2))["usableBytes"];
    const json r = alter(disk(2), "t", 0);
    EXPECT_EQ(r["error"], "KAFKA_STORAGE_ERROR");
    char free_text[32];
    std::snprintf(free_text, sizeof free_text, "%.1f MiB",
                  static_cast<double>(usable2) / static_cast<double>(kMiB));
    EXPECT_EQ(r["message"], "Not enough space in " + disk(2).string() +
                                " to move t-0: 16.0 MiB needed, " + free_text + " free.");
    EXPECT_TRUE(entries_ending("-future").empty());
  }

  // Another partition, fill-0, created on disk3 (a remembered preference) with 2 MiB expected.
  void create_fill_on_disk3() {
    ASSERT_EQ(alter(disk(3), "fill", 0)["error"], "REPLICA_NOT_AVAILABLE");  // created there
    const json created = call_ok({{"api", "CreatePartitions"},
                                  {"topic", "fill"},
                                  {"partitions", {0}},
                                  {"expectedBytes", 2 * kMiB}});
    ASSERT_EQ(created["partitions"][0]["logDir"], disk(3).string());
  }

  // 12 MiB written into disk3 by another process: a Produce cannot do it, as the move's
  // reservation keeps that space from producers.
  fs::path fill_disk3() {
    const fs::path filler = disk(3) / "filler.bin";
    std::ofstream out(filler, std::ios::binary);
    const std::string mib(kMiB, 'x');
    for (int i = 0; i < 12 && out; ++i) out << mib;
    return filler;
  }

  // The move of t-0 to disk3 failed for space, alone, as DescribeLogDirs and --verify report it.
  void expect_failed_for_space() {
    const json failed = failed_moves(disk(3));
    ASSERT_EQ(failed.size(), 1u) << failed.dump();
    EXPECT_EQ(failed[0]["partition"], "t-0");
    EXPECT_EQ(failed[0]["error"], "KAFKA_STORAGE_ERROR");
    const std::string message = failed[0]["message"];
    const std::string prefix =
        "Not enough space in " + disk(3).string() + " to move t-0: 16.0 MiB needed, ";
    EXPECT_EQ(message.rfind(prefix, 0), 0u) << message;
    EXPECT_TRUE(message.ends_with(" MiB free.")) << message;
    expect_verify_reports_failure("t", disk(3), message);
  }
};

// Out of space is not a failed disk: a move that cannot fit is refused up front, and one that runs
// out because the destination filled meanwhile fails alone, its copy removed, the dir online.
TEST_F(FullDestinationTest, ADestinationThatFillsUpFailsTheMoveOnlyAndSaysHowMuchSpaceWasMissing) {
  ServerConfig c = default_config(3);
  if (std::string why = mount_tmpfs(c.log_dirs[1], 8); !why.empty()) GTEST_SKIP() << why;
  if (std::string why = mount_tmpfs(c.log_dirs[2], 24); !why.empty()) GTEST_SKIP() << why;
  start(c);
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});
  ASSERT_EQ(produce("t", 0, 16 * kMiB)["error"], "NONE");
  expect_refused_up_front();
  ASSERT_NO_FATAL_FAILURE(create_fill_on_disk3());
  const json reserved_before =
      dir_entry(call_ok({{"api", "DescribeLogDirs"}}), disk(3))["reservedBytes"];

  // Fits at the start (24 MiB), then disk3 fills while the copy runs.
  set_throttle(4 * kMiB);
  ASSERT_EQ(alter(disk(3), "t", 0)["error"], "NONE");
  const fs::path filler = fill_disk3();
  ASSERT_TRUE(wait_for_no_move());
  ASSERT_NO_FATAL_FAILURE(expect_failed_for_space());
  expect_all_online();
  EXPECT_TRUE(entries_ending("-future").empty());
  // The move's reservation is released: what is left is fill-0's.
  EXPECT_EQ(dir_entry(call_ok({{"api", "DescribeLogDirs"}}), disk(3))["reservedBytes"],
            reserved_before);
  EXPECT_EQ(partition_problem(disk(1) / "t-0", "t", 0, 16 * kMiB), "");
  // disk3's other partition keeps working, in the space the removed copy gave back.
  ASSERT_EQ(produce("fill", 0, kMiB)["error"], "NONE");
  EXPECT_EQ(partition_problem(disk(3) / "fill-0", "fill", 0, kMiB), "");
  fs::remove(filler);
  // A new move of t-0 clears the report (there is room again once fill-0 is gone).
  call_ok({{"api", "DeleteTopic"}, {"topic", "fill"}});
  set_throttle(kNoThrottle);
  ASSERT_EQ(alter(disk(3), "t", 0)["error"], "NONE");
  EXPECT_TRUE(failed_moves(disk(3)).empty());
  ASSERT_TRUE(wait_for_no_move());
  EXPECT_EQ(partition_problem(disk(3) / "t-0", "t", 0, 16 * kMiB), "");
  expect_all_online();
}

}  // namespace
}  // namespace lds::integration
