// full_filesystem_creation_test.cpp: creating a partition in a log dir whose filesystem is full (a
// tmpfs or a small ext4 image out of inodes, an ext4 image out of blocks) on a real `lds-host
// serve`: the creation goes to the next dir, or is refused with one sentence when no dir can take
// it; the full dir stays online with its partitions readable, the broker keeps running, and
// nothing of the refused creation is left. Needs root for the mounts (and mkfs.ext4 and losetup
// for the ext4 images); skipped, saying why, otherwise.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "reliability_support.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

// How the log dir's filesystem is full when the creation comes.
enum class Fullness {
  kTmpfsInodes,        // a tmpfs with nr_inodes spent: mkdir fails
  kTmpfsOneInodeLeft,  // the same with one inode left: mkdir fits, the first segment does not
  kExt4Blocks,         // an ext4 image with every block spent: mkdir needs one
  kExt4Inodes,         // an ext4 image made with few inodes, all spent
};

std::string fullness_name(const ::testing::TestParamInfo<Fullness>& info) {
  switch (info.param) {
    case Fullness::kTmpfsInodes:
      return "TmpfsOutOfInodes";
    case Fullness::kTmpfsOneInodeLeft:
      return "TmpfsWithOneInodeLeft";
    case Fullness::kExt4Blocks:
      return "Ext4OutOfBlocks";
    case Fullness::kExt4Inodes:
      return "Ext4OutOfInodes";
  }
  return "Unknown";
}

std::string errno_text(const std::string& what, const fs::path& path, int err) {
  return what + " " + path.string() + ": " + std::strerror(err);
}

// "" when a new directory cannot be made in `dir` (ENOSPC), else what happened.
std::string mkdir_refused(const fs::path& dir) {
  const fs::path probe = dir / "mkdir-probe";
  if (::mkdir(probe.c_str(), 0755) == 0) {
    ::rmdir(probe.c_str());
    return "the filesystem of " + dir.string() + " still takes a new directory";
  }
  return errno == ENOSPC ? "" : errno_text("mkdir", probe, errno);
}

// Creates empty files in <dir>/filler until the filesystem has no inode left (ENOSPC); with
// `leave_one`, removes the last one again. Returns "" or what went wrong.
std::string spend_inodes(const fs::path& dir, bool leave_one) {
  const fs::path filler = dir / "filler";
  if (::mkdir(filler.c_str(), 0755) != 0) return errno_text("mkdir", filler, errno);
  fs::path last;
  for (int i = 0; i < 100000; ++i) {  // the filesystems here have at most a few hundred inodes
    const fs::path file = filler / ("f" + std::to_string(i));
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd >= 0) {
      ::close(fd);
      last = file;
      continue;
    }
    if (errno != ENOSPC) return errno_text("create", file, errno);
    if (last.empty()) return "no file fits in " + dir.string();
    if (leave_one) return ::unlink(last.c_str()) == 0 ? "" : errno_text("unlink", last, errno);
    return mkdir_refused(dir);
  }
  return "100000 files fit in " + dir.string() + "; it is not a small filesystem";
}

// Appends to <dir>/filler.bin until the filesystem has no block left: halving the write size at
// each ENOSPC down to one byte, then syncing (ext4 gives back the blocks it held for delayed
// allocation) and again, until a new directory no longer fits. Bounded by the filesystem's size.
std::string spend_blocks(const fs::path& dir) {
  const fs::path file = dir / "filler.bin";
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return errno_text("create", file, errno);
  const std::vector<char> block(1 << 20, 'x');
  auto fill_once = [&]() -> std::string {
    for (size_t chunk = block.size(); chunk > 0;) {
      if (::write(fd, block.data(), chunk) > 0) continue;
      if (errno != ENOSPC) return errno_text("write", file, errno);
      chunk /= 2;
    }
    ::fsync(fd);
    ::syncfs(fd);
    return "";
  };
  std::string problem = "a new directory still fits in " + dir.string() + " after 8 rounds";
  for (int round = 0; round < 8; ++round) {
    if (std::string why = fill_once(); !why.empty()) {
      problem = why;
      break;
    }
    if (mkdir_refused(dir).empty()) {
      problem.clear();
      break;
    }
  }
  ::close(fd);
  return problem;
}

