// reliability_disks_test.cpp: a real `lds-host serve` on tmpfs log dirs that fail underneath it:
// remounted read-only, lazily unmounted, filled to ENOSPC. Needs root for the
// mounts; skipped, saying so, otherwise.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "byte_units.h"
#include "io/log_layout.h"
#include "reliability_support.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

class DiskFaultTest : public ServerFixture {
 protected:
  void TearDown() override {
    if (running()) stop();
    for (auto it = mounted_.rbegin(); it != mounted_.rend(); ++it) {
      if (is_mounted(*it) && ::umount2(it->c_str(), 0) != 0 &&
          ::umount2(it->c_str(), MNT_DETACH) != 0) {
        ADD_FAILURE() << "cannot unmount " << *it << ": " << std::strerror(errno);
      }
    }
    ServerFixture::TearDown();
  }

  // Mounts a tmpfs of `mib` MiB on each log dir of a fresh config. Returns why not, or "".
  std::string mount_disks(ServerConfig& config, const std::vector<uint64_t>& mib) {
    if (::geteuid() != 0) return "not running as root, so tmpfs log dirs cannot be mounted";
    config = default_config(mib.size());
    for (size_t i = 0; i < mib.size(); ++i) {
      const fs::path& dir = config.log_dirs[i];
      fs::create_directories(dir);
      const std::string options = "size=" + std::to_string(mib[i]) + "m,mode=0755";
      if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, options.c_str()) != 0) {
        return "mount -t tmpfs -o " + options + " " + dir.string() +
               " failed: " + std::strerror(errno);
      }
      mounted_.push_back(dir);
    }
    return "";
  }

  static bool is_mounted(const fs::path& dir) {
    std::ifstream in("/proc/self/mountinfo");
    std::string line;
    while (std::getline(in, line)) {
      std::istringstream fields(line);
      std::string field;
      for (int i = 0; i < 5 && fields >> field; ++i) {
      }
      if (field == dir.string()) return true;
    }
    return false;
  }

  static void remount_read_only(const fs::path& dir) {
    ASSERT_EQ(::mount("tmpfs", dir.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr), 0)
        << "mount -o remount,ro " << dir << ": " << std::strerror(errno);
  }

  nlohmann::json create(const std::string& topic, const std::vector<int32_t>& partitions) {
    return call_ok({{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", partitions}});
  }
  nlohmann::json produce(const std::string& topic, int32_t partition, uint64_t bytes) {
    return call({{"api", "Produce"}, {"topic", topic}, {"partition", partition}, {"bytes", bytes}});
  }
  // AlterReplicaLogDirs of topic-partition to `dir`: the partition's result.
  nlohmann::json alter(const fs::path& dir, const std::string& topic, int32_t partition) {
    const nlohmann::json r = call_ok(
        {{"api", "AlterReplicaLogDirs"},
         {"dirs", nlohmann::json::array(
                      {{{"path", dir.string()},
                        {"partitions", nlohmann::json::array(
                                           {{{"topic", topic}, {"partition", partition}}})}}})}});
    return r.contains("results") ? r["results"][0] : r;
  }
  std::string placed_in(const nlohmann::json& created, size_t i = 0) {
    return created["partitions"][i].value("logDir", "");
  }
  // The size DescribeLogDirs reports for `name`, or -1 when no online dir lists it.
  int64_t reported_size(const std::string& name) {
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      for (const auto& p : d["partitions"]) {
        if (p["partition"] == name) return p["size"].get<int64_t>();
      }
    }
    return -1;
  }

  // Places a-0, a-1, a-2 (one per dir) with 10,000 bytes each.
  void place_one_partition_per_dir(const ServerConfig& c) {
    nlohmann::json created = create("a", {0, 1, 2});
    for (size_t i = 0; i < 3; ++i) {
      ASSERT_EQ(placed_in(created, i), c.log_dirs[i].string()) << created.dump();
      ASSERT_EQ(produce("a", static_cast<int32_t>(i), 10000).value("size", 0), 10000);
    }
  }

  // The other dirs' partitions are untouched and still take appends.
  void expect_others_untouched(const ServerConfig& c) {
    for (int32_t p : {1, 2}) {
      const fs::path dir = c.log_dirs[static_cast<size_t>(p)] / layout::partition_dir("a", p);
      EXPECT_EQ(partition_problem(dir, "a", p, 10000), "");
      EXPECT_EQ(produce("a", p, 5000).value("size", 0), 15000);
      EXPECT_EQ(partition_problem(dir, "a", p, 15000), "");
    }
  }

  std::vector<fs::path> mounted_;
};

TEST_F(DiskFaultTest, AReadOnlyRemountTakesTheDirOfflineAtTheFirstIoError) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {16, 16, 16}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(start(c));
  ASSERT_NO_FATAL_FAILURE(place_one_partition_per_dir(c));
  remount_read_only(c.log_dirs[0]);
  EXPECT_TRUE(dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0])["error"].is_null())
      << "offline before any I/O failed";

  // The first write there (disk1 is first in line for b-0) fails: disk1 goes offline and b-0 is
  // created in the next directory.
  EXPECT_EQ(placed_in(create("b", {0})), c.log_dirs[1].string());
  nlohmann::json d1 = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0]);
  EXPECT_EQ(d1["error"], "KAFKA_STORAGE_ERROR") << d1.dump();
  EXPECT_NE(d1["errorMessage"].get<std::string>().find("Read-only file system"), std::string::npos)
      << d1.dump();
  nlohmann::json refused = produce("a", 0, 100);
  EXPECT_EQ(refused["error"], "KAFKA_STORAGE_ERROR");
  EXPECT_EQ(refused["message"], "Log directory " + c.log_dirs[0].string() + " is offline");

  nlohmann::json more = create("b", {1, 2, 3, 4, 5, 6});
  for (const auto& p : more["partitions"]) EXPECT_NE(p["logDir"], c.log_dirs[0].string());
  ASSERT_NO_FATAL_FAILURE(expect_others_untouched(c));
  // What was on the read-only disk is still there, unchanged.
  EXPECT_EQ(partition_problem(c.log_dirs[0] / "a-0", "a", 0, 10000), "");

  // a-0 is still this broker's, on a dir that is offline: DescribeLogDirs names it apart, and
  // reassign --verify says so in Kafka's words (ReassignPartitionsCommand.
  // replicaMoveStatesToString, MissingLogDirMoveState: "Partition " + tp + " is not found in any
  // live log dir on broker " + id + ". There is likely an offline log directory on the broker.").
  d1 = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0]);
  EXPECT_EQ(d1["unreadablePartitions"], nlohmann::json::array({"a-0"})) << d1.dump();
  const fs::path file = temp_ / "verify.json";
  std::ofstream(file) << nlohmann::json{{"version", 1},
                                        {"partitions",
                                         {{{"topic", "a"},
                                           {"partition", 0},
                                           {"replicas", {0}},
                                           {"log_dirs", {c.log_dirs[0].string()}}}}}}
                             .dump();
  const ProcessResult r =
      run_host({"reassign", "--socket", socket_.string(), "--reassignment-json-file", file.string(),
                "--verify", "--preserve-throttles"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out,
            "Status of partition reassignment:\n"
            "Reassignment of partition a-0 is completed.\n"
            "Partition a-0 is not found in any live log dir on broker 0. There is likely an "
            "offline log directory on the broker.\n");
}

