// storage_startup_test.cpp: a real `lds-host serve` and what it does with its log directories
// around startup: one broker per directory (a second serve exits 2 and touches nothing, not even
// the first one's socket), a meta.properties of another node refused and kept byte for byte, no
// start with every directory unusable, the broker ending with Kafka's line when its last directory
// fails (tmpfs, root), and a dynamic cordon of a dir since removed from log.dirs pruned.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "reliability_support.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

using Clock = std::chrono::steady_clock;

// Every entry under the given dirs with its size (-1 for a directory). The files inside a move's
// -future directory grow while the first broker copies; only their names are compared.
std::map<std::string, int64_t> snapshot(const std::vector<fs::path>& dirs) {
  std::map<std::string, int64_t> out;
  for (const auto& root : dirs) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const std::string parent = it->path().parent_path().filename().string();
      const bool growing = parent.size() > 7 && parent.ends_with("-future");
      out[it->path().string()] =
          it->is_directory() || growing ? -1 : static_cast<int64_t>(fs::file_size(it->path(), ec));
    }
  }
  return out;
}

ino_t inode_of(const fs::path& path) {
  struct stat st {};
  return ::lstat(path.c_str(), &st) == 0 ? st.st_ino : 0;
}

class StorageStartupTest : public ServerFixture {
 protected:
  json set_config(const std::string& name, const std::string& value) {
    return call_ok({{"api", "IncrementalAlterConfigs"},
                    {"configs", json::array({{{"name", name}, {"op", "SET"}, {"value", value}}})}});
  }
  // The future directory of `name` in `dir`, or "" when there is none.
  static fs::path future_of(const fs::path& dir, const std::string& name) {
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string entry = e.path().filename().string();
      if (entry.starts_with(name + ".") && entry.ends_with("-future")) return e.path();
    }
    return {};
  }
};

TEST_F(StorageStartupTest, ASecondServeOnASharedDirExits2HavingTouchedNothing) {
  ServerConfig a = default_config(2);
  // On tmpfs disks as root, as the other disk tests; otherwise 16 MiB in the temp folder.
  if (::geteuid() == 0) {
    for (const auto& d : a.log_dirs) ASSERT_EQ(mount_tmpfs(d, 64), "");
  }
  ASSERT_NO_FATAL_FAILURE(start(a));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  // A move in progress into the shared dir, held slow by the throttle: past the last 4 MiB, which
  // a move copies unthrottled, 4 KiB a second.
  call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 8 << 20}});
  set_config("replica.alter.log.dirs.io.max.bytes.per.second", "4096");
  json moved = call_ok(
      {{"api", "AlterReplicaLogDirs"},
       {"dirs",
        json::array({{{"path", a.log_dirs[1].string()},
                      {"partitions", json::array({{{"topic", "t"}, {"partition", 0}}})}}})}});
  ASSERT_EQ(moved["results"][0]["error"], "NONE") << moved.dump();
  const auto deadline = Clock::now() + std::chrono::seconds(10);
  auto copying = [&] {  // the future directory exists and its segment file has been created
    const fs::path f = future_of(a.log_dirs[1], "t-0");
    std::error_code ec;
    return !f.empty() && fs::exists(f / "00000000000000000000.log", ec);
  };
  while (!copying() && Clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  ASSERT_TRUE(copying()) << "the move never started";
  const fs::path future = future_of(a.log_dirs[1], "t-0");

  // The second broker: its own new dir first, the shared one second, the same admin socket.
  ServerConfig b = a;
  b.log_dirs = {temp_ / "disk3", a.log_dirs[1]};
  const fs::path b_config = write_config(b, temp_ / "b.toml");
  const auto before = snapshot(a.log_dirs);
  const ino_t socket_before = inode_of(socket_);
  ProcessResult second = run_host({"serve", "--config", b_config.string()}, 20);
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_NE(second.err.find("Failed to acquire lock on file .lock in " + a.log_dirs[1].string() +
                            ". A Kafka instance in another process or thread is using this "
                            "directory."),
            std::string::npos)
      << second.err;

  EXPECT_EQ(snapshot(a.log_dirs), before) << "the second broker changed the first one's dirs";
  EXPECT_TRUE(fs::is_directory(future)) << "the live move's future copy is gone";
  EXPECT_FALSE(fs::exists(temp_ / "disk3")) << "the refused broker created its own dir";
  EXPECT_EQ(inode_of(socket_), socket_before) << "the first broker's socket was replaced";
  // The first broker still serves, on the same socket, with both dirs online.
  json described = call_ok({{"api", "DescribeLogDirs"}});
  for (const auto& d : a.log_dirs) EXPECT_TRUE(dir_entry(described, d)["error"].is_null()) << d;
  EXPECT_EQ(call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 1}, {"bytes", 100}})["size"],
            100);
}