class FullFilesystemTest : public ServerFixture {
 protected:
  nlohmann::json create(const std::string& topic, const std::vector<int32_t>& partitions) {
    return call({{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", partitions}});
  }
  nlohmann::json produce(const std::string& topic, int32_t partition, uint64_t bytes) {
    return call_ok(
        {{"api", "Produce"}, {"topic", topic}, {"partition", partition}, {"bytes", bytes}});
  }
  static std::string full_sentence(const std::string& partition, const fs::path& dir) {
    return "Cannot create " + partition + " in " + dir.string() +
           ": its filesystem is full (No space left on device); the log directory stays online.";
  }

  // The full dir `d` after a refused creation of `refused` ("t-0"): online in DescribeLogDirs,
  // listing a-<p> with its 10,000 bytes, which are whole on disk; nothing of `refused` is left
  // (no directory of that name, no hidden temp file), only what the test put there.
  void expect_full_dir_intact(const fs::path& d, int32_t p, const std::string& refused) {
    const nlohmann::json entry = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), d);
    EXPECT_TRUE(entry["error"].is_null()) << "the full dir went offline: " << entry.dump();
    const std::string name = "a-" + std::to_string(p);
    bool listed = false;
    for (const auto& q : entry.value("partitions", nlohmann::json::array())) {
      if (q.value("partition", "") == name) {
        listed = true;
        EXPECT_EQ(q.value("size", 0), 10000) << entry.dump();
      }
    }
    EXPECT_TRUE(listed) << name << " is not listed in " << entry.dump();
    EXPECT_EQ(partition_problem(d / name, "a", p, 10000), "");
    EXPECT_FALSE(fs::exists(d / refused)) << "half-made " << (d / refused);
    for (const auto& e : fs::directory_iterator(d)) {
      const std::string entry_name = e.path().filename().string();
      EXPECT_TRUE(entry_name == name || entry_name == "filler" || entry_name == "filler.bin" ||
                  entry_name == "meta.properties" || entry_name == ".lock" ||
                  entry_name == "lost+found")
          << "left in the full dir: " << e.path();
    }
  }
};

class FullFilesystemCreationTest : public FullFilesystemTest,
                                   public ::testing::WithParamInterface<Fullness> {
 protected:
  // Mounts the filesystem of this case on `dir`: "" or why not.
  std::string mount_small_filesystem(const fs::path& dir) {
    switch (GetParam()) {
      case Fullness::kTmpfsInodes:
      case Fullness::kTmpfsOneInodeLeft:
        return mount_tmpfs(dir, 8, "nr_inodes=64");
      case Fullness::kExt4Blocks:
        return mount_ext4_image(dir, 8);
      case Fullness::kExt4Inodes:
        return mount_ext4_image(dir, 8, 32);
    }
    return "unknown case";
  }
  // Fills `dir`'s filesystem behind the broker's back: "" or what went wrong.
  std::string fill(const fs::path& dir) {
    switch (GetParam()) {
      case Fullness::kTmpfsInodes:
      case Fullness::kExt4Inodes:
        return spend_inodes(dir, false);
      case Fullness::kTmpfsOneInodeLeft:
        return spend_inodes(dir, true);
      case Fullness::kExt4Blocks:
        return spend_blocks(dir);
    }
    return "unknown case";
  }
  // Frees what fill() took.
  static void unfill(const fs::path& dir) {
    fs::remove_all(dir / "filler");
    fs::remove(dir / "filler.bin");
  }
};

// Two dirs with one partition each, so disk1 ranks first (log.dirs order breaks the tie): its
// filesystem is full, and the creation lands in disk2 instead, disk1 online and untouched.
TEST_P(FullFilesystemCreationTest, TheCreationGoesToTheNextLogDir) {
  ServerConfig c = default_config(2);
  if (std::string why = mount_small_filesystem(c.log_dirs[0]); !why.empty()) GTEST_SKIP() << why;
  if (std::string why = mount_tmpfs(c.log_dirs[1], 8); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(start(c));
  const nlohmann::json before = create("a", {0, 1});
  ASSERT_EQ(before["partitions"][0].value("logDir", ""), c.log_dirs[0].string()) << before.dump();
  ASSERT_EQ(before["partitions"][1].value("logDir", ""), c.log_dirs[1].string()) << before.dump();
  ASSERT_EQ(produce("a", 0, 10000).value("size", 0), 10000);
  ASSERT_EQ(produce("a", 1, 10000).value("size", 0), 10000);
  ASSERT_EQ(fill(c.log_dirs[0]), "");

  const nlohmann::json r = create("t", {0});
  ASSERT_EQ(r.value("error", ""), "NONE") << r.dump();
  ASSERT_EQ(r["partitions"][0].value("error", ""), "NONE") << r.dump();
  EXPECT_EQ(r["partitions"][0].value("logDir", ""), c.log_dirs[1].string()) << r.dump();
  EXPECT_TRUE(r["partitions"][0].value("created", false)) << r.dump();
  // disk1 was tried first and refused the creation for space, saying so.
  EXPECT_NE(server_log().find(full_sentence("t-0", c.log_dirs[0])), std::string::npos)
      << server_log();
  expect_full_dir_intact(c.log_dirs[0], 0, "t-0");
  EXPECT_EQ(produce("t", 0, 5000).value("size", 0), 5000);
  EXPECT_EQ(partition_problem(c.log_dirs[1] / "t-0", "t", 0, 5000), "");
}

// One dir, full: the creation is refused with the sentence (admin API and `lds-host create`), the
// broker keeps running, the dir stays online with its partition, and once space is freed the same
// creation succeeds there.
TEST_P(FullFilesystemCreationTest, WithOneLogDirTheCreationIsRefusedAndTheBrokerKeepsRunning) {
  ServerConfig c = default_config(1);
  if (std::string why = mount_small_filesystem(c.log_dirs[0]); !why.empty()) GTEST_SKIP() << why;
  ASSERT_NO_FATAL_FAILURE(start(c));
  const fs::path d = c.log_dirs[0];
  const nlohmann::json before = create("a", {0});
  ASSERT_EQ(before["partitions"][0].value("logDir", ""), d.string()) << before.dump();
  ASSERT_EQ(produce("a", 0, 10000).value("size", 0), 10000);
  ASSERT_EQ(fill(d), "");

  const nlohmann::json r = create("t", {0});
  ASSERT_EQ(r.value("error", ""), "NONE") << r.dump();
  EXPECT_EQ(r["partitions"][0].value("error", ""), "KAFKA_STORAGE_ERROR") << r.dump();
  EXPECT_EQ(r["partitions"][0].value("message", ""), full_sentence("t-0", d)) << r.dump();
  EXPECT_FALSE(wait_for_server_exit(300).has_value()) << "the broker exited";
  ASSERT_TRUE(running());
  expect_full_dir_intact(d, 0, "t-0");

  const ProcessResult cli =
      run_host({"create", "--config", config_file_.string(), "--topic", "u", "--partitions", "1"});
  EXPECT_EQ(cli.exit_code, 1) << cli.out << cli.err;
  EXPECT_EQ(cli.err, "lds-host: u-0: KAFKA_STORAGE_ERROR: " + full_sentence("u-0", d) + "\n");
  EXPECT_FALSE(wait_for_server_exit(300).has_value()) << "the broker exited";
  expect_full_dir_intact(d, 0, "u-0");

  unfill(d);
  const nlohmann::json again = create("t", {0});
  EXPECT_EQ(again["partitions"][0].value("logDir", ""), d.string()) << again.dump();
  EXPECT_EQ(produce("t", 0, 5000).value("size", 0), 5000);
  EXPECT_EQ(produce("a", 0, 5000).value("size", 0), 15000);
}

INSTANTIATE_TEST_SUITE_P(FullFilesystems, FullFilesystemCreationTest,
                         ::testing::Values(Fullness::kTmpfsInodes, Fullness::kTmpfsOneInodeLeft,
                                           Fullness::kExt4Blocks, Fullness::kExt4Inodes),
                         fullness_name);

// Every dir full: the creation is refused naming each dir and why, and every dir stays online.
TEST_F(FullFilesystemTest, WithEveryLogDirFullTheRefusalNamesEachDir) {
  ServerConfig c = default_config(2);
  for (const fs::path& d : c.log_dirs) {
    if (std::string why = mount_tmpfs(d, 8, "nr_inodes=64"); !why.empty()) GTEST_SKIP() << why;
  }
  ASSERT_NO_FATAL_FAILURE(start(c));
  const nlohmann::json before = create("a", {0, 1});
  ASSERT_EQ(before["partitions"][1].value("logDir", ""), c.log_dirs[1].string()) << before.dump();
  for (int32_t p : {0, 1}) ASSERT_EQ(produce("a", p, 10000).value("size", 0), 10000);
  for (const fs::path& d : c.log_dirs) ASSERT_EQ(spend_inodes(d, false), "");

  const nlohmann::json r = create("t", {0});
  ASSERT_EQ(r.value("error", ""), "NONE") << r.dump();
  EXPECT_EQ(r["partitions"][0].value("error", ""), "KAFKA_STORAGE_ERROR") << r.dump();
  EXPECT_EQ(r["partitions"][0].value("message", ""),
            full_sentence("t-0", c.log_dirs[0]) + " " + full_sentence("t-0", c.log_dirs[1]))
      << r.dump();
  EXPECT_FALSE(wait_for_server_exit(300).has_value()) << "the broker exited";
  for (int32_t p : {0, 1}) {
    expect_full_dir_intact(c.log_dirs[static_cast<size_t>(p)], p, "t-0");
  }
}

}  // namespace
}  // namespace lds::integration