TEST_F(DiskFaultTest, AnUnmountedDirGoesOfflineAtTheFirstCreationAndTakesNothing) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {16, 16, 16}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(start(c));
  ASSERT_NO_FATAL_FAILURE(place_one_partition_per_dir(c));
  ASSERT_EQ(::umount2(c.log_dirs[0].c_str(), MNT_DETACH), 0) << std::strerror(errno);

  // The path is now the empty folder under the mount point: nothing may be created there.
  EXPECT_EQ(placed_in(create("b", {0})), c.log_dirs[1].string());
  nlohmann::json d1 = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0]);
  EXPECT_EQ(d1["error"], "KAFKA_STORAGE_ERROR") << d1.dump();
  EXPECT_NE(d1["errorMessage"].get<std::string>().find("meta.properties"), std::string::npos)
      << d1.dump();
  EXPECT_TRUE(fs::is_empty(c.log_dirs[0])) << "something was written to the bare mount point";
  EXPECT_EQ(produce("a", 0, 100)["error"], "KAFKA_STORAGE_ERROR");
  nlohmann::json more = create("b", {1, 2, 3, 4});
  for (const auto& p : more["partitions"]) EXPECT_NE(p["logDir"], c.log_dirs[0].string());
  ASSERT_NO_FATAL_FAILURE(expect_others_untouched(c));
}

