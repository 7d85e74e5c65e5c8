// partition_log_test.cpp: a partition's log of record batches: offsets, rolling, reading by
// offset, the checks on a client's batches, and what a restart finds after a crash.
#include "storage/partition_log.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/resource.h>

#include <fstream>
#include <iterator>
#include <map>

#include "batch_bytes.h"
#include "file_bytes.h"
#include "io/durable_file.h"
#include "io/log_layout.h"
#include "model/record_batch.h"
#include "storage/storage_error.h"
#include "temp_dir.h"
#include "util/errors.h"

namespace lds {
namespace {

namespace fs = std::filesystem;
using kafka::Record;

// A batch of `n` records "v<i>" keyed "k<i>", as a client would send it (baseOffset 0).
std::string client_batch(int n, const std::string& tag = "v") {
  std::vector<Record> records;
  for (int i = 0; i < n; ++i) {
    Record r;
    r.offset_delta = i;
    r.key = "k" + std::to_string(i);
    r.value = tag + std::to_string(i);
    records.push_back(r);
  }
  return kafka::build_batch(0, 1700000000000, records);
}

std::string file(const fs::path& p) { return test::file_bytes(p); }

std::vector<std::string> segment_names(const fs::path& dir) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    uint64_t base = 0;
    const std::string name = e.path().filename().string();
    if (layout::parse_segment_file(name, &base)) out.push_back(name);
  }
  std::sort(out.begin(), out.end());
  return out;
}

class PartitionLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.path() / "t-0";
    fs::create_directory(dir_);
    std::ofstream(dir_ / layout::segment_file(0));
  }
  int64_t append(PartitionLog& log, std::string batches, uint64_t segment_bytes = 1 << 20) {
    return log.append(dir_, batches, segment_bytes);
  }
  test::TempDir tmp_;
  fs::path dir_;
};

TEST_F(PartitionLogTest, AppendGivesOffsetsFromTheLogEndAndKeepsEveryBatchValid) {
  PartitionLog log = PartitionLog::empty();
  EXPECT_EQ(append(log, client_batch(3)), 0);
  EXPECT_EQ(append(log, client_batch(2) + client_batch(4)), 3);
  EXPECT_EQ(log.log_end_offset(), 9);
  EXPECT_EQ(log.log_start_offset(), 0);
  const std::string bytes = file(dir_ / layout::segment_file(0));
  EXPECT_EQ(bytes.size(), log.size_in_bytes());
  std::vector<int64_t> bases;
  for (std::string_view b : kafka::split_batches(bytes)) {
    EXPECT_TRUE(kafka::batch_crc_matches(b)) << "rewriting baseOffset must not break the CRC";
    bases.push_back(kafka::read_batch_header(b).base_offset);
  }
  EXPECT_EQ(bases, (std::vector<int64_t>{0, 3, 5}));
}

TEST_F(PartitionLogTest, SegmentsRollBeforeAnAppendWouldPassTheSegmentSizeAndAreNamedByOffset) {
  PartitionLog log = PartitionLog::empty();
  const std::string batch = client_batch(10);
  const uint64_t segment_bytes = batch.size() * 2;
  for (int i = 0; i < 5; ++i) append(log, batch, segment_bytes);
  EXPECT_EQ(segment_names(dir_),
            (std::vector<std::string>{layout::segment_file(0), layout::segment_file(20),
                                      layout::segment_file(40)}));
  ASSERT_EQ(log.segments().size(), 3u);
  EXPECT_EQ(log.segments()[2].bytes, batch.size());
  // A batch larger than the segment size still goes into a segment of its own.
  append(log, client_batch(200), segment_bytes);
  EXPECT_EQ(log.segments().back().base_offset, 50);
  EXPECT_EQ(log.log_end_offset(), 250);
}

TEST_F(PartitionLogTest, ReadReturnsWholeBatchesFromTheOneHoldingTheOffset) {
  PartitionLog log = PartitionLog::empty();
  for (int i = 0; i < 4; ++i) append(log, client_batch(5));  // offsets 0-4, 5-9, 10-14, 15-19
  const size_t one = client_batch(5).size();
  // Offset 7 lies inside the second batch: it is returned from its start.
  std::string got = log.read(dir_, 7, 2 * one);
  auto batches = kafka::split_batches(got);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(kafka::read_batch_header(batches[0]).base_offset, 5);
  EXPECT_EQ(kafka::read_batch_header(batches[1]).base_offset, 10);
  // The first batch is whole even when it is larger than the limit (KIP-74).
  got = log.read(dir_, 0, 10);
  ASSERT_EQ(kafka::split_batches(got).size(), 1u);
  EXPECT_EQ(got.size(), one);
  // Reading on from where the last read ended, and at the log end.
  got = log.read(dir_, 15, 1 << 20);
  ASSERT_EQ(kafka::split_batches(got).size(), 1u);
  EXPECT_EQ(kafka::read_records(got)[4].value, "v4");
  EXPECT_EQ(log.read(dir_, 20, 1 << 20), "");
}

