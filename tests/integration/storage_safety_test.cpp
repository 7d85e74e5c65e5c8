// storage_safety_test.cpp: a real `lds-host serve` refusing a Produce above
// socket.request.max.bytes or past the space left before writing a byte, `lds-host produce`
// splitting a large amount into requests, and a topic deleted while one of its log dirs is offline
// staying deleted after a restart, kill -9 included, and a full config folder: a config change or
// a pending deletion that cannot be saved beside the config. The tmpfs cases need root and are
// skipped, saying why, otherwise; the offline dir is a read-only tmpfs remount as root, and a dir
// without write permission otherwise.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "byte_units.h"
#include "reliability_support.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

class StorageSafetyTest : public ServerFixture {
 protected:
  json create(const std::string& topic, const std::vector<int32_t>& partitions) {
    return call_ok({{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", partitions}});
  }
  json produce(const std::string& topic, int32_t partition, uint64_t bytes) {
    return call({{"api", "Produce"}, {"topic", topic}, {"partition", partition}, {"bytes", bytes}});
  }
  // Every served partition as "<dir>/<name>" with its size, from DescribeLogDirs.
  std::vector<std::pair<std::string, int64_t>> served() {
    std::vector<std::pair<std::string, int64_t>> out;
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      for (const auto& p : d["partitions"]) {
        out.emplace_back(d["logDir"].get<std::string>() + "/" + p["partition"].get<std::string>(),
                         p["size"].get<int64_t>());
      }
    }
    return out;
  }
  fs::path pending_record() const { return config_file_.string() + ".pending-deletions"; }

  // Three log dirs (tmpfs of 8 MiB each as root), t-0, t-1, t-2 one per dir with 10,000 bytes.
  void start_with_topic_on_every_dir(ServerConfig& c) {
    c = default_config(3);
    for (const auto& d : c.log_dirs) {
      if (::geteuid() == 0) {
        const std::string why = mount_tmpfs(d, 8);
        ASSERT_EQ(why, "");
      }
    }
    ASSERT_NO_FATAL_FAILURE(start(c));
    json created = create("t", {0, 1, 2});
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_EQ(created["partitions"][i]["logDir"], c.log_dirs[i].string()) << created.dump();
      ASSERT_EQ(produce("t", static_cast<int32_t>(i), 10000).value("size", 0), 10000);
    }
  }
  // Makes `dir` refuse writes from now on: a read-only remount of its tmpfs as root, no write
  // permission otherwise (root ignores permissions).
  static void refuse_writes(const fs::path& dir) {
    if (::geteuid() == 0) {
      ASSERT_EQ(::mount("tmpfs", dir.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr), 0)
          << "mount -o remount,ro " << dir << ": " << std::strerror(errno);
    } else {
      ASSERT_EQ(::chmod(dir.c_str(), 0555), 0) << std::strerror(errno);
    }
  }
  static void allow_writes(const fs::path& dir) {
    if (::geteuid() == 0) {
      ASSERT_EQ(::mount("tmpfs", dir.c_str(), "tmpfs", MS_REMOUNT, nullptr), 0)
          << "mount -o remount,rw " << dir << ": " << std::strerror(errno);
    } else {
      ASSERT_EQ(::chmod(dir.c_str(), 0755), 0) << std::strerror(errno);
    }
  }
  // Deletes t with disk1 refusing writes: the answer lists t-0 as pending, nothing of t is served,
  // and the record is on disk.
  void delete_with_first_dir_failing(const ServerConfig& c) {
    ASSERT_NO_FATAL_FAILURE(refuse_writes(c.log_dirs[0]));
    json r = call_ok({{"api", "DeleteTopic"}, {"topic", "t"}});
    EXPECT_EQ(r["deleted"], 2) << r.dump();
    ASSERT_EQ(r["pending"].size(), 1u) << r.dump();
    EXPECT_EQ(r["pending"][0]["partition"], "t-0");
    EXPECT_EQ(r["pending"][0]["logDir"], c.log_dirs[0].string());
    const std::string why = ::geteuid() == 0 ? "Read-only file system" : "Permission denied";
    EXPECT_EQ(r["pending"][0]["reason"], "Log directory " + c.log_dirs[0].string() +
                                             " is offline: rename " +
                                             (c.log_dirs[0] / "t-0").string() + " failed: " + why)
        << r.dump();
    EXPECT_TRUE(served().empty());
    EXPECT_EQ(dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0])["error"],
              "KAFKA_STORAGE_ERROR");
    EXPECT_TRUE(fs::exists(pending_record()));
    EXPECT_TRUE(fs::exists(c.log_dirs[0] / "t-0")) << "the failing dir still holds the replica";
  }
};