TEST_F(DiskFaultTest, AnUnmountedDirGoesOfflineAtTheFirstFailedAppend) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {16, 16, 16}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(start(c));
  ASSERT_NO_FATAL_FAILURE(place_one_partition_per_dir(c));
  ASSERT_EQ(::umount2(c.log_dirs[0].c_str(), MNT_DETACH), 0) << std::strerror(errno);

  nlohmann::json refused = produce("a", 0, 100);
  EXPECT_EQ(refused["error"], "KAFKA_STORAGE_ERROR");
  EXPECT_EQ(refused["message"], "Log directory " + c.log_dirs[0].string() + " is offline");
  nlohmann::json d1 = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0]);
  EXPECT_EQ(d1["error"], "KAFKA_STORAGE_ERROR") << d1.dump();
  EXPECT_TRUE(d1["partitions"].empty()) << "an offline dir lists no partitions, as in Kafka";
  nlohmann::json more = create("b", {0, 1, 2, 3});
  for (const auto& p : more["partitions"]) EXPECT_NE(p["logDir"], c.log_dirs[0].string());
  ASSERT_NO_FATAL_FAILURE(expect_others_untouched(c));
}

TEST_F(DiskFaultTest, ProducingPastFreeSpaceGivesAClearErrorAndKeepsThePartitionWhole) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {8, 32}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(start(c));
  ASSERT_EQ(placed_in(create("t", {0})), c.log_dirs[0].string());
  ASSERT_EQ(produce("t", 0, kMiB).value("size", 0u), kMiB);

  // Refused before a byte is written (tests/integration/storage_safety_test.cpp has the message).
  nlohmann::json r = produce("t", 0, 64 * kMiB);
  EXPECT_EQ(r["error"], "KAFKA_STORAGE_ERROR") << r.dump();
  EXPECT_FALSE(r.contains("size"));
  const std::string message = r.value("message", "");
  const std::string head = "Not enough space in log directory " + c.log_dirs[0].string() +
                           " to append 67108864 bytes to t-0: ";
  ASSERT_EQ(message.substr(0, head.size()), head) << message;
  EXPECT_TRUE(message.ends_with("; nothing was appended.")) << message;

  // The reported size counts exactly what is on disk, every byte readable, no torn append.
  const uint64_t size = kMiB;
  EXPECT_EQ(reported_size("t-0"), static_cast<int64_t>(size));
  const fs::path dir = c.log_dirs[0] / "t-0";
  EXPECT_EQ(segment_bytes(dir), size);
  EXPECT_EQ(partition_problem(dir, "t", 0, size), "");
  // A full disk is not a failed disk: it stays online, and the startup scan agrees on the size.
  EXPECT_TRUE(dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0])["error"].is_null());
  ASSERT_NO_FATAL_FAILURE(restart());
  EXPECT_EQ(reported_size("t-0"), static_cast<int64_t>(size));
  // Other directories still take partitions and data; deleting the topic frees the full one.
  EXPECT_EQ(placed_in(create("u", {0})), c.log_dirs[1].string());
  EXPECT_EQ(produce("u", 0, 4 * kMiB).value("size", 0u), 4 * kMiB);
  call_ok({{"api", "DeleteTopic"}, {"topic", "t"}});
  EXPECT_EQ(placed_in(create("t", {0})), c.log_dirs[0].string());
  EXPECT_EQ(produce("t", 0, 4 * kMiB).value("size", 0u), 4 * kMiB);
}

