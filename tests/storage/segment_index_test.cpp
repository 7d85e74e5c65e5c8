// segment_index_test.cpp: Kafka's offset and time indexes of a segment: their bytes and their rule,
// reads and time lookups that use them and agree with a walk of the whole log, and what a
// missing, torn, hand-edited or unwritable index does (nothing but a rebuild).
#include "storage/segment_index.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include "file_bytes.h"
#include "io/durable_file.h"
#include "io/log_layout.h"
#include "model/record_batch.h"
#include "own_disk.h"
#include "storage/partition_log.h"
#include "temp_dir.h"

namespace lds {
namespace {

namespace fs = std::filesystem;
using kafka::Record;

constexpr int64_t kT0 = 1700000000000;

// A client batch of `n` records of `value_bytes` each, whose record times are kT0 plus `deltas`
// (cycled).
std::string batch_of(int n, size_t value_bytes, std::vector<int64_t> deltas = {0}) {
  std::vector<Record> records;
  for (int i = 0; i < n; ++i) {
    Record r;
    r.offset_delta = i;
    r.timestamp_delta = deltas[static_cast<size_t>(i) % deltas.size()];
    r.value = std::string(value_bytes, static_cast<char>('a' + i % 26));
    records.push_back(std::move(r));
  }
  return kafka::build_batch(0, kT0, records);
}

std::string file(const fs::path& p) { return fs::exists(p) ? test::file_bytes(p) : std::string(); }

// Every batch of the log, as (base offset, last offset, max timestamp), by walking the files.
struct Walked {
  int64_t base, last, max_timestamp;
};
std::vector<Walked> walk(const fs::path& dir, const PartitionLog& log) {
  std::vector<Walked> out;
  for (const LogSegment& s : log.segments()) {
    const std::string bytes =
        file(dir / layout::segment_file(static_cast<uint64_t>(s.base_offset)));
    for (std::string_view b : kafka::split_batches(bytes)) {
      const kafka::RecordBatchHeader h = kafka::read_batch_header(b);
      out.push_back({h.base_offset, h.base_offset + h.last_offset_delta, h.max_timestamp});
    }
  }
  return out;
}

class SegmentIndexTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path() / "t-0";
    fs::create_directory(dir_);
    std::ofstream(dir_ / layout::segment_file(0));
  }
  fs::path index_of(int64_t base) const { return segment_index::offset_index_path(dir_, base); }
  fs::path times_of(int64_t base) const { return segment_index::time_index_path(dir_, base); }

  // A log of `batches` appends of batch_of(records, value_bytes) with times going up and down,
  // rolled at `segment_bytes`.
  PartitionLog filled(int batches, int records, size_t value_bytes, uint64_t segment_bytes,
                      uint32_t interval = kDefaultIndexIntervalBytes) {
    PartitionLog log = PartitionLog::empty();
    std::mt19937 rng(7);
    for (int i = 0; i < batches; ++i) {
      std::string b = batch_of(records, value_bytes,
                               {int64_t{i} * 10 + static_cast<int64_t>(rng() % 30), i % 7});
      log.append(dir_, b, segment_bytes, interval);
    }
    return log;
  }

  // Every offset of the log read back: the first batch returned holds it.
  void expect_every_offset_read(const PartitionLog& log, uint32_t interval) {
    for (int64_t o = 0; o < log.log_end_offset(); ++o) {
      const std::string got = log.read(dir_, o, 1, interval);
      ASSERT_FALSE(got.empty()) << o;
      const kafka::RecordBatchHeader h = kafka::read_batch_header(got);
      ASSERT_LE(h.base_offset, o);
      ASSERT_GE(h.base_offset + h.last_offset_delta, o);
    }
  }

  test::TempDir tmp_;
  fs::path dir_;
};