TEST_F(StorageSafetyTest, AProduceAboveSocketRequestMaxBytesIsRefusedAtOnce) {
  ServerConfig c = default_config(1);
  ASSERT_NO_FATAL_FAILURE(start(c));
  create("t", {0});
  json r = produce("t", 0, 1ull << 62);
  EXPECT_EQ(r["error"], "INVALID_REQUEST") << r.dump();
  EXPECT_EQ(r["message"],
            "Invalid receive (size = 4611686018427387904 larger than 104857600): a Produce may "
            "carry at most socket.request.max.bytes (104857600) bytes; send more as several "
            "requests.");
  EXPECT_EQ(segment_bytes(c.log_dirs[0] / "t-0"), 0u);
  EXPECT_EQ(produce("t", 0, 4096).value("size", 0), 4096);
}

TEST_F(StorageSafetyTest, AProduceLargerThanTheSpaceLeftIsRefusedBeforeAByteIsWritten) {
  ServerConfig c = default_config(2);
  if (std::string why = mount_tmpfs(c.log_dirs[0], 16); !why.empty()) GTEST_SKIP() << why;
  c.extra_lines.push_back("socket.request.max.bytes = 2147483647");
  ASSERT_NO_FATAL_FAILURE(start(c));
  ASSERT_EQ(create("t", {0})["partitions"][0]["logDir"], c.log_dirs[0].string());
  ASSERT_EQ(produce("t", 0, kMiB).value("size", 0u), kMiB);

  json r = produce("t", 0, 1024 * kMiB);
  EXPECT_EQ(r["error"], "KAFKA_STORAGE_ERROR") << r.dump();
  const std::string message = r.value("message", "");
  const std::string head = "Not enough space in log directory " + c.log_dirs[0].string() +
                           " to append 1073741824 bytes to t-0: ";
  EXPECT_EQ(message.substr(0, head.size()), head) << message;
  const uint64_t available = std::stoull(message.substr(head.size()));
  EXPECT_LE(available, 15 * kMiB);
  EXPECT_GT(available, 14 * kMiB);
  EXPECT_TRUE(message.ends_with(" reserved for other partitions); nothing was appended."))
      << message;

  const fs::path dir = c.log_dirs[0] / "t-0";
  EXPECT_EQ(partition_problem(dir, "t", 0, kMiB), "");
  json d1 = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0]);
  EXPECT_TRUE(d1["error"].is_null()) << "a full request is not a failed disk: " << d1.dump();
  ASSERT_EQ(d1["partitions"].size(), 1u);
  EXPECT_EQ(d1["partitions"][0]["size"], kMiB);
  // What fits is still taken.
  EXPECT_EQ(produce("t", 0, 4 * kMiB).value("size", 0u), 5 * kMiB);
  EXPECT_EQ(partition_problem(dir, "t", 0, 5 * kMiB), "");
}