// A partition placed with an expected size writes its lds.partition at creation. On a full
// filesystem that write fails: the creation is refused with the reason, nothing of it is left,
// the dir stays online, and the same creation succeeds once there is space again.
TEST_F(DiskFaultTest, AFullDiskRefusesACreationItCannotRecordAndStaysOnline) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {4}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(start(c));
  const fs::path d = c.log_dirs[0];
  const fs::path filler = d / "filler";  // space taken behind the broker's back
  {
    std::ofstream out(filler, std::ios::binary);
    const std::string block(4096, 'x');
    while (out.write(block.data(), static_cast<std::streamsize>(block.size()))) {
    }
  }
  const nlohmann::json request = {
      {"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}, {"expectedBytes", 1048576}};
  nlohmann::json r = call(request);
  ASSERT_EQ(r["partitions"][0]["error"], "KAFKA_STORAGE_ERROR") << r.dump();
  EXPECT_EQ(r["partitions"][0]["message"],
            "Cannot create t-0 in " + d.string() +
                ": its filesystem is full (No space left on device); the log directory stays "
                "online.");
  EXPECT_FALSE(fs::exists(d / "t-0"));
  for (const auto& e : fs::directory_iterator(d)) {
    const std::string name = e.path().filename().string();
    EXPECT_TRUE(name == "filler" || name == "meta.properties" || name == ".lock") << name;
  }
  const nlohmann::json entry = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), d);
  EXPECT_TRUE(entry["error"].is_null()) << entry.dump();
  EXPECT_TRUE(entry["partitions"].empty()) << entry.dump();

  fs::remove(filler);
  r = call(request);
  ASSERT_EQ(placed_in(r), d.string()) << r.dump();
  ASSERT_NO_FATAL_FAILURE(restart());
  // The expected size was recorded: the reservation is back after the restart.
  const nlohmann::json after = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), d);
  EXPECT_EQ(after.value("reservedBytes", 0u), 1048576u) << after.dump();
}

// With every dir offline the broker ends, as Kafka's does: storage_startup_test.cpp,
// WhenTheLastLogDirFailsTheBrokerLogsKafkasLineAndExits1.