TEST_F(StorageStartupTest, AHandWrittenMetaPropertiesOfAnotherNodeRefusesTheStartAndStaysAsItIs) {
  ServerConfig c = default_config(2);
  fs::create_directories(c.log_dirs[1]);
  const std::string hand_written = "# written by hand\nbroker.id = 5\n";
  std::ofstream(c.log_dirs[1] / "meta.properties", std::ios::binary) << hand_written;
  write_config(c);
  ProcessResult r = run_host({"serve", "--config", config_file_.string()}, 20);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("lds-host: Stored node id 5 doesn't match previous node id 0 in " +
                       (c.log_dirs[1] / "meta.properties").string() +
                       ". If you moved your data, make sure your configured node id matches. If "
                       "you intend to create a new node, you should remove all data in your data "
                       "directories."),
            std::string::npos)
      << r.err;
  EXPECT_EQ(read_file(c.log_dirs[1] / "meta.properties"), hand_written);
  EXPECT_FALSE(fs::exists(c.log_dirs[0] / "meta.properties")) << "written before the refusal";
  EXPECT_FALSE(fs::exists(socket_));
}

TEST_F(StorageStartupTest, WithEveryLogDirUnusableServeExits2NamingEachAndItsFault) {
  // A path under a regular file cannot be created, whoever runs the test.
  std::ofstream(temp_ / "plain-file") << "not a directory";
  ServerConfig c = default_config(0);
  c.log_dirs = {temp_ / "plain-file" / "a", temp_ / "plain-file" / "b"};
  write_config(c);
  ProcessResult r = run_host({"serve", "--config", config_file_.string()}, 20);
  EXPECT_EQ(r.exit_code, 2);
  const std::string a = c.log_dirs[0].string(), b = c.log_dirs[1].string();
  EXPECT_NE(r.err.find("lds-host: Shutdown broker because none of the specified log dirs from " +
                       a + ", " + b + " can be created or validated: " + a +
                       ": Failed to create or validate the data directory: Not a directory; " + b +
                       ": Failed to create or validate the data directory: Not a directory.\n"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(socket_));
}

TEST_F(StorageStartupTest, WhenTheLastLogDirFailsTheBrokerLogsKafkasLineAndExits1) {
  if (::geteuid() != 0) GTEST_SKIP() << "not running as root, so tmpfs log dirs cannot be mounted";
  ServerConfig c = default_config(2);
  for (const auto& d : c.log_dirs) {
    if (std::string why = mount_tmpfs(d, 8); !why.empty()) GTEST_SKIP() << why;
  }
  ASSERT_NO_FATAL_FAILURE(start(c));
  json created = call_ok({{"api", "CreatePartitions"}, {"topic", "a"}, {"partitions", {0, 1}}});
  ASSERT_EQ(created["partitions"][0]["logDir"], c.log_dirs[0].string()) << created.dump();
  ASSERT_EQ(created["partitions"][1]["logDir"], c.log_dirs[1].string()) << created.dump();
  auto remount_read_only = [](const fs::path& dir) {
    ASSERT_EQ(::mount("tmpfs", dir.c_str(), "tmpfs", MS_REMOUNT | MS_RDONLY, nullptr), 0)
        << "mount -o remount,ro " << dir << ": " << std::strerror(errno);
  };

  ASSERT_NO_FATAL_FAILURE(remount_read_only(c.log_dirs[0]));
  json r = call({{"api", "Produce"}, {"topic", "a"}, {"partition", 0}, {"bytes", 1000}});
  EXPECT_EQ(r["error"], "KAFKA_STORAGE_ERROR") << r.dump();
  EXPECT_FALSE(wait_for_server_exit(200)) << "the broker stopped with a dir still online";
  EXPECT_TRUE(dir_entry(call_ok({{"api", "DescribeLogDirs"}}), c.log_dirs[1])["error"].is_null());

  ASSERT_NO_FATAL_FAILURE(remount_read_only(c.log_dirs[1]));
  {
    RawClient client(socket_, 20);
    client.call(
        R"({"api":"Produce","topic":"a","partition":1,"bytes":1000})");  // may get no answer
  }
  std::optional<int> code = wait_for_server_exit(10000);
  ASSERT_TRUE(code) << "the broker kept running with every log dir offline";
  EXPECT_EQ(*code, 1);
  EXPECT_NE(server_log().find("Shutdown broker because all log dirs in " + c.log_dirs[0].string() +
                              ", " + c.log_dirs[1].string() + " have failed\n"),
            std::string::npos)
      << server_log();
}

TEST_F(StorageStartupTest, ADynamicCordonOfARemovedDirIsPrunedAtTheNextStartWithOneInfoLine) {
  ServerConfig c = default_config(3);
  ASSERT_NO_FATAL_FAILURE(start(c));
  set_config("cordoned.log.dirs", c.log_dirs[2].string());
  set_config("log.level", "info");
  ASSERT_NO_FATAL_FAILURE(stop());
  const fs::path dynamic = config_file_.string() + ".dynamic";
  const std::string dynamic_text = read_file(dynamic);
  const std::string cordon_line = "\"cordoned.log.dirs\" = \"" + c.log_dirs[2].string() + "\"\n";
  ASSERT_NE(dynamic_text.find(cordon_line), std::string::npos) << dynamic_text;

  c.log_dirs.pop_back();  // the cordoned dir leaves log.dirs
  ASSERT_NO_FATAL_FAILURE(start(c));
  const std::string disk3 = (temp_ / "disk3").string();
  const std::string line =
      "Pruned " + disk3 + " from cordoned.log.dirs: it is no longer in log.dirs.\n";
  const size_t at = server_log().find(line);
  EXPECT_NE(at, std::string::npos) << server_log();
  EXPECT_EQ(server_log().find(disk3, at + line.size()), std::string::npos) << server_log();
  EXPECT_EQ(server_log().find("All cordoned log dirs must be entries"), std::string::npos)
      << server_log();
  json described = call_ok({{"api", "DescribeLogDirs"}});
  for (const auto& d : c.log_dirs) EXPECT_EQ(dir_entry(described, d)["isCordoned"], false) << d;
  const json configs = call_ok({{"api", "DescribeConfigs"}});  // outlives the loop below
  for (const auto& row : configs["configs"]) {
    if (row["name"] == "cordoned.log.dirs") {
      EXPECT_EQ(row["source"], "DEFAULT") << row.dump();
    }
  }
  std::string pruned = dynamic_text;
  pruned.erase(pruned.find(cordon_line), cordon_line.size());
  EXPECT_EQ(read_file(dynamic), pruned) << "only the cordon line goes";
}

// SIGTERM records Kafka's clean shutdown in every log dir (the recovery points, then the marker);
// the next start takes those logs as they are, says so, and removes the marker before anything is
// appended, so a kill -9 from then on leaves none and its logs are read through.
TEST_F(StorageStartupTest, ASigtermRecordsACleanShutdownThatTheNextStartTakesAndAKillDoesNot) {
  ServerConfig c = default_config(2);
  c.extra_lines.push_back("log.level = \"info\"");
  ASSERT_NO_FATAL_FAILURE(start(c));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 5000}});
  const json before = call_ok({{"api", "DescribeLogDirs"}});
  ASSERT_NO_FATAL_FAILURE(stop());
  for (const auto& d : c.log_dirs) {
    EXPECT_EQ(read_file(d / ".kafka_cleanshutdown"), R"({"version":0,"brokerEpoch":-1})") << d;
    const std::string points = read_file(d / "recovery-point-offset-checkpoint");
    EXPECT_TRUE(points.starts_with("0\n1\nt ")) << d << ": " << points;
  }
  ASSERT_NO_FATAL_FAILURE(start());
  for (const auto& d : c.log_dirs) {
    const std::string line = "Log directory " + d.string() +
                             " was shut down cleanly: 1 of its 1 logs taken as they were";
    EXPECT_NE(server_log().find(line), std::string::npos) << server_log();
    EXPECT_FALSE(fs::exists(d / ".kafka_cleanshutdown")) << d;
  }
  const json after = call_ok({{"api", "DescribeLogDirs"}});
  for (const auto& d : c.log_dirs) {
    EXPECT_EQ(dir_entry(after, d)["partitions"], dir_entry(before, d)["partitions"]) << d;
  }
  call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 5000}});
  ASSERT_NO_FATAL_FAILURE(kill9());
  for (const auto& d : c.log_dirs) EXPECT_FALSE(fs::exists(d / ".kafka_cleanshutdown")) << d;
  const size_t logged = server_log().size();
  ASSERT_NO_FATAL_FAILURE(start());
  EXPECT_EQ(server_log().find("shut down cleanly", logged), std::string::npos) << server_log();

  // A second broker on the same dirs is refused by their locks before it reads or writes a
  // checkpoint or a marker.
  ServerConfig b = c;
  b.socket = temp_ / "b.sock";
  const fs::path b_config = write_config(b, temp_ / "b.toml");
  const auto before_second = snapshot(c.log_dirs);
  const ProcessResult second = run_host({"serve", "--config", b_config.string()}, 20);
  EXPECT_EQ(second.exit_code, 2) << second.err;
  EXPECT_EQ(snapshot(c.log_dirs), before_second) << "the second broker changed the dirs";
  for (const auto& d : c.log_dirs) EXPECT_FALSE(fs::exists(d / ".kafka_cleanshutdown")) << d;
}