TEST_F(StorageSafetyTest, ProduceCommandSplitsIntoRequestsOfTheConfiguredCap) {
  ServerConfig c = default_config(1);
  c.extra_lines.push_back("socket.request.max.bytes = 1000");
  ASSERT_NO_FATAL_FAILURE(start(c));
  create("t", {0});
  json one = produce("t", 0, 1001);
  EXPECT_EQ(one["error"], "INVALID_REQUEST");
  EXPECT_NE(one["message"].get<std::string>().find("socket.request.max.bytes (1000)"),
            std::string::npos)
      << one.dump();

  ProcessResult r = run_host({"produce", "--config", config_file_.string(), "--topic", "t",
                              "--partition", "0", "--bytes", "4500"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out,
            "t-0: 4.4 KiB (4500 bytes) written in 5 requests of at most 1000 bytes\n"
            "t-0 is now 4.4 KiB (4500 bytes)\n");
  EXPECT_EQ(partition_problem(c.log_dirs[0] / "t-0", "t", 0, 4500), "");
  // One request: the partition and the bytes, named the same way.
  ProcessResult small = run_host({"produce", "--config", config_file_.string(), "--topic", "t",
                                  "--partition", "0", "--bytes", "500"});
  EXPECT_EQ(small.exit_code, 0) << small.err;
  EXPECT_EQ(small.out, "t-0: 500 B (500 bytes) written\nt-0 is now 4.9 KiB (5000 bytes)\n");

  // A refused part stops the command, saying what was written before it.
  ProcessResult refused = run_host({"produce", "--config", config_file_.string(), "--topic", "t",
                                    "--partition", "9", "--bytes", "2500"});
  EXPECT_EQ(refused.exit_code, 1);
  EXPECT_EQ(refused.err,
            "lds-host: UNKNOWN_TOPIC_OR_PARTITION: This server does not host this "
            "topic-partition.\nlds-host: request 1 of 3 was refused; 0 bytes were written before "
            "it.\n");
}

TEST_F(StorageSafetyTest, ProduceCommandStopsAtTheFirstRefusedPart) {
  ServerConfig c = default_config(1);
  if (std::string why = mount_tmpfs(c.log_dirs[0], 1); !why.empty()) GTEST_SKIP() << why;
  c.extra_lines.push_back("socket.request.max.bytes = 300000");
  ASSERT_NO_FATAL_FAILURE(start(c));
  create("t", {0});
  ProcessResult r = run_host({"produce", "--config", config_file_.string(), "--topic", "t",
                              "--partition", "0", "--bytes", "2000000"});
  EXPECT_EQ(r.exit_code, 1);
  const std::string head = "lds-host: KAFKA_STORAGE_ERROR: Not enough space in log directory " +
                           c.log_dirs[0].string() + " to append 300000 bytes to t-0: ";
  EXPECT_EQ(r.err.substr(0, head.size()), head) << r.err;
  EXPECT_TRUE(
      r.err.ends_with("nothing was appended.\nlds-host: request 4 of 7 was refused; "
                      "900000 bytes were written before it.\n"))
      << r.err;
  EXPECT_EQ(partition_problem(c.log_dirs[0] / "t-0", "t", 0, 900000), "");
}

TEST_F(StorageSafetyTest, ATopicDeletedWhileItsDirIsOfflineStaysDeletedAfterARestart) {
  ServerConfig c;
  ASSERT_NO_FATAL_FAILURE(start_with_topic_on_every_dir(c));
  ASSERT_NO_FATAL_FAILURE(delete_with_first_dir_failing(c));
  // A new t-0 starts empty in an online dir; the stale copy is not resurrected.
  json again = create("t", {0});
  const std::string new_dir = again["partitions"][0]["logDir"];
  EXPECT_NE(new_dir, c.log_dirs[0].string());
  EXPECT_EQ(produce("t", 0, 100).value("size", 0), 100);

  ASSERT_NO_FATAL_FAILURE(allow_writes(c.log_dirs[0]));
  ASSERT_NO_FATAL_FAILURE(restart());
  EXPECT_FALSE(fs::exists(c.log_dirs[0] / "t-0"));
  EXPECT_FALSE(fs::exists(pending_record())) << "the record outlived its deletion";
  EXPECT_EQ(served(), (std::vector<std::pair<std::string, int64_t>>{{new_dir + "/t-0", 100}}));
  EXPECT_TRUE(dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0])["error"].is_null());
}

TEST_F(StorageSafetyTest, KillNineRightAfterTheDeleteAnswerStillCompletesTheDeletion) {
  ServerConfig c;
  ASSERT_NO_FATAL_FAILURE(start_with_topic_on_every_dir(c));
  ASSERT_NO_FATAL_FAILURE(delete_with_first_dir_failing(c));
  kill9();
  ASSERT_NO_FATAL_FAILURE(allow_writes(c.log_dirs[0]));
  ASSERT_NO_FATAL_FAILURE(start());
  EXPECT_TRUE(served().empty()) << "the deleted topic came back";
  EXPECT_TRUE(copies_of(c.log_dirs, "t-0").empty());
  EXPECT_FALSE(fs::exists(pending_record()));
}