TEST_F(PartitionLogTest, ReadFindsOffsetsInEarlierSegments) {
  PartitionLog log = PartitionLog::empty();
  const std::string batch = client_batch(10);
  for (int i = 0; i < 6; ++i) append(log, batch, batch.size() * 2);
  for (int64_t offset : {0, 9, 10, 25, 59}) {
    const std::string got = log.read(dir_, offset, 1);
    const kafka::RecordBatchHeader h = kafka::read_batch_header(got);
    EXPECT_LE(h.base_offset, offset);
    EXPECT_GE(h.base_offset + h.last_offset_delta, offset);
  }
}

TEST_F(PartitionLogTest, ClientBatchesAreCheckedBeforeAnythingIsWritten) {
  auto code_of = [](const std::string& batches, uint64_t segment_bytes = 1 << 20,
                    uint64_t max_message_bytes = 1048588) {
    try {
      PartitionLog::check_batches(batches, "t-0", segment_bytes, max_message_bytes);
      return StorageErrc::kNone;
    } catch (const StorageError& e) {
      return e.code();
    }
  };
  const std::string good = client_batch(3);
  EXPECT_EQ(code_of(good + good), StorageErrc::kNone);
  std::string flipped = good;
  flipped.back() ^= 1;
  EXPECT_EQ(code_of(flipped), StorageErrc::kCorruptBatch);
  EXPECT_EQ(code_of(good.substr(0, good.size() - 1)), StorageErrc::kCorruptBatch);
  std::string magic1 = good;
  magic1[16] = 1;
  EXPECT_EQ(code_of(magic1), StorageErrc::kInvalidBatch);
  EXPECT_EQ(code_of(good, good.size() - 1), StorageErrc::kBatchesTooLarge);
  // message.max.bytes judges each batch's whole size, Kafka's sizeInBytes.
  EXPECT_EQ(code_of(good + good, 1 << 20, good.size()), StorageErrc::kNone);
  EXPECT_EQ(code_of(good + good, 1 << 20, good.size() - 1), StorageErrc::kBatchTooLarge);
  EXPECT_EQ(code_of(""), StorageErrc::kInvalidBatch);
  // lastOffsetDelta + 1 is what an append adds to the log end: it must be the record count (2^31
  // - 1 for one record would move the log end two billion offsets on).
  EXPECT_EQ(code_of(test::with_field<int32_t>(good, test::kLastOffsetDeltaAt, INT32_MAX)),
            StorageErrc::kInvalidBatch);
  EXPECT_EQ(code_of(test::with_field<int32_t>(good, test::kRecordCountAt, 2)),
            StorageErrc::kInvalidBatch);
}

TEST_F(PartitionLogTest, TheValidatorSeesEachBatchWhoseFramingSizeAndCrcHold) {
  const std::string good = client_batch(3);
  std::vector<std::string> seen;
  const PartitionLog::BatchValidator record = [&](std::string_view b) { seen.emplace_back(b); };
  PartitionLog::check_batches(good + client_batch(1), "t-0", 1 << 20, 1048588, record);
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0], good);
  EXPECT_EQ(seen[1], client_batch(1));
  // Not a batch whose CRC fails: that is CORRUPT_MESSAGE first.
  seen.clear();
  std::string flipped = good;
  flipped.back() ^= 1;
  EXPECT_THROW(PartitionLog::check_batches(flipped, "t-0", 1 << 20, 1048588, record), StorageError);
  EXPECT_TRUE(seen.empty());
  // What it throws refuses the batches, as it is.
  const PartitionLog::BatchValidator refuse = [](std::string_view) {
    throw KafkaError(ErrorCode::kUnsupportedCompressionType, "no");
  };
  try {
    PartitionLog::check_batches(good, "t-0", 1 << 20, 1048588, refuse);
    ADD_FAILURE() << "not refused";
  } catch (const KafkaError& e) {
    EXPECT_EQ(e.code(), ErrorCode::kUnsupportedCompressionType);
  }
}