TEST_F(SegmentIndexTest, EntriesFollowKafkasRuleInKafkasBytes) {
  // Batches of one size S: with interval 2S, batch k (at k*S) gets an entry when k*S - the last
  // entry's position > 2S: batches 3, 6, 9, ...
  const std::string one = batch_of(1, 100);
  const uint64_t s = one.size();
  PartitionLog log = PartitionLog::empty();
  for (int i = 0; i < 10; ++i) {
    std::string b = batch_of(1, 100, {i == 4 ? -5 : i});  // batch 4 is older than batch 3
    log.append(dir_, b, 1 << 20, static_cast<uint32_t>(2 * s));
  }
  std::string want_offsets, want_times;
  for (uint32_t k : {3u, 6u, 9u}) {
    for (uint32_t v : {k, static_cast<uint32_t>(k * s)}) {
      for (int i = 3; i >= 0; --i) want_offsets.push_back(static_cast<char>(v >> (8 * i)));
    }
    // The greatest time so far (batch k's own, kT0 + k) and the offset that has it.
    const uint64_t t = static_cast<uint64_t>(kT0 + k);
    for (int i = 7; i >= 0; --i) want_times.push_back(static_cast<char>(t >> (8 * i)));
    for (int i = 3; i >= 0; --i) want_times.push_back(static_cast<char>(k >> (8 * i)));
  }
  EXPECT_EQ(file(index_of(0)), want_offsets);
  EXPECT_EQ(file(times_of(0)), want_times);
}

TEST_F(SegmentIndexTest, AClosedSegmentEndsItsTimeIndexWithItsLargestTime) {
  const std::string one = batch_of(1, 100, {42});
  PartitionLog log = PartitionLog::empty();
  for (int i = 0; i < 3; ++i) {
    std::string b = one;
    log.append(dir_, b, 2 * one.size());  // the third rolls
  }
  ASSERT_EQ(log.segments().size(), 2u);
  std::string want;
  for (int i = 7; i >= 0; --i) want.push_back(static_cast<char>((kT0 + 42) >> (8 * i)));
  want += std::string(4, '\0');  // offset 0: the first batch to reach that time
  EXPECT_EQ(file(times_of(0)), want);
}

TEST_F(SegmentIndexTest, ReadsAtEveryOffsetAgreeWithTheWalkAcrossSegments) {
  const PartitionLog log = filled(600, 3, 40, 32 << 10, 512);
  ASSERT_GT(log.segments().size(), 2u);
  ASSERT_GT(fs::file_size(index_of(0)), 8u * 10);
  expect_every_offset_read(log, 512);
}

TEST_F(SegmentIndexTest, ARebuiltIndexIsByteForByteTheOneAppendsWrote) {
  const PartitionLog log = filled(400, 2, 60, 24 << 10, 700);
  ASSERT_GT(log.segments().size(), 2u);
  std::map<fs::path, std::string> written;
  for (const LogSegment& s : log.segments()) {
    for (const fs::path& p : {index_of(s.base_offset), times_of(s.base_offset)}) {
      written[p] = file(p);
      fs::remove(p);
    }
  }
  // A restart finds no index: reads rebuild each one they need, as it was.
  PartitionLog again = PartitionLog::scan(dir_).log;
  expect_every_offset_read(again, 700);
  (void)again.batch_at_timestamp(dir_, kT0 + 1'000'000, 700);  // every closed segment's largest
  for (const auto& [p, bytes] : written) EXPECT_EQ(file(p), bytes) << p;
}

TEST_F(SegmentIndexTest, AnIndexTornOrEditedByHandIsRebuiltAndNoReadGoesWrong) {
  filled(300, 2, 60, 1 << 20, 500);
  const std::string good = file(index_of(0));
  ASSERT_GT(good.size(), 8u * 20);
  const std::vector<std::pair<std::string, std::string>> damages = {
      {"torn mid-entry", good.substr(0, good.size() - 3)},
      {"cut to half", good.substr(0, good.size() / 16 * 8)},
      {"zeros appended", good + std::string(16, '\0')},
      {"an entry pointing elsewhere",
       [&] {
         std::string e = good;
         e[8 * 5 + 7] = static_cast<char>(e[8 * 5 + 7] + 1);  // entry 5's position, one byte on
         return e;
       }()},
      {"entries swapped",
       [&] {
         std::string e = good;
         std::swap_ranges(e.begin() + 8 * 2, e.begin() + 8 * 3, e.begin() + 8 * 9);
         return e;
       }()},
      {"empty", ""},
  };
  for (size_t i = 0; i < damages.size(); ++i) {
    const auto& [what, bytes] = damages[i];
    SCOPED_TRACE(what);
    dir_ = tmp_.path() / ("t-" + std::to_string(i + 1));
    fs::create_directory(dir_);
    std::ofstream(dir_ / layout::segment_file(0));
    filled(300, 2, 60, 1 << 20, 500);
    {
      std::ofstream out(index_of(0), std::ios::binary | std::ios::trunc);
      out << bytes;
    }
    PartitionLog restarted = PartitionLog::scan(dir_).log;
    expect_every_offset_read(restarted, 500);
    // And appends go on from a whole index: it ends as a fresh build of the segment would.
    std::string b = batch_of(2, 60, {3});
    restarted.append(dir_, b, 1 << 20, 500);
    const segment_index::BuiltIndex built =
        segment_index::build(dir_, 0, restarted.segments().back().bytes, 500);
    EXPECT_EQ(file(index_of(0)), built.offset_entries);
    EXPECT_EQ(file(times_of(0)), built.time_entries);
  }
}

