// storage_safety_test.cpp: the LogManager's append and delete paths under storage faults: an
// append past the space left is refused before a byte is written, and a topic deleted while one
// of its directories is offline is deleted for good once the directory is back, wherever its disk
// is mounted by then, and without taking a partition re-created under the same name.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "host_test_support.h"
#include "io/log_layout.h"
#include "private_mounts.h"
#include "storage/log_manager.h"
#include "strategy/strategy_plugin.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::FakeDiskProbe;
using test::LogCapture;
using test::TempDir;

constexpr uint64_t kMB = 1000ull * 1000;

class StorageSafetyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"d1", "d2", "d3"}) dirs_.push_back(tmp_.path() / name);
    for (const auto& d : dirs_) probe_->set(d, 1000 * kMB, 1000 * kMB);
    slot_.publish(test::load_plugin("partition", {}, slot_.next_generation()));
  }

  // A LogManager on the three dirs, started: what a broker (re)start does.
  std::unique_ptr<LogManager> start() {
    LogManager::Options options;
    options.log_dirs = dirs_;
    options.pending_deletions_file = record_;
    auto m = std::make_unique<LogManager>(options, probe_, slot_);
    m->startup();
    return m;
  }

  static const LogDirDescription& dir_of(const std::vector<LogDirDescription>& all,
                                         const fs::path& dir) {
    for (const auto& d : all) {
      if (d.log_dir == dir.string()) return d;
    }
    throw std::runtime_error("no such dir " + dir.string());
  }
  static std::vector<std::string> served(const LogManager& m) {
    std::vector<std::string> out;
    for (const auto& d : m.describe()) {
      for (const auto& p : d.partitions)
        out.push_back(fs::path(d.log_dir).filename().string() + "/" + p.partition);
    }
    return out;
  }
  static uint64_t file_size_or_zero(const fs::path& f) {
    std::error_code ec;
    const uint64_t n = fs::file_size(f, ec);
    return ec ? 0 : n;
  }

  TempDir tmp_;
  std::vector<fs::path> dirs_;
  fs::path record_ = tmp_.path() / "broker.toml.pending-deletions";
  std::shared_ptr<FakeDiskProbe> probe_ = std::make_shared<FakeDiskProbe>();
  StrategySlot slot_;
};

TEST_F(StorageSafetyTest, AppendPastTheSpaceLeftIsRefusedBeforeAByteIsWritten) {
  auto m = start();
  ASSERT_EQ(fs::path(m->create_partition("t", 0, 0).log_dir), dirs_[0]);
  // Another partition in d1 holds 300 kB of reservation; t-0 holds none.
  ASSERT_EQ(fs::path(m->create_partition("u", 0, 300 * 1000).log_dir), dirs_[1]);
  ASSERT_EQ(fs::path(m->create_partition("u", 1, 300 * 1000).log_dir), dirs_[2]);
  ASSERT_EQ(fs::path(m->create_partition("u", 2, 300 * 1000).log_dir), dirs_[0]);
  ASSERT_EQ(m->append("t", 0, 1000), 1000u);
  probe_->set(dirs_[0], 1000 * kMB, 1 * kMB);  // the disk is nearly full now

  const fs::path segment = dirs_[0] / "t-0" / layout::segment_file(0);
  try {
    m->append("t", 0, 800 * 1000);
    FAIL() << "an append past the space left was accepted";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kDirUnavailable);
    EXPECT_EQ(std::string(e.what()),
              "Not enough space in log directory " + dirs_[0].string() +
                  " to append 800000 bytes to t-0: 700000 bytes are available (1000000 usable, "
                  "less 300000 reserved for other partitions); nothing was appended.");
  }
  EXPECT_EQ(file_size_or_zero(segment), 1000u);
  const auto after = m->describe();
  EXPECT_EQ(dir_of(after, dirs_[0]).error, StorageErrc::kNone) << "a full dir is not a failed dir";
  ASSERT_EQ(dir_of(after, dirs_[0]).partitions.size(), 2u);
  EXPECT_EQ(dir_of(after, dirs_[0]).partitions[0].size, 1000u);  // t-0, sorted first
  // What fits is taken, all of it.
  EXPECT_EQ(m->append("t", 0, 700 * 1000), 701000u);
  EXPECT_EQ(file_size_or_zero(segment), 701000u);
}