// A move from or to a dir that goes offline stops, as Kafka stops the moves of a failed log dir
// (ReplicaAlterLogDirsManager removes the fetchers of a failed dir's partitions): the copy ends,
// its future copy is removed where the disk lets it, the move is reported with why, and the other
// dirs keep working.
class OfflineMoveTest : public DiskFaultTest {
 protected:
  // m-0 (8 MiB, more than the last 4 MiB a move copies unthrottled) in disk1, moving to disk3 at
  // 64 KiB/s; returns its future copy once it grows.
  fs::path start_slow_move(const ServerConfig& c) {
    place_one_partition_per_dir(c);
    if (HasFatalFailure()) return {};
    EXPECT_EQ(placed_in(create("m", {0})), c.log_dirs[0].string());
    EXPECT_EQ(produce("m", 0, 8 * kMiB).value("size", 0), 8 * kMiB);
    call_ok({{"api", "IncrementalAlterConfigs"},
             {"configs",
              nlohmann::json::array({{{"name", "replica.alter.log.dirs.io.max.bytes.per.second"},
                                      {"op", "SET"},
                                      {"value", "65536"}}})}});
    const nlohmann::json r = alter(c.log_dirs[2], "m", 0);
    EXPECT_EQ(r["error"], "NONE") << r.dump();
    for (int i = 0; i < 500; ++i) {
      for (const auto& e : fs::directory_iterator(c.log_dirs[2])) {
        if (e.path().filename().string().ends_with("-future") && segment_bytes(e.path()) > 0) {
          return e.path();
        }
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ADD_FAILURE() << "the move did not start copying: "
                  << call_ok({{"api", "DescribeLogDirs"}}).dump();
    return {};
  }

  // The failed move DescribeLogDirs lists for m-0 under disk3.
  nlohmann::json failed_move(const ServerConfig& c) {
    const nlohmann::json entry = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[2]);
    for (const auto& f : entry["failedMoves"]) {
      if (f["partition"] == "m-0") return f;
    }
    return nullptr;
  }

  static bool future_listed(const nlohmann::json& describe) {
    for (const auto& d : describe["brokers"][0]["logDirs"]) {
      for (const auto& p : d["partitions"]) {
        if (p["isFuture"].get<bool>()) return true;
      }
    }
    return false;
  }
};

TEST_F(OfflineMoveTest, AMoveWhoseSourceGoesOfflineStopsAndItsCopyIsRemoved) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {16, 16, 16}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(start(c));
  const fs::path future = start_slow_move(c);
  ASSERT_FALSE(future.empty());
  // Reads still work on a read-only disk: only the failed Produce takes disk1 offline.
  remount_read_only(c.log_dirs[0]);
  EXPECT_EQ(produce("a", 0, 100)["error"], "KAFKA_STORAGE_ERROR");
  for (int i = 0; i < 500 && fs::exists(future); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  EXPECT_FALSE(fs::exists(future)) << "the copy should stop and be removed";
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  EXPECT_FALSE(fs::exists(future)) << "nothing copies into it again";
  const nlohmann::json describe = call_ok({{"api", "DescribeLogDirs"}});
  EXPECT_FALSE(future_listed(describe)) << describe.dump();
  EXPECT_TRUE(dir_entry(describe, c.log_dirs[2])["error"].is_null())
      << "the destination stays online";
  EXPECT_EQ(dir_entry(describe, c.log_dirs[2])["reservedBytes"], 0)
      << "the reservation is released";
  const nlohmann::json f = failed_move(c);
  ASSERT_FALSE(f.is_null()) << describe.dump();
  EXPECT_EQ(f["error"], "KAFKA_STORAGE_ERROR");
  const std::string why = "Move of m-0 from " + c.log_dirs[0].string() + " to " +
                          c.log_dirs[2].string() + " stopped: its source log directory " +
                          c.log_dirs[0].string() + " went offline (";
  EXPECT_TRUE(f["message"].get<std::string>().starts_with(why)) << f.dump();
  ASSERT_NO_FATAL_FAILURE(expect_others_untouched(c));
}

TEST_F(OfflineMoveTest, AMoveWhoseDestinationGoesOfflineStopsAndItsSourceStaysServed) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {16, 16, 16}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(start(c));
  const fs::path future = start_slow_move(c);
  ASSERT_FALSE(future.empty());
  // A disk being written cannot be remounted read-only: it is pulled (lazily unmounted) instead,
  // and the next Produce there fails. The copy cannot be removed from the pulled disk; the next
  // start's recovery would discard it (it has no marker).
  ASSERT_EQ(::umount2(c.log_dirs[2].c_str(), MNT_DETACH), 0) << std::strerror(errno);
  EXPECT_EQ(produce("a", 2, 100)["error"], "KAFKA_STORAGE_ERROR");
  nlohmann::json f;
  for (int i = 0; i < 500 && f.is_null(); ++i) {
    f = failed_move(c);
    if (f.is_null()) std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  ASSERT_FALSE(f.is_null());
  EXPECT_TRUE(f["message"].get<std::string>().starts_with(
      "Move of m-0 from " + c.log_dirs[0].string() + " to " + c.log_dirs[2].string() +
      " stopped: its destination log directory " + c.log_dirs[2].string() + " went offline ("))
      << f.dump();
  EXPECT_FALSE(fs::exists(future)) << "nothing is copied to the pulled disk's path";
  const nlohmann::json describe = call_ok({{"api", "DescribeLogDirs"}});
  EXPECT_FALSE(future_listed(describe)) << describe.dump();
  EXPECT_TRUE(dir_entry(describe, c.log_dirs[0])["error"].is_null());
  EXPECT_TRUE(dir_entry(describe, c.log_dirs[1])["error"].is_null());
  // m-0 is still served from disk1, whole, and takes appends; so does a-1 on disk2.
  EXPECT_EQ(produce("m", 0, 1000).value("size", 0), 8 * kMiB + 1000);
  EXPECT_EQ(partition_problem(c.log_dirs[0] / "m-0", "m", 0, 8 * kMiB + 1000), "");
  EXPECT_EQ(produce("a", 1, 5000).value("size", 0), 15000);
}

// m-0 (64 KiB) moves from disk1 to disk2 while disk1 is remounted read-only between the move's
// marker and the renames (LDS_PAUSE_POINT holds it there): the complete copy takes its final name
// in disk2, the old copy cannot be renamed aside, and disk1 goes offline. Returns with disk1
// read-write again, m-0 served from disk2.
class StaleCopyTest : public OfflineMoveTest {
 protected:
  void TearDown() override {
    ::unsetenv("LDS_PAUSE_POINT");
    OfflineMoveTest::TearDown();
  }