TEST_F(SegmentIndexTest, ARebuildRemovesTheTempFilesOfOneACrashCutShort) {
  filled(300, 2, 60, 1 << 20, 500);
  // What a kill -9 inside write_file_atomically leaves: the temp file, the old index.
  const fs::path temp = dir_ / ".00000000000000000000.index.Ab3xYz";
  const fs::path time_temp = dir_ / ".00000000000000000000.timeindex.Q9w8E7";
  std::ofstream(temp) << "half a rebuilt index";
  std::ofstream(time_temp) << "";
  const fs::path other = dir_ / ".lds.partition.Zz1234";  // not an index's: left alone
  std::ofstream(other) << "";
  {
    std::ofstream out(index_of(0), std::ios::binary | std::ios::trunc);
    out << "torn";
  }
  const PartitionLog restarted = PartitionLog::scan(dir_).log;
  expect_every_offset_read(restarted, 500);
  EXPECT_FALSE(fs::exists(temp));
  EXPECT_FALSE(fs::exists(time_temp));
  EXPECT_TRUE(fs::exists(other));
}

TEST_F(SegmentIndexTest, AHandEditedTimeIndexCannotMoveAnAnswer) {
  filled(300, 2, 60, 1 << 20, 500);
  std::string std_times = file(times_of(0));
  ASSERT_GT(std_times.size(), 12u * 5);
  const PartitionLog fresh = PartitionLog::scan(dir_).log;
  const std::optional<std::string> before = fresh.batch_at_timestamp(dir_, kT0 + 1500, 500);
  ASSERT_TRUE(before);
  // Entry 2's offset moved far on: a lookup through it would start past the answer.
  std_times[12 * 2 + 11] = static_cast<char>(std_times[12 * 2 + 11] + 100);
  {
    std::ofstream out(times_of(0), std::ios::binary | std::ios::trunc);
    out << std_times;
  }
  const PartitionLog restarted = PartitionLog::scan(dir_).log;
  for (int64_t t = kT0; t < kT0 + 3100; t += 37) {
    const std::optional<std::string> got = restarted.batch_at_timestamp(dir_, t, 500);
    const std::optional<std::string> want = fresh.batch_at_timestamp(dir_, t, 500);
    ASSERT_EQ(got.has_value(), want.has_value()) << t;
    if (got) {
      EXPECT_EQ(kafka::read_batch_header(*got).base_offset,
                kafka::read_batch_header(*want).base_offset)
          << t;
    }
  }
}

