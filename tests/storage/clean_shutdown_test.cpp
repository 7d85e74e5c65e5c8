// clean_shutdown_test.cpp: Kafka's recovery-point checkpoint and .kafka_cleanshutdown marker, and
// what a start does with them: logs a clean shutdown left are taken as they are; anything else (a
// kill -9, a hand edit, a torn or foreign file, a full or read-only disk at the shutdown) is read
// through as before.
#include "storage/clean_shutdown.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>

#include "file_bytes.h"
#include "io/log_layout.h"
#include "own_disk.h"
#include "temp_dir.h"
#include "three_dir_test.h"
#include "util/errors.h"

namespace lds {
namespace {

namespace fs = std::filesystem;

void write(const fs::path& file, const std::string& text) {
  std::ofstream(file, std::ios::binary | std::ios::trunc) << text;
}

// Sets `file`'s modification time back by `seconds`: what a tool that keeps times (cp -p, rsync -t,
// touch -r) leaves.
void age(const fs::path& file, int seconds) {
  fs::last_write_time(file, fs::last_write_time(file) - std::chrono::seconds(seconds));
}

TEST(CleanShutdownFiles, AreKafkasCheckpointAndMarker) {
  test::TempDir tmp;
  record_clean_shutdown(tmp.path(), {{{"b", 1}, 0}, {{"a", 0}, 5}});
  EXPECT_EQ(test::file_bytes(tmp.path() / kRecoveryPointFile), "0\n2\na 0 5\nb 1 0\n");
  EXPECT_EQ(test::file_bytes(tmp.path() / kCleanShutdownFile), R"({"version":0,"brokerEpoch":-1})");
  const std::optional<CleanShutdown> read = read_clean_shutdown(tmp.path());
  ASSERT_TRUE(read);
  EXPECT_EQ(read->recovery_points,
            (std::map<CheckpointKey, int64_t>{{{"a", 0}, 5}, {{"b", 1}, 0}}));
  forget_clean_shutdown(tmp.path());
  EXPECT_FALSE(fs::exists(tmp.path() / kCleanShutdownFile));
  EXPECT_TRUE(fs::exists(tmp.path() / kRecoveryPointFile)) << "Kafka keeps its checkpoint";
  EXPECT_FALSE(read_clean_shutdown(tmp.path())) << "a checkpoint without the marker is no shutdown";
  forget_clean_shutdown(tmp.path());  // nothing to remove: no error
}

TEST(CleanShutdownFiles, AHandEditedOrMissingCheckpointIsNotTrusted) {
  const std::vector<std::string> bad = {
      "",                      // empty
      "1\n0\n",                // another version
      "0\nx\n",                // no count
      "0\n2\na 0 5\n",         // fewer entries than its count
      "0\n1\na 0 5\nb 0 1\n",  // more
      "0\n1\na 0\n",           // no offset
      "0\n1\na -1 5\n",        // a negative partition
      "0\n1\na 0 -5\n",        // a negative offset
      "0\n2\na 0 5\na 0 6\n",  // twice
      "0\n1\n 0 5\n",          // no topic
  };
  for (const std::string& text : bad) {
    test::TempDir tmp;
    record_clean_shutdown(tmp.path(), {});
    write(tmp.path() / kRecoveryPointFile, text);
    age(tmp.path() / kRecoveryPointFile, 60);  // not newer than the marker: read and refused
    EXPECT_FALSE(read_clean_shutdown(tmp.path())) << "trusted: \"" << text << "\"";
  }
  test::TempDir tmp;
  record_clean_shutdown(tmp.path(), {{{"a", 0}, 5}});
  // Edited after the shutdown (file times are as fine as the kernel's clock tick, a few ms).
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write(tmp.path() / kRecoveryPointFile, "0\n1\na 0 9\n");
  EXPECT_FALSE(read_clean_shutdown(tmp.path()));
  fs::remove(tmp.path() / kRecoveryPointFile);
  EXPECT_FALSE(read_clean_shutdown(tmp.path()));
}

TEST(CleanShutdownFiles, OnlyAMarkerAsKafkaWritesItVouchesForTheLogs) {
  const std::vector<std::pair<std::string, bool>> markers = {
      {R"({"version":0,"brokerEpoch":-1})", true},
      {R"({"brokerEpoch":42,"version":0})", true},  // Kafka's, its fields in another order
      {"{ \"version\": 0 }\n", true},
      {"", false},
      {R"({"version":0,"broker)", false},  // torn
      {R"({"version":1,"brokerEpoch":-1})", false},
      {R"({"version":01})", false},
      {R"({"subversion":0})", false},
      {"clean", false},
  };
  for (const auto& [text, trusted] : markers) {
    test::TempDir tmp;
    record_clean_shutdown(tmp.path(), {{{"a", 0}, 5}});
    age(tmp.path() / kRecoveryPointFile, 60);
    write(tmp.path() / kCleanShutdownFile, text);
    EXPECT_EQ(read_clean_shutdown(tmp.path()).has_value(), trusted) << "\"" << text << "\"";
  }
}

class CleanRestartTest : public test::ThreeDirTest {
 protected:
  // t-0 with three appends in the dir it went to; returns that dir.
  fs::path make_log(LogManager& m) {
    const fs::path dir = m.create_partition("t", 0).log_dir;
    for (int i = 0; i < 3; ++i) m.append("t", 0, 1000);
    return dir;
  }
  // A broker that wrote t-0 (make_log, with `segment_bytes` when given) and shut down cleanly;
  // returns t-0's dir, and in `before` its offsets at the shutdown.
  fs::path shut_down_with_a_log(LogManager::LogOffsets* before = nullptr,
                                uint64_t segment_bytes = 0) {
    auto m = make();
    if (segment_bytes > 0) m->set_segment_bytes(segment_bytes);
    const fs::path dir = make_log(*m);
    if (before != nullptr) *before = offsets(*m);
    m->shutdown();
    return dir;
  }
  static LogManager::LogOffsets offsets(const LogManager& m) {
    return m.log_offsets(TopicPartition{"t", 0});
  }
  // Breaks the first batch of t-0's segment in place and gives the file back its time: a start
  // that reads the log refuses it, one that takes the log as the shutdown left it does not look.
  static void break_first_batch_keeping_the_time(const fs::path& dir) {
    const fs::path segment = dir / "t-0" / layout::segment_file(0);
    const auto time = fs::last_write_time(segment);
    std::fstream f(segment, std::ios::binary | std::ios::in | std::ios::out);
    f.seekp(20);
    f.put('\x7f');
    f.close();
    fs::last_write_time(segment, time);
  }
};

TEST_F(CleanRestartTest, ALogTheShutdownLeftIsTakenAsItIsAndGrowsFromItsEnd) {
  LogManager::LogOffsets before;
  const fs::path dir = shut_down_with_a_log(&before);
  for (const fs::path& d : dirs_) EXPECT_TRUE(fs::exists(d / kCleanShutdownFile)) << d;
  EXPECT_EQ(test::file_bytes(dir / kRecoveryPointFile),
            "0\n1\nt 0 " + std::to_string(before.log_end_offset) + "\n");
  break_first_batch_keeping_the_time(dir);
  auto m = make();  // not read: no refusal
  EXPECT_EQ(offsets(*m).log_end_offset, before.log_end_offset);
  EXPECT_EQ(offsets(*m).log_start_offset, before.log_start_offset);
  for (const fs::path& d : dirs_) {
    EXPECT_FALSE(fs::exists(d / kCleanShutdownFile)) << "a start removes the marker: " << d;
  }
  m->append("t", 0, 1000);
  EXPECT_GT(offsets(*m).log_end_offset, before.log_end_offset);
}

TEST_F(CleanRestartTest, WithoutTheMarkerEveryLogIsReadThrough) {
  auto m = make();
  const fs::path dir = make_log(*m);
  m.reset();  // as after a kill -9: no shutdown recorded
  break_first_batch_keeping_the_time(dir);
  EXPECT_THROW(make(), ConfigError);
}

TEST_F(CleanRestartTest, ACrashAfterACleanStartIsReadThrough) {
  const fs::path dir = shut_down_with_a_log();
  auto m = make();  // takes the marker away
  m->append("t", 0, 1000);
  m.reset();  // a kill -9 now
  break_first_batch_keeping_the_time(dir);
  EXPECT_THROW(make(), ConfigError);
}

TEST_F(CleanRestartTest, ASegmentWrittenAfterTheShutdownIsReadThroughAndATornTailCut) {
  LogManager::LogOffsets before;
  const fs::path dir = shut_down_with_a_log(&before);
  const fs::path segment = dir / "t-0" / layout::segment_file(0);
  const uintmax_t size = fs::file_size(segment);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::ofstream(segment, std::ios::binary | std::ios::app) << "half a batch";
  auto m = make();
  EXPECT_EQ(offsets(*m).log_end_offset, before.log_end_offset);
  EXPECT_EQ(fs::file_size(segment), size) << "the torn tail was not cut";
}

// A marker rewritten by hand after a segment was: the bound is the checkpoint's time, not the
// marker's, so the segment is still read through and its torn tail cut.
TEST_F(CleanRestartTest, AMarkerRewrittenAfterASegmentDoesNotVouchForIt) {
  LogManager::LogOffsets before;
  const fs::path dir = shut_down_with_a_log(&before);
  const fs::path segment = dir / "t-0" / layout::segment_file(0);
  const uintmax_t size = fs::file_size(segment);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::ofstream(segment, std::ios::binary | std::ios::app) << "half a batch";
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  write(dir / kCleanShutdownFile, R"({"version":0,"brokerEpoch":-1})");
  auto m = make();
  EXPECT_EQ(offsets(*m).log_end_offset, before.log_end_offset);
  EXPECT_EQ(fs::file_size(segment), size) << "the torn tail was not cut";
}

// A partition removed by hand after the shutdown is simply gone; the others are taken as they are.
TEST_F(CleanRestartTest, APartitionDeletedByHandAfterTheShutdownIsGoneAndTheRestStays) {
  auto m = make();
  const fs::path dir = make_log(*m);
  const fs::path other = m->create_partition("u", 0).log_dir;
  m->append("u", 0, 1000);
  const LogManager::LogOffsets u = m->log_offsets(TopicPartition{"u", 0});
  m->shutdown();
  m.reset();
  fs::remove_all(dir / "t-0");
  m = make();
  EXPECT_EQ(m->partition_count(), 1u);
  EXPECT_EQ(m->log_offsets(TopicPartition{"u", 0}).log_end_offset, u.log_end_offset);
  EXPECT_TRUE(fs::exists(fs::path(other) / "u-0"));
}

// A kill -9 inside the shutdown's atomic write leaves its temp file beside the old checkpoint and
// no new marker: the start logs the temp file, removes nothing, and reads every log through.
TEST_F(CleanRestartTest, AShutdownKilledMidWriteLeavesATempFileAndNoTrust) {
  const fs::path dir = shut_down_with_a_log();
  fs::remove(dir / kCleanShutdownFile);  // the marker comes after the checkpoint: not written yet
  const fs::path temp = dir / ".recovery-point-offset-checkpoint.Ab12Cd";
  write(temp, "0\n1\nt 0");
  break_first_batch_keeping_the_time(dir);
  EXPECT_THROW(make(), ConfigError) << "a log was trusted without a marker";
  EXPECT_TRUE(fs::exists(temp)) << "a start removed a file it does not own";
}

TEST_F(CleanRestartTest, ASegmentRenamedAfterTheShutdownIsReadThroughAndRefused) {
  const fs::path dir = shut_down_with_a_log(nullptr, 1500);
  const fs::path p = dir / "t-0";
  std::vector<fs::path> segments;
  for (const auto& e : fs::directory_iterator(p)) {
    if (e.path().extension() == ".log") segments.push_back(e.path());
  }
  std::sort(segments.begin(), segments.end());
  ASSERT_GE(segments.size(), 2u);
  const int64_t base = std::stoll(segments.back().stem().string());
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  fs::rename(segments.back(), p / layout::segment_file(base + 1));  // keeps its own time
  EXPECT_THROW(make(), ConfigError);
}

TEST_F(CleanRestartTest, ACheckpointThatDoesNotMatchTheFilesIsReadThrough) {
  LogManager::LogOffsets before;
  const fs::path dir = shut_down_with_a_log(&before);
  // An end offset before the last segment's base would lose records; the files are read instead.
  write(dir / kRecoveryPointFile, "0\n1\nt 0 0\n");
  age(dir / kRecoveryPointFile, 60);
  auto m = make();
  EXPECT_EQ(offsets(*m).log_end_offset, before.log_end_offset);
}

TEST_F(CleanRestartTest, ARefusedStartLeavesTheMarker) {
  const fs::path dir = shut_down_with_a_log();
  // The same partition in a second dir, which no move explains: the start is refused.
  const fs::path other = dir == dirs_[0] ? dirs_[1] : dirs_[0];
  fs::copy(dir / "t-0", other / "t-0", fs::copy_options::recursive);
  EXPECT_THROW(make(), ConfigError);
  EXPECT_TRUE(fs::exists(dir / kCleanShutdownFile));
  EXPECT_TRUE(fs::exists(other / kCleanShutdownFile));
}

class CleanShutdownOnADisk : public CleanRestartTest, public ::testing::WithParamInterface<bool> {};

TEST_P(CleanShutdownOnADisk, AFullDiskGetsNoMarkerAndItsLogsAreReadThrough) {
  test::OwnDisk disk(dirs_[0], tmp_.path() / "d1.img", GetParam());
  if (!disk.why().empty()) GTEST_SKIP() << disk.why();
  auto m = make();
  m->create_partition("t", 0);  // the partition strategy: the first of three empty dirs
  m->create_partition("t", 1);
  m->create_partition("t", 2);
  const fs::path d1 = dirs_[0];
  m->append("t", 0, 1000);
  disk.fill();
  m->shutdown();  // one WARN line for d1; the others are recorded
  m.reset();
  EXPECT_FALSE(fs::exists(d1 / kCleanShutdownFile));
  EXPECT_TRUE(fs::exists(dirs_[1] / kCleanShutdownFile));
  fs::remove(d1 / "filler");
  m = make();
  EXPECT_EQ(m->partition_count(), 3u);
  EXPECT_GT(m->log_offsets(TopicPartition{"t", 0}).log_end_offset, 0);
}

TEST_P(CleanShutdownOnADisk, AReadOnlyDiskGetsNoMarker) {
  test::OwnDisk disk(dirs_[0], tmp_.path() / "d1.img", GetParam());
  if (!disk.why().empty()) GTEST_SKIP() << disk.why();
  auto m = make();
  m->create_partition("t", 0);
  m->append("t", 0, 1000);
  ASSERT_EQ(disk.remount(true), "");
  m->shutdown();
  m.reset();
  ASSERT_EQ(disk.remount(false), "");
  EXPECT_FALSE(fs::exists(dirs_[0] / kCleanShutdownFile));
  m = make();
  EXPECT_GT(m->log_offsets(TopicPartition{"t", 0}).log_end_offset, 0);
}

INSTANTIATE_TEST_SUITE_P(TmpfsAndExt4, CleanShutdownOnADisk, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "ext4" : "tmpfs"; });

}  // namespace
}  // namespace lds