  fs::path pending_record() const { return config_file_.string() + ".pending-deletions"; }
  void expect_recorded(const ServerConfig& c) {
    EXPECT_NE(server_log().find("The old copy of m-0 in " + c.log_dirs[0].string() +
                                " is recorded for deletion; the next start that finds the "
                                "directory readable removes it."),
              std::string::npos)
        << server_log();
  }

  // `before_move` runs once the broker serves m-0, before the move is asked for.
  void move_past_a_read_only_source(const ServerConfig& c,
                                    const std::function<void()>& before_move = nullptr) {
    ::setenv("LDS_PAUSE_POINT", "after_marker:500", 1);
    ASSERT_NO_FATAL_FAILURE(start(c));
    ::unsetenv("LDS_PAUSE_POINT");
    ASSERT_EQ(placed_in(create("m", {0})), c.log_dirs[0].string());
    ASSERT_EQ(produce("m", 0, 65536).value("size", 0), 65536);
    if (before_move) before_move();
    const nlohmann::json r = alter(c.log_dirs[1], "m", 0);
    ASSERT_EQ(r["error"], "NONE") << r.dump();
    bool marked = false;
    for (int i = 0; i < 500 && !marked; ++i) {
      for (const auto& e : fs::directory_iterator(c.log_dirs[1])) {
        marked = marked || (e.path().filename().string().ends_with("-future") &&
                            fs::exists(e.path() / layout::kMoveCompleteMarker));
      }
      if (!marked) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    ASSERT_TRUE(marked) << "the move did not reach its marker";
    remount_read_only(c.log_dirs[0]);
    bool offline = false;
    for (int i = 0; i < 500 && !offline; ++i) {
      offline = !dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[0])["error"].is_null();
      if (!offline) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_TRUE(offline) << server_log();
    ASSERT_EQ(::mount("tmpfs", c.log_dirs[0].c_str(), "tmpfs", MS_REMOUNT, nullptr), 0)
        << std::strerror(errno);
    EXPECT_NE(server_log().find("Moved m-0 to " + c.log_dirs[1].string() + ", but its old copy " +
                                (c.log_dirs[0] / "m-0").string() + " could not be removed"),
              std::string::npos)
        << server_log();
    EXPECT_TRUE(fs::exists(c.log_dirs[0] / "m-0")) << "the old copy is still on disk1";
    EXPECT_EQ(reported_size("m-0"), 65536);
  }
};

TEST_F(StaleCopyTest, AMovesOldCopyLeftOnAFailedDiskNeverComesBackAfterTheTopicIsDeleted) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {16, 16, 16}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(move_past_a_read_only_source(c));
  expect_recorded(c);
  // The delete removes the new copy, and the marker with it; the old copy must not be served by
  // the next start.
  call_ok({{"api", "DeleteTopic"}, {"topic", "m"}});
  kill9();
  ASSERT_NO_FATAL_FAILURE(start(c));
  for (const auto& d : c.log_dirs) EXPECT_FALSE(fs::exists(d / "m-0")) << d;
  EXPECT_EQ(reported_size("m-0"), -1);
  for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
    EXPECT_TRUE(d["error"].is_null()) << d.dump();
  }
  EXPECT_NE(
      server_log().find("Completed the pending deletion of m-0 in " + c.log_dirs[0].string() + "."),
      std::string::npos)
      << server_log();
  EXPECT_FALSE(fs::exists(pending_record()));
}