TEST_F(StorageSafetyTest, APartitionsOwnReservationCountsAsSpaceForIt) {
  auto m = start();
  ASSERT_EQ(fs::path(m->create_partition("t", 0, 600 * 1000).log_dir), dirs_[0]);
  probe_->set(dirs_[0], 1000 * kMB, 1 * kMB);
  // 1 MB usable, 600 kB of it reserved for t-0 itself: all of it is t-0's to write.
  EXPECT_EQ(m->append("t", 0, 1 * kMB), 1 * kMB);
  probe_->set(dirs_[0], 1000 * kMB, 0);
  EXPECT_THROW(m->append("t", 0, 100), StorageError);
  EXPECT_EQ(m->append("t", 0, 0), 1 * kMB) << "an empty append needs no space";
}

// A tmpfs of 1 MiB on `dir` while it lives (root only); why() says why not.
class SmallTmpfs {
 public:
  explicit SmallTmpfs(const fs::path& dir) : dir_(dir) {
    if (::geteuid() != 0) {
      why_ = "not running as root, so a tmpfs cannot be mounted";
      return;
    }
    fs::create_directories(dir);
    if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=1m,mode=0755") != 0) {
      why_ = std::string("mount -t tmpfs failed: ") + std::strerror(errno);
      return;
    }
    mounted_ = true;
  }
  ~SmallTmpfs() {
    if (mounted_ && ::umount2(dir_.c_str(), 0) != 0) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  SmallTmpfs(const SmallTmpfs&) = delete;
  SmallTmpfs& operator=(const SmallTmpfs&) = delete;
  const std::string& why() const { return why_; }

 private:
  fs::path dir_;
  bool mounted_ = false;
  std::string why_;
};

TEST_F(StorageSafetyTest, ENOSPCAfterTheCheckStillKeepsThePartitionWholeAndTheDirOnline) {
  // The probe says 1000 MB are free; the disk under d1 really has 1 MiB. Another writer filling
  // the disk between the check and the write looks the same.
  SmallTmpfs disk(dirs_[0]);
  if (!disk.why().empty()) GTEST_SKIP() << disk.why();
  auto m = start();
  ASSERT_EQ(fs::path(m->create_partition("t", 0).log_dir), dirs_[0]);
  try {
    m->append("t", 0, 4 << 20);
    FAIL() << "4 MiB fitted on a 1 MiB disk";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kDirUnavailable);
    const std::string head = "Not enough space in log directory " + dirs_[0].string() +
                             " to append 4194304 bytes to t-0; ";
    EXPECT_EQ(std::string(e.what()).substr(0, head.size()), head) << e.what();
  }
  const auto after = m->describe();
  EXPECT_EQ(dir_of(after, dirs_[0]).error, StorageErrc::kNone);
  ASSERT_EQ(dir_of(after, dirs_[0]).partitions.size(), 1u);
  const uint64_t size = dir_of(after, dirs_[0]).partitions[0].size;
  EXPECT_LT(size, 1u << 20);
  EXPECT_EQ(file_size_or_zero(dirs_[0] / "t-0" / layout::segment_file(0)), size)
      << "a torn append was left behind";
  m.reset();
}

TEST_F(StorageSafetyTest, UnknownSpaceDoesNotRefuseAnAppend) {
  auto m = start();
  ASSERT_EQ(fs::path(m->create_partition("t", 0).log_dir), dirs_[0]);
  probe_->fail(dirs_[0]);
  EXPECT_EQ(m->append("t", 0, 4096), 4096u);
}