// Stray entries in a log dir are logged once each, with the path and why they are ignored; one at
// the name of a partition being created fails that creation alone, the dir staying online.
TEST_F(StorageStartupTest, StrayEntriesAreLoggedOnceAndOneAtAPartitionsNameFailsOnlyItsCreation) {
  ServerConfig c = default_config(1);
  const fs::path d = c.log_dirs[0];
  for (const char* name : {"foo", "bad-name-x", "t-00"}) fs::create_directories(d / name);
  std::ofstream(d / "u-0") << "a regular file named like a partition";
  ASSERT_NO_FATAL_FAILURE(start(c));
  const std::string log = server_log();
  for (const char* name : {"foo", "bad-name-x", "t-00", "u-0"}) {
    const std::string line = "Ignoring " + (d / name).string() + " in log directory " + d.string();
    const size_t first = log.find(line);
    EXPECT_NE(first, std::string::npos) << name << "\n" << log;
    EXPECT_EQ(log.find(line, first + 1), std::string::npos) << name << " logged twice";
  }
  json created = call({{"api", "CreatePartitions"}, {"topic", "u"}, {"partitions", {0}}});
  ASSERT_EQ(created["partitions"][0]["error"], "KAFKA_STORAGE_ERROR") << created.dump();
  EXPECT_EQ(created["partitions"][0]["message"],
            "Cannot create u-0 in " + d.string() + ": " + (d / "u-0").string() +
                " already exists and is not a partition this broker hosts; move it out of the "
                "log directory. The log directory stays online.");
  const json entry = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), d);
  EXPECT_TRUE(entry["error"].is_null()) << entry.dump();
  EXPECT_TRUE(entry["partitions"].empty()) << entry.dump();
  EXPECT_EQ(read_file(d / "u-0"), "a regular file named like a partition");
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});  // others still work
}

}  // namespace
}  // namespace lds::integration