TEST_F(SegmentIndexTest, TimeLookupsAgreeWithAWalkOfEveryBatch) {
  const PartitionLog log = filled(500, 3, 40, 16 << 10, 400);
  ASSERT_GT(log.segments().size(), 3u);
  const std::vector<Walked> batches = walk(dir_, log);
  for (int64_t t = kT0 - 5; t < kT0 + 5100; t += 13) {
    // Kafka's answer: the first segment whose largest time reaches t, then its first batch that
    // does.
    std::optional<int64_t> want;
    for (const LogSegment& s : log.segments()) {
      int64_t largest = -1;
      for (const Walked& w : batches) {
        const bool in = w.base >= s.base_offset &&
                        (&s == &log.segments().back() || w.base < (&s + 1)->base_offset);
        if (in) largest = std::max(largest, w.max_timestamp);
      }
      if (largest < t) continue;
      for (const Walked& w : batches) {
        if (w.base >= s.base_offset && w.max_timestamp >= t) {
          want = w.base;
          break;
        }
      }
      break;
    }
    const std::optional<std::string> got = log.batch_at_timestamp(dir_, t, 400);
    ASSERT_EQ(got.has_value(), want.has_value()) << t - kT0;
    if (got) {
      EXPECT_EQ(kafka::read_batch_header(*got).base_offset, *want) << t - kT0;
    }
  }
}

TEST_F(SegmentIndexTest, AnIndexThatCannotBeWrittenLeavesAppendsAndReadsWhole) {
  // A folder where the index file would be: every write of it fails.
  fs::create_directory(index_of(0));
  PartitionLog log = filled(200, 2, 60, 1 << 20, 300);
  EXPECT_EQ(log.log_end_offset(), 400);
  expect_every_offset_read(log, 300);
  EXPECT_TRUE(fs::is_directory(index_of(0)));
  EXPECT_EQ(PartitionLog::scan(dir_).log.log_end_offset(), 400);
}

TEST_F(SegmentIndexTest, AReadFarFromTheHintReadsAFewChunksNotTheSegment) {
  // With the index, a read at the end of a large segment walks at most an interval and a batch.
  const PartitionLog log = filled(20000, 1, 20, 1 << 30, 4096);
  const fs::path index = index_of(0);
  const uint64_t entries = fs::file_size(index) / 8;
  const uint64_t segment = log.segments().back().bytes;
  EXPECT_GE(entries, segment / 4096 / 2);
  // The last offset, read on a restarted log with no hint.
  const PartitionLog restarted = PartitionLog::scan(dir_).log;
  const std::string got = restarted.read(dir_, restarted.log_end_offset() - 1, 1, 4096);
  ASSERT_FALSE(got.empty());
  EXPECT_EQ(kafka::read_batch_header(got).base_offset, restarted.log_end_offset() - 1);
  EXPECT_EQ(file(index).size(), entries * 8) << "a good index is not rebuilt";
}

// Bytes this process has read through read(2) and pread(2) so far (/proc/self/io's rchar).
uint64_t bytes_read_so_far() {
  std::ifstream io("/proc/self/io");
  std::string key;
  uint64_t value = 0;
  while (io >> key >> value) {
    if (key == "rchar:") return value;
  }
  return 0;
}

TEST_F(SegmentIndexTest, ASliceOfLargeBatchesReadsTheirHeadersNotTheirRecords) {
  // 64 batches of about 64 KiB: a Fetch's slice of 1 MiB of them, whose bytes go out by sendfile.
  PartitionLog log = PartitionLog::empty();
  std::string one = batch_of(1, 64 << 10);
  for (int i = 0; i < 64; ++i) log.append(dir_, one, 1 << 30, kDefaultIndexIntervalBytes);
  const uint64_t batch = one.size();
  const uint64_t before = bytes_read_so_far();
  const PartitionLog::Batches got = log.slice(dir_, 10, 1 << 20);
  const uint64_t read = bytes_read_so_far() - before;
  if (before == 0) GTEST_SKIP() << "/proc/self/io has no rchar here";
  ASSERT_TRUE(got.bytes.file);
  EXPECT_EQ(got.bytes.position, 10 * batch);
  EXPECT_EQ(got.bytes.length, (uint64_t{1} << 20) / batch * batch);
  EXPECT_EQ(got.next_offset, 10 + static_cast<int64_t>((uint64_t{1} << 20) / batch));
  // The index's search and a header per batch: well under one batch's records.
  EXPECT_LT(read, batch / 4) << "read " << read << " bytes to slice " << got.bytes.length;
  // The slice's bytes are those batches, whole.
  const std::string bytes = read_slice(got.bytes);
  EXPECT_EQ(kafka::split_batches(bytes).size(), bytes.size() / batch);
  EXPECT_EQ(kafka::read_batch_header(bytes).base_offset, 10);
}