TEST_F(StorageSafetyTest, DeletionOnAnOfflineDirIsPendingThenCompletedAtTheNextStart) {
  {
    auto m = start();
    for (int32_t p = 0; p < 3; ++p) {
      ASSERT_EQ(fs::path(m->create_partition("t", p).log_dir), dirs_[static_cast<size_t>(p)]);
      m->append("t", p, 5000);
    }
    m->mark_offline(0, "read /x failed: Input/output error");
    const DeletedTopic done = m->delete_topic("t");
    EXPECT_EQ(done.deleted, 2u);
    ASSERT_EQ(done.pending.size(), 1u);
    EXPECT_EQ(done.pending[0].topic, "t");
    EXPECT_EQ(done.pending[0].partition, 0);
    EXPECT_EQ(done.pending[0].log_dir, dirs_[0].string());
    EXPECT_EQ(done.pending[0].reason, "read /x failed: Input/output error");
    EXPECT_TRUE(fs::exists(record_)) << "the pending deletion is not recorded";
    EXPECT_TRUE(fs::exists(dirs_[0] / "t-0")) << "an offline dir was written to";
    EXPECT_TRUE(served(*m).empty());
    EXPECT_THROW(m->append("t", 0, 100), StorageError);
    // A new t-0 starts empty in an online dir; the stale copy is not served again.
    EXPECT_EQ(fs::path(m->create_partition("t", 0).log_dir), dirs_[1]);
    EXPECT_EQ(served(*m), std::vector<std::string>{"d2/t-0"});
  }
  // The next start finds d1 readable: the stale t-0 is removed before anything is loaded, and the
  // record with it. The new t-0 is the only one.
  auto m = start();
  EXPECT_FALSE(fs::exists(dirs_[0] / "t-0"));
  EXPECT_FALSE(fs::exists(record_));
  EXPECT_EQ(served(*m), std::vector<std::string>{"d2/t-0"});
  EXPECT_EQ(dir_of(m->describe(), dirs_[0]).error, StorageErrc::kNone);
}

// A hand-edited lds.partition may hold any valid replica.id, up to 64 characters: longer than a
// hosted partition keeps inline. The record of its deletion names it whole, and it is matched
// whole.
TEST_F(StorageSafetyTest, AHandEditedLongReplicaIdIsRecordedAndMatchedWhole) {
  const std::string id(64, 'Z');
  {
    auto m = start();
    ASSERT_EQ(fs::path(m->create_partition("t", 0).log_dir), dirs_[0]);
  }
  std::ofstream(dirs_[0] / "t-0" / "lds.partition", std::ios::trunc)
      << "expected.bytes=0\nreplica.id=" << id << "\n";
  {
    auto m = start();
    m->mark_offline(0, "read-only");
    const DeletedTopic done = m->delete_topic("t");
    ASSERT_EQ(done.pending.size(), 1u);
    EXPECT_EQ(done.pending[0].replica_id, id);
  }
  auto m = start();  // d1 readable again: the replica with that id is the one removed
  EXPECT_FALSE(fs::exists(dirs_[0] / "t-0"));
  EXPECT_FALSE(fs::exists(record_));
  EXPECT_TRUE(served(*m).empty());
}

TEST_F(StorageSafetyTest, APendingDeletionWaitsWhileItsDirIsStillAway) {
  {
    auto m = start();
    m->create_partition("t", 0);
    m->mark_offline(0, "gone");
    ASSERT_EQ(m->delete_topic("t").pending.size(), 1u);
  }
  // The disk is not mounted at the next start: its mount point is empty.
  fs::rename(dirs_[0], tmp_.path() / "unmounted");
  {
    auto m = start();
    EXPECT_TRUE(served(*m).empty());
    EXPECT_TRUE(fs::exists(record_)) << "the record was dropped before its deletion was done";
  }
  // It comes back at the start after.
  fs::remove_all(dirs_[0]);
  fs::rename(tmp_.path() / "unmounted", dirs_[0]);
  auto m = start();
  EXPECT_FALSE(fs::exists(dirs_[0] / "t-0"));
  EXPECT_FALSE(fs::exists(record_));
  EXPECT_TRUE(served(*m).empty());
}