// The config folder on a tmpfs of its own, filled up once the broker runs: the dynamic file and
// the pending-deletions record, kept beside the config, can no longer be written.
class FullConfigFolderTest : public StorageSafetyTest {
 protected:
  void SetUp() override {
    StorageSafetyTest::SetUp();
    if (::geteuid() != 0) GTEST_SKIP() << "not root, so the config folder cannot be a tmpfs";
    folder_ = make_dir("conf");
    ASSERT_EQ(mount_tmpfs(folder_, 1), "");
    config_file_ = folder_ / "broker.toml";
  }
  // Fills the folder's tmpfs with one file (at most its 1 MiB).
  void fill_folder() {
    const std::string chunk(64 << 10, 'F');
    std::ofstream out(folder_ / "filler", std::ios::binary);
    while (out.write(chunk.data(), static_cast<std::streamsize>(chunk.size()))) {
    }
  }
  // The folder's entries other than the filler.
  std::set<std::string> folder_entries() const {
    std::set<std::string> out;
    for (const auto& e : fs::directory_iterator(folder_)) {
      if (e.path().filename() != "filler") out.insert(e.path().filename().string());
    }
    return out;
  }
  // Sets the strategy, expecting `error`; the answer.
  json set_strategy_expecting(const std::string& name, const std::string& error) {
    json r = call({{"api", "IncrementalAlterConfigs"},
                   {"configs", json::array({{{"name", "log.directory.select.strategy"},
                                             {"op", "SET"},
                                             {"value", name}}})}});
    EXPECT_EQ(r.value("error", ""), error) << r.dump();
    return r;
  }
  std::string active_strategy() {
    return call_ok({{"api", "DescribeLogDirs"}})["strategy"].value("name", "?");
  }
  fs::path folder_;
};

TEST_F(FullConfigFolderTest, AConfigChangeThatCannotBeSavedIsRefusedAndChangesNothing) {
  ServerConfig c = default_config(2);
  ASSERT_NO_FATAL_FAILURE(start(c));
  set_strategy_expecting("size", "NONE");
  const fs::path dynamic_file = config_file_.string() + ".dynamic";
  const std::string dynamic = read_file(dynamic_file);
  const auto entries = folder_entries();
  fill_folder();
  json r = set_strategy_expecting("cordon", "INVALID_CONFIG");
  EXPECT_EQ(r.value("message", ""), dynamic_file.string() +
                                        ": cannot write the dynamic config file: write failed: "
                                        "No space left on device.");
  EXPECT_EQ(active_strategy(), "size");
  EXPECT_EQ(read_file(dynamic_file), dynamic);
  EXPECT_EQ(folder_entries(), entries) << "a temp file was left behind";
  // With room again, the same change is taken.
  fs::remove(folder_ / "filler");
  set_strategy_expecting("cordon", "NONE");
  EXPECT_EQ(active_strategy(), "cordon");
}

// A replica in an offline dir is deleted only once its deletion is recorded: without room for the
// record, the delete fails saying so, and that replica stays hosted, to be served again once its
// dir is back, and deleted by the delete retried.
TEST_F(FullConfigFolderTest, ADeleteThatCannotRecordItsPendingPartFailsAndKeepsThatReplica) {
  ServerConfig c;
  ASSERT_NO_FATAL_FAILURE(start_with_topic_on_every_dir(c));
  const auto entries = folder_entries();
  fill_folder();
  ASSERT_NO_FATAL_FAILURE(refuse_writes(c.log_dirs[0]));
  json r = call({{"api", "DeleteTopic"}, {"topic", "t"}});
  EXPECT_EQ(r.value("error", ""), "KAFKA_STORAGE_ERROR") << r.dump();
  const std::string message = r.value("message", "");
  const std::string temp = (folder_ / ".broker.toml.pending-deletions.").string();
  EXPECT_TRUE(
      message.starts_with("Cannot record the pending deletion of t-0 in offline log "
                          "directory " +
                          c.log_dirs[0].string() + ": write " + temp))
      << message;
  EXPECT_TRUE(
      message.ends_with(": No space left on device; the replicas not deleted yet stay hosted."))
      << message;
  EXPECT_EQ(folder_entries(), entries) << "a temp file or a record was left behind";
  EXPECT_TRUE(fs::exists(c.log_dirs[0] / "t-0"));

  fs::remove(folder_ / "filler");
  ASSERT_NO_FATAL_FAILURE(allow_writes(c.log_dirs[0]));
  ASSERT_NO_FATAL_FAILURE(restart());
  EXPECT_EQ(
      served(),
      (std::vector<std::pair<std::string, int64_t>>{{c.log_dirs[0].string() + "/t-0", 10000}}));
  EXPECT_EQ(call_ok({{"api", "DeleteTopic"}, {"topic", "t"}})["deleted"], 1);
  EXPECT_TRUE(served().empty());
  EXPECT_FALSE(fs::exists(c.log_dirs[0] / "t-0"));
}

}  // namespace
}  // namespace lds::integration