// The indexes on a disk of their own (root only): tmpfs or an ext4 image.
class SegmentIndexOnADisk : public SegmentIndexTest, public ::testing::WithParamInterface<bool> {
 protected:
  // The partition directory on the disk mounted at tmp/disk, its first segment created.
  void use_disk() {
    dir_ = tmp_.path() / "disk" / "t-0";
    fs::create_directories(dir_);
    std::ofstream(dir_ / layout::segment_file(0));
  }
};

TEST_P(SegmentIndexOnADisk, AFullDiskLeavesEveryAppendWholeAndTheIndexBehindIt) {
  test::OwnDisk disk(tmp_.path() / "disk", tmp_.path() / "disk.img", GetParam());
  if (!disk.why().empty()) GTEST_SKIP() << disk.why();
  use_disk();
  // The segment's blocks are reserved ahead, so appends go on once the disk is full; the index
  // files' next blocks are not.
  {
    const int fd = ::open((dir_ / layout::segment_file(0)).c_str(), O_WRONLY | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::fallocate(fd, FALLOC_FL_KEEP_SIZE, 0, 512 << 10), 0) << std::strerror(errno);
    ::close(fd);
  }
  PartitionLog log = PartitionLog::empty();
  constexpr uint32_t kEveryBatch = 0;  // an entry for every batch after the first
  for (int i = 0; i < 10; ++i) {
    std::string b = batch_of(1, 30, {i});
    log.append(dir_, b, 1 << 30, kEveryBatch);
  }
  disk.fill();
  for (int i = 10; i < 1500; ++i) {
    std::string b = batch_of(1, 30, {i});
    ASSERT_NO_THROW(log.append(dir_, b, 1 << 30, kEveryBatch)) << i;
  }
  EXPECT_EQ(log.log_end_offset(), 1500);
  const segment_index::BuiltIndex full =
      segment_index::build(dir_, 0, log.segments().back().bytes, kEveryBatch);
  // The index stopped where the disk did, on a whole entry.
  EXPECT_LT(fs::file_size(index_of(0)), full.offset_entries.size());
  EXPECT_EQ(fs::file_size(index_of(0)) % kOffsetIndexEntryBytes, 0u);
  EXPECT_EQ(fs::file_size(times_of(0)) % kTimeIndexEntryBytes, 0u);
  expect_every_offset_read(log, kEveryBatch);
  // With room again, a restart rebuilds it whole.
  fs::remove(tmp_.path() / "disk" / "filler");
  PartitionLog restarted = PartitionLog::scan(dir_).log;
  expect_every_offset_read(restarted, kEveryBatch);
  EXPECT_EQ(file(index_of(0)), full.offset_entries);
  EXPECT_EQ(file(times_of(0)), full.time_entries);
}

TEST_P(SegmentIndexOnADisk, AReadOnlyDiskServesEveryOffsetThroughADamagedIndex) {
  test::OwnDisk disk(tmp_.path() / "disk", tmp_.path() / "disk.img", GetParam());
  if (!disk.why().empty()) GTEST_SKIP() << disk.why();
  use_disk();
  filled(300, 2, 60, 1 << 20, 500);
  const std::string good = file(index_of(0));
  {
    std::ofstream out(index_of(0), std::ios::binary | std::ios::trunc);
    out << good.substr(0, good.size() / 2 + 3);  // torn
  }
  ASSERT_EQ(disk.remount(true), "");
  {
    // The rebuild cannot be written: reads walk the batches, and nothing throws.
    const PartitionLog restarted = PartitionLog::scan(dir_).log;
    expect_every_offset_read(restarted, 500);
    EXPECT_EQ(fs::file_size(index_of(0)), good.size() / 2 + 3);
  }
  ASSERT_EQ(disk.remount(false), "");
  const PartitionLog again = PartitionLog::scan(dir_).log;
  expect_every_offset_read(again, 500);
  EXPECT_EQ(file(index_of(0)), good);
}

INSTANTIATE_TEST_SUITE_P(TmpfsAndExt4, SegmentIndexOnADisk, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "ext4" : "tmpfs"; });

}  // namespace
}  // namespace lds