TEST_F(StorageSafetyTest, APendingDeletionForADiskReplacedSinceIsDropped) {
  {
    auto m = start();
    m->create_partition("t", 0);
    m->mark_offline(0, "gone");
    ASSERT_EQ(m->delete_topic("t").pending.size(), 1u);
  }
  // Another disk at the same path, with its own directory.id and its own t-0.
  fs::remove_all(dirs_[0]);
  fs::create_directories(dirs_[0] / "t-0");
  std::ofstream(dirs_[0] / "t-0" / layout::segment_file(0)) << "x";
  std::ofstream(dirs_[0] / "meta.properties")
      << "broker.id=0\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n";
  auto m = start();
  EXPECT_TRUE(fs::exists(dirs_[0] / "t-0"));
  EXPECT_FALSE(fs::exists(record_));
  EXPECT_EQ(served(*m), std::vector<std::string>{"d1/t-0"});
}

TEST_F(StorageSafetyTest, AMalformedRecordRefusesStartupAndIsLeftAsItIs) {
  const std::string text = "[[pending]]\ntopic = \"t\"\n";
  std::ofstream(record_) << text;
  try {
    start();
    FAIL() << "started with a malformed record";
  } catch (const ConfigError& e) {
    EXPECT_EQ(std::string(e.what()),
              "The pending deletions file " + record_.string() +
                  " has no partition number in entry 1; it is left as it is. Restore it, or "
                  "remove it to give up those deletions.");
  }
  std::ifstream in(record_);
  EXPECT_EQ(std::string(std::istreambuf_iterator<char>(in), {}), text);
}

// The same disk at another path: its directory.id, read under every log.dirs entry, says where the
// replica is now. A rename stands for the swap of mount points here; the next test swaps real ones.
TEST_F(StorageSafetyTest, APendingDeletionFollowsItsDiskToAnotherLogDir) {
  {
    auto m = start();
    ASSERT_EQ(fs::path(m->create_partition("gone", 0).log_dir), dirs_[0]);
    ASSERT_EQ(fs::path(m->create_partition("kept", 0).log_dir), dirs_[1]);
    m->mark_offline(0, "read-only");
    ASSERT_EQ(m->delete_topic("gone").pending.size(), 1u);
  }
  const fs::path spare = tmp_.path() / "spare";
  fs::rename(dirs_[0], spare);
  fs::rename(dirs_[1], dirs_[0]);
  fs::rename(spare, dirs_[1]);
  LogCapture log("lds.log_manager");
  auto m = start();
  EXPECT_EQ(served(*m), std::vector<std::string>{"d1/kept-0"});
  EXPECT_FALSE(fs::exists(dirs_[1] / "gone-0"));
  EXPECT_FALSE(fs::exists(record_));
  EXPECT_NE(log.text().find("Completed the pending deletion of gone-0 in " + dirs_[1].string() +
                            " (its directory.id "),
            std::string::npos)
      << log.text();
}

// The disk is under no log dir that can be read: it may be under the one that failed its checks,
// so the record is kept until it shows up.
TEST_F(StorageSafetyTest, APendingDeletionWaitsWhileALogDirThatMayHoldItsDiskIsOffline) {
  {
    auto m = start();
    ASSERT_EQ(fs::path(m->create_partition("gone", 0).log_dir), dirs_[0]);
    m->mark_offline(0, "read-only");
    ASSERT_EQ(m->delete_topic("gone").pending.size(), 1u);
  }
  const fs::path disk = tmp_.path() / "disk-a";
  fs::rename(dirs_[0], disk);
  fs::create_directories(dirs_[0]);  // another disk at d1, and d3 cannot be used
  std::ofstream(dirs_[0] / "meta.properties")
      << "broker.id=0\ndirectory.id=J8aAPcfLQt2bqs1JT_rMgQ\n";
  fs::remove_all(dirs_[2]);
  std::ofstream(dirs_[2]) << "not a directory";
  {
    LogCapture log("lds.log_manager");
    auto m = start();
    EXPECT_TRUE(served(*m).empty());
    EXPECT_TRUE(fs::exists(record_)) << "the record was dropped while its disk may be in d3";
    EXPECT_NE(log.text().find("The deletion of gone-0 in " + dirs_[0].string() +
                              " stays pending: no online log directory has its directory.id "),
              std::string::npos)
        << log.text();
  }
  fs::remove(dirs_[2]);
  fs::rename(disk, dirs_[2]);
  auto m = start();
  EXPECT_FALSE(fs::exists(dirs_[2] / "gone-0"));
  EXPECT_FALSE(fs::exists(record_));
  EXPECT_TRUE(served(*m).empty());
}