TEST_F(PartitionLogTest, ARestartFindsTheSameOffsetsAndSegments) {
  PartitionLog log = PartitionLog::empty();
  const std::string batch = client_batch(10);
  for (int i = 0; i < 5; ++i) append(log, batch, batch.size() * 2);
  ScannedLog scanned = PartitionLog::scan(dir_);
  PartitionLog& again = scanned.log;
  EXPECT_EQ(again.log_end_offset(), 50);
  EXPECT_EQ(scanned.torn_bytes, 0u);
  ASSERT_EQ(again.segments().size(), log.segments().size());
  for (size_t i = 0; i < log.segments().size(); ++i) {
    EXPECT_EQ(again.segments()[i].base_offset, log.segments()[i].base_offset);
    EXPECT_EQ(again.segments()[i].bytes, log.segments()[i].bytes);
  }
  EXPECT_EQ(append(again, client_batch(1), batch.size() * 2), 50);
}

TEST_F(PartitionLogTest, ATornLastBatchIsCutOffAtRestart) {
  PartitionLog log = PartitionLog::empty();
  append(log, client_batch(3));
  append(log, client_batch(3));
  const uint64_t whole = log.size_in_bytes();
  const fs::path segment = dir_ / layout::segment_file(0);
  // A write cut short by a crash: half a batch at the end.
  const std::string third = client_batch(3);
  std::ofstream(segment, std::ios::app | std::ios::binary) << third.substr(0, third.size() / 2);

  ScannedLog again = PartitionLog::scan(dir_);
  EXPECT_EQ(again.log.log_end_offset(), 6);
  EXPECT_EQ(again.torn_bytes, third.size() / 2);
  EXPECT_EQ(fs::file_size(segment), whole + third.size() / 2) << "scan changes nothing";
  again.cut_torn_tail(dir_);
  EXPECT_EQ(fs::file_size(segment), whole);
  EXPECT_EQ(PartitionLog::scan(dir_).torn_bytes, 0u);

  // A last batch whose CRC does not match, nothing after it: torn as well.
  std::string bad = client_batch(2);
  bad.back() ^= 0x5a;
  std::ofstream(segment, std::ios::app | std::ios::binary) << bad;
  ScannedLog crc = PartitionLog::scan(dir_);
  EXPECT_EQ(crc.torn_bytes, bad.size());
  EXPECT_EQ(crc.log.log_end_offset(), 6);
}

TEST_F(PartitionLogTest, CorruptionBeforeTheTailRefusesAndTruncatesNothing) {
  PartitionLog log = PartitionLog::empty();
  append(log, client_batch(3));
  const uint64_t first = log.size_in_bytes();
  append(log, client_batch(3));
  const fs::path segment = dir_ / layout::segment_file(0);
  std::string bytes = file(segment);
  bytes[first / 2] ^= 0x01;  // inside the first batch, with a whole batch after it
  std::ofstream(segment, std::ios::binary | std::ios::trunc) << bytes;
  try {
    PartitionLog::scan(dir_);
    ADD_FAILURE() << "a corrupt batch before the tail was accepted";
  } catch (const ConfigError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(segment.string()), std::string::npos) << what;
    EXPECT_NE(what.find("at byte 0"), std::string::npos) << what;
    EXPECT_NE(what.find("nothing was truncated"), std::string::npos) << what;
  }
  EXPECT_EQ(file(segment), bytes);

  // Bytes that are not a Kafka log at all (an earlier format, another program's file).
  std::ofstream(segment, std::ios::binary | std::ios::trunc) << std::string(4096, 'x');
  EXPECT_THROW(PartitionLog::scan(dir_), ConfigError);
  EXPECT_EQ(fs::file_size(segment), 4096u);
}