TEST_F(StaleCopyTest, AMovesOldCopyLeftOnAFailedDiskIsRemovedAtTheNextStartAndTheNewOneServed) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {16, 16, 16}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(move_past_a_read_only_source(c));
  expect_recorded(c);
  // Moved on before the restart: disk2's copy, marker and all, goes to disk3.
  EXPECT_EQ(alter(c.log_dirs[2], "m", 0)["error"], "NONE");
  for (int i = 0; i < 500 && !fs::exists(c.log_dirs[2] / "m-0"); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  kill9();
  ASSERT_NO_FATAL_FAILURE(start(c));
  EXPECT_FALSE(fs::exists(c.log_dirs[0] / "m-0"));
  EXPECT_FALSE(fs::exists(c.log_dirs[1] / "m-0"));
  EXPECT_EQ(partition_problem(c.log_dirs[2] / "m-0", "m", 0, 65536), "");
  EXPECT_EQ(reported_size("m-0"), 65536);
  EXPECT_EQ(produce("m", 0, 1000).value("size", 0), 65536 + 1000);
}

// The record cannot be written (a directory stands at its path, as a full or read-only config
// disk would refuse it): the broker says so and goes on, and a plain restart still keeps the new
// copy by its marker and removes the old one.
TEST_F(StaleCopyTest, AStaleCopyThatCannotBeRecordedIsLoggedAndTheMarkerStillDecidesTheRestart) {
  ServerConfig c;
  if (std::string why = mount_disks(c, {16, 16, 16}); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(move_past_a_read_only_source(
      c, [&] { fs::create_directories(pending_record() / "in-the-way"); }));
  EXPECT_NE(server_log().find("The old copy of m-0 in " + c.log_dirs[0].string() +
                              " could not be recorded for deletion: "),
            std::string::npos)
      << server_log();
  EXPECT_EQ(produce("m", 0, 1000).value("size", 0), 65536 + 1000) << "m-0 is still served";
  fs::remove_all(pending_record());
  kill9();
  ASSERT_NO_FATAL_FAILURE(start(c));
  EXPECT_FALSE(fs::exists(c.log_dirs[0] / "m-0"));
  EXPECT_EQ(partition_problem(c.log_dirs[1] / "m-0", "m", 0, 65536 + 1000), "");
  EXPECT_FALSE(fs::exists(c.log_dirs[1] / "m-0" / layout::kMoveCompleteMarker));
  for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
    EXPECT_TRUE(d["error"].is_null()) << d.dump();
  }
}

}  // namespace
}  // namespace lds::integration