// Two tmpfs disks on `a` and `b`, in this test process's own mount namespace (root only); why()
// says why not. Unmounted when the object goes.
class TwoDisks {
 public:
  TwoDisks(const fs::path& a, const fs::path& b, fs::path spare)
      : points_{a, b}, spare_(std::move(spare)) {
    if (::geteuid() != 0) {
      why_ = "not running as root, so tmpfs disks cannot be mounted";
      return;
    }
    why_ = test::use_private_mount_namespace();
    for (size_t i = 0; i < 2 && why_.empty(); ++i) {
      fs::create_directories(points_[i]);
      if (::mount("tmpfs", points_[i].c_str(), "tmpfs", 0, "size=4m,mode=0755") != 0) {
        why_ = "mount -t tmpfs on " + points_[i].string() + " failed: " + std::strerror(errno);
      } else {
        mounted_ = i + 1;
      }
    }
  }
  ~TwoDisks() {
    for (size_t i = 0; i < mounted_; ++i) {
      if (::umount2(points_[i].c_str(), 0) != 0) ::umount2(points_[i].c_str(), MNT_DETACH);
    }
  }
  TwoDisks(const TwoDisks&) = delete;
  TwoDisks& operator=(const TwoDisks&) = delete;
  const std::string& why() const { return why_; }

  // Remounts the disk on mount point `i` read-only, or writable again; "" or why not.
  std::string set_read_only(size_t i, bool read_only) const {
    const unsigned long flags = MS_REMOUNT | (read_only ? MS_RDONLY : 0);
    if (::mount("tmpfs", points_[i].c_str(), "tmpfs", flags, nullptr) == 0) return "";
    return "remount of " + points_[i].string() + " failed: " + std::strerror(errno);
  }
  // Swaps the two disks' mount points, as an fstab that names disks by device order does after a
  // reboot finds them in another order; "" or why not.
  std::string swap() const {
    fs::create_directories(spare_);
    for (const auto& [from, to] : {std::pair{points_[0], spare_}, std::pair{points_[1], points_[0]},
                                   std::pair{spare_, points_[1]}}) {
      if (::mount(from.c_str(), to.c_str(), nullptr, MS_MOVE, nullptr) != 0) {
        return "mount --move " + from.string() + " " + to.string() +
               " failed: " + std::strerror(errno);
      }
    }
    return "";
  }

 private:
  std::array<fs::path, 2> points_;
  fs::path spare_;
  size_t mounted_ = 0;
  std::string why_;
};