// Renaming a segment changes no CRC: the name is checked against its first batch's base offset,
// for every segment, and a mismatch refuses the start as a corrupt batch does, changing nothing.
TEST_F(PartitionLogTest, ASegmentNotNamedForItsFirstOffsetRefusesAndChangesNothing) {
  const std::string batch = client_batch(10);
  const uint64_t segment_bytes = batch.size() * 2;
  auto refusal = [&](const fs::path& renamed) -> std::string {
    std::map<std::string, std::string> before;
    for (const auto& e : fs::directory_iterator(dir_)) before[e.path().string()] = file(e.path());
    std::string what = "scanned";
    try {
      PartitionLog::scan(dir_);
    } catch (const ConfigError& e) {
      what = e.what();
    }
    std::map<std::string, std::string> after;
    for (const auto& e : fs::directory_iterator(dir_)) after[e.path().string()] = file(e.path());
    EXPECT_EQ(after, before) << renamed;
    return what;
  };
  auto expected = [&](const fs::path& segment, int64_t named, int64_t first) {
    return "Log segment " + segment.string() + " is named for offset " + std::to_string(named) +
           " but its first record batch starts at offset " + std::to_string(first) +
           ", so its records would be served at other offsets and nothing was changed; rename "
           "it to " +
           layout::segment_file(static_cast<uint64_t>(first)) +
           ", the name of a segment starting there, and start again.";
  };

  // The only segment, 0 renamed 7: records 0 to 6 would be hidden.
  PartitionLog one = PartitionLog::empty();
  append(one, batch, segment_bytes);
  fs::rename(dir_ / layout::segment_file(0), dir_ / layout::segment_file(7));
  EXPECT_EQ(refusal(dir_ / layout::segment_file(7)),
            expected(dir_ / layout::segment_file(7), 7, 0));
  fs::remove(dir_ / layout::segment_file(7));

  // Segments 0, 20 and 40; the last renamed 43 (a consumer would wait at 40 for ever), then the
  // first and a middle one.
  std::ofstream(dir_ / layout::segment_file(0));
  PartitionLog three = PartitionLog::empty();
  for (int i = 0; i < 5; ++i) append(three, batch, segment_bytes);
  for (auto [from, to] : {std::pair<uint64_t, uint64_t>{40, 43}, {0, 3}, {20, 19}}) {
    SCOPED_TRACE(std::to_string(from) + " renamed " + std::to_string(to));
    const fs::path renamed = dir_ / layout::segment_file(to);
    fs::rename(dir_ / layout::segment_file(from), renamed);
    EXPECT_EQ(refusal(renamed),
              expected(renamed, static_cast<int64_t>(to), static_cast<int64_t>(from)));
    fs::rename(renamed, dir_ / layout::segment_file(from));
  }
  EXPECT_EQ(PartitionLog::scan(dir_).log.log_end_offset(), 50) << "named right again, it reads";

  // An earlier segment whose first bytes are no batch cannot be checked: refused as well.
  const fs::path middle = dir_ / layout::segment_file(20);
  std::string bytes = file(middle);
  bytes[16] = 7;  // the magic byte
  std::ofstream(middle, std::ios::binary | std::ios::trunc) << bytes;
  EXPECT_EQ(refusal(middle),
            "Log segment " + middle.string() +
                " holds no valid record batch at byte 0 (Record batch at offset 20 has magic 7; "
                "only magic 2 is supported), so the offset it is named for cannot be checked and "
                "nothing was changed; restore the segment from another replica, or move it out "
                "of the partition directory, and start again.");
}

// RLIMIT_FSIZE cuts a write short, as a full disk does.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved_);
    old_ = ::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved_);
    ::signal(SIGXFSZ, old_);
  }
  FileSizeLimit(const FileSizeLimit&) = delete;
  FileSizeLimit& operator=(const FileSizeLimit&) = delete;

 private:
  rlimit saved_{};
  sighandler_t old_;
};

TEST_F(PartitionLogTest, AShortWriteLeavesNeitherATornBatchNorAnEmptySegment) {
  PartitionLog log = PartitionLog::empty();
  const std::string batch = client_batch(50);
  append(log, batch, batch.size());
  const fs::path first = dir_ / layout::segment_file(0);
  {
    FileSizeLimit limit(batch.size() + 100);
    std::string big = batch;
    // Into the active segment: cut short at the limit, cut back to whole batches.
    EXPECT_THROW(log.append(dir_, big, 1 << 20), FileError);
    EXPECT_EQ(fs::file_size(first), batch.size());
    // Into a new segment (the active one is full): the segment is removed again.
    std::string bigger = client_batch(500);
    EXPECT_THROW(log.append(dir_, bigger, batch.size()), FileError);
    EXPECT_EQ(segment_names(dir_), std::vector<std::string>{layout::segment_file(0)});
  }
  EXPECT_EQ(log.log_end_offset(), 50);
  EXPECT_EQ(PartitionLog::scan(dir_).log.log_end_offset(), 50);
  // The next append goes on from there.
  EXPECT_EQ(append(log, client_batch(1), batch.size()), 50);
  EXPECT_EQ(segment_names(dir_),
            (std::vector<std::string>{layout::segment_file(0), layout::segment_file(50)}));
}

}  // namespace
}  // namespace lds