TEST_F(StorageSafetyTest, ATopicDeletedOnAReadOnlyDiskStaysDeletedAfterTheMountPointsSwap) {
  TwoDisks disks(dirs_[0], dirs_[1], tmp_.path() / "spare");
  if (!disks.why().empty()) GTEST_SKIP() << disks.why();
  {
    auto m = start();
    ASSERT_EQ(fs::path(m->create_partition("gone", 0).log_dir), dirs_[0]);
    ASSERT_EQ(fs::path(m->create_partition("kept", 0).log_dir), dirs_[1]);
    ASSERT_EQ(m->append("gone", 0, 5000), 5000u);
    ASSERT_EQ(m->append("kept", 0, 7000), 7000u);
    ASSERT_EQ(disks.set_read_only(0, true), "");
    const DeletedTopic done = m->delete_topic("gone");
    ASSERT_EQ(done.pending.size(), 1u) << "the read-only disk's replica is not answered pending";
    EXPECT_EQ(done.pending[0].log_dir, dirs_[0].string());
    EXPECT_TRUE(served(*m) == std::vector<std::string>{"d2/kept-0"});
  }
  // Writable again, and the disks are on each other's mount point at the restart.
  ASSERT_EQ(disks.set_read_only(0, false), "");
  ASSERT_EQ(disks.swap(), "");
  ASSERT_TRUE(fs::exists(dirs_[1] / "gone-0"));
  ASSERT_TRUE(fs::exists(dirs_[0] / "kept-0"));
  {
    auto m = start();
    ASSERT_EQ(served(*m), std::vector<std::string>{"d1/kept-0"}) << "the deleted topic came back";
    EXPECT_EQ(dir_of(m->describe(), dirs_[0]).partitions[0].size, 7000u);
    EXPECT_FALSE(fs::exists(dirs_[1] / "gone-0"));
    EXPECT_FALSE(fs::exists(record_));
  }
  auto m = start();
  EXPECT_EQ(served(*m), std::vector<std::string>{"d1/kept-0"});
}

// A record that outlived its deletion (restored with the config folder from a backup) names the
// replica that was deleted; the partition created since under the same name is another one.
TEST_F(StorageSafetyTest, AStaleRecordDoesNotDeleteAPartitionCreatedAgainUnderTheSameName) {
  {
    auto m = start();
    ASSERT_EQ(fs::path(m->create_partition("gone", 0).log_dir), dirs_[0]);
    m->mark_offline(0, "read-only");
    ASSERT_EQ(m->delete_topic("gone").pending.size(), 1u);
  }
  const fs::path saved = tmp_.path() / "saved-record";
  fs::copy_file(record_, saved);
  {
    auto m = start();
    EXPECT_FALSE(fs::exists(dirs_[0] / "gone-0"));
    ASSERT_EQ(fs::path(m->create_partition("gone", 0).log_dir), dirs_[0]);
    ASSERT_EQ(m->append("gone", 0, 5000), 5000u);
  }
  fs::copy_file(saved, record_);
  LogCapture log("lds.log_manager");
  auto m = start();
  ASSERT_EQ(served(*m), std::vector<std::string>{"d1/gone-0"});
  EXPECT_EQ(dir_of(m->describe(), dirs_[0]).partitions[0].size, 5000u);
  EXPECT_FALSE(fs::exists(record_));
  EXPECT_NE(log.text().find("Dropping the pending deletion of gone-0 in " + dirs_[0].string() +
                            ": the gone-0 there is replica.id "),
            std::string::npos)
      << log.text();
}

// A record written before it named the replica (no replica_id) still deletes by the name.
TEST_F(StorageSafetyTest, ARecordWithoutAReplicaIdDeletesByTheName) {
  std::string directory_id;
  {
    auto m = start();
    ASSERT_EQ(fs::path(m->create_partition("t", 0).log_dir), dirs_[0]);
    directory_id = dir_of(m->describe(), dirs_[0]).directory_id;
  }
  std::ofstream(record_) << "[[pending]]\ndirectory_id = \"" << directory_id << "\"\nlog_dir = \""
                         << dirs_[0].string()
                         << "\"\npartition = 0\nreason = \"gone\"\ntopic = \"t\"\n";
  auto m = start();
  EXPECT_FALSE(fs::exists(dirs_[0] / "t-0"));
  EXPECT_FALSE(fs::exists(record_));
  EXPECT_TRUE(served(*m).empty());
}

// What a stateful strategy hears through placed (ABI 1.2) when a disk fails under a creation: the
// dir that really took the partition, never the one its ranking put first, and nothing for a
// creation that failed or for a replica a restart found again. recent_placements journals each
// placed call, and ranks the dirs in log.dirs order while none has taken a partition.
class PlacedOnFailingDisksTest : public StorageSafetyTest {
 protected:
  void use_recent_placements() {
    StrategyLoadSpec spec;
    spec.plugin_dir = LDS_RECENT_PLACEMENTS_DIR;
    spec.name = "recent_placements";
    spec.options = {{"journal", journal_.string()}};
    spec.generation = slot_.next_generation();
    slot_.publish(LoadedStrategy::load(spec));
  }
  // "placed t-0 <dir>" lines, without the prefix.
  std::vector<std::string> placed_lines() const {
    std::ifstream in(journal_);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) {
      if (line.starts_with("placed ")) out.push_back(line.substr(7));
    }
    return out;
  }
  // Fills the filesystem under `dir` (a 4 MiB tmpfs) until it refuses another byte.
  static void fill(const fs::path& dir) {
    std::ofstream out(dir / "filler", std::ios::binary);
    const std::string chunk(64 * 1024, 'x');
    for (int i = 0; i < 128 && out; ++i) out.write(chunk.data(), chunk.size()).flush();
  }

  fs::path journal_ = tmp_.path() / "recent.journal";
};

TEST_F(PlacedOnFailingDisksTest, AFullDirIsPassedOverAndPlacedHearsTheDirThatTookIt) {
  TwoDisks disks(dirs_[0], dirs_[1], tmp_.path() / "spare");
  if (!disks.why().empty()) GTEST_SKIP() << disks.why();
  {
    auto m = start();
    use_recent_placements();
    fill(dirs_[0]);
    EXPECT_EQ(fs::path(m->create_partition("t", 0).log_dir), dirs_[1]);
    EXPECT_EQ(dir_of(m->describe(), dirs_[0]).error, StorageErrc::kNone) << "full, not offline";
  }
  EXPECT_EQ(placed_lines(), std::vector<std::string>{"t-0 " + dirs_[1].string()});
  // A restart (as after kill -9) finds t-0 again: that is no creation, and placed hears nothing.
  auto again = start();
  use_recent_placements();
  EXPECT_EQ(served(*again), std::vector<std::string>{"d2/t-0"});
  EXPECT_EQ(placed_lines().size(), 1u);
}

TEST_F(PlacedOnFailingDisksTest, AReadOnlyDirGoesOfflineAndPlacedHearsTheNextDir) {
  TwoDisks disks(dirs_[0], dirs_[1], tmp_.path() / "spare");
  if (!disks.why().empty()) GTEST_SKIP() << disks.why();
  auto m = start();
  use_recent_placements();
  ASSERT_EQ(disks.set_read_only(0, true), "");
  EXPECT_EQ(fs::path(m->create_partition("t", 0).log_dir), dirs_[1]);
  EXPECT_EQ(dir_of(m->describe(), dirs_[0]).error, StorageErrc::kDirUnavailable);
  EXPECT_EQ(placed_lines(), std::vector<std::string>{"t-0 " + dirs_[1].string()});
  m.reset();
  ASSERT_EQ(disks.set_read_only(0, false), "");
}

TEST_F(PlacedOnFailingDisksTest, ACreationNoDirCouldTakeTellsPlacedNothing) {
  TwoDisks disks(dirs_[0], dirs_[1], tmp_.path() / "spare");
  if (!disks.why().empty()) GTEST_SKIP() << disks.why();
  auto m = start();
  use_recent_placements();
  m->set_cordoned([&](const fs::path& d) { return d == dirs_[2]; });
  ASSERT_EQ(disks.set_read_only(0, true), "");
  fill(dirs_[1]);
  EXPECT_THROW(m->create_partition("t", 0), StorageError);
  EXPECT_TRUE(placed_lines().empty());
  // The journal shows the PLACE rank that was made: the plugin was asked, and told nothing after.
  std::ifstream in(journal_);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("rank PLACE t-0"), std::string::npos) << text;
  m.reset();
  ASSERT_EQ(disks.set_read_only(0, false), "");
}

}  // namespace
}  // namespace lds
