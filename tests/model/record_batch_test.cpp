// record_batch_test.cpp: v2 record batches: a batch assembled by hand byte for byte, checked
// against a CRC32C computed independently; corruption detection; baseOffset rewriting; record
// iteration; and filler batches of exact sizes.
#include "model/record_batch.h"

#include <gtest/gtest.h>

#include "kafka_test_bytes.h"
#include "model/wire.h"

namespace lds::kafka {
namespace {

using test::from_hex;
using test::to_hex;

// One record (key "k", value "v", header "h"="x") at offset 0, timestamp 1700000000000, spelled
// out field by field. The CRC 5e93538d was computed over bytes 21.. with a bit-by-bit CRC32C
// (reflected polynomial 0x82F63B78), independently of the implementation under test.
const std::string kBatch = from_hex(
    "00 00 00 00 00 00 00 00"  // baseOffset 0
    "00 00 00 3e"              // batchLength 62
    "ff ff ff ff"              // partitionLeaderEpoch -1
    "02"                       // magic 2
    "5e 93 53 8d"              // crc
    "00 00"                    // attributes
    "00 00 00 00"              // lastOffsetDelta 0
    "00 00 01 8b cf e5 68 00"  // baseTimestamp 1700000000000
    "00 00 01 8b cf e5 68 00"  // maxTimestamp
    "ff ff ff ff ff ff ff ff"  // producerId -1
    "ff ff"                    // producerEpoch -1
    "ff ff ff ff"              // baseSequence -1
    "00 00 00 01"              // one record
    "18"                       // record length 12 (zigzag)
    "00 00 00"                 // attributes, timestampDelta 0, offsetDelta 0
    "02 6b 02 76"              // key "k", value "v"
    "02 02 68 02 78");         // one header: "h" = "x"

TEST(Crc32c, MatchesTheStandardCheckValue) { EXPECT_EQ(crc32c("123456789"), 0xE3069283u); }

TEST(Crc32c, EveryLengthAndAlignmentGivesTheBitwiseDefinitionsValue) {
  // CRC32C by its definition, one bit at a time (reflected polynomial 0x82F63B78).
  auto bitwise = [](std::string_view bytes) {
    uint32_t crc = 0xFFFFFFFF;
    for (unsigned char c : bytes) {
      crc ^= c;
      for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0x82F63B78u & (0u - (crc & 1u)));
    }
    return crc ^ 0xFFFFFFFF;
  };
  std::string data;
  for (int i = 0; i < 300; ++i) data.push_back(static_cast<char>(i * 131 + 7));
  for (size_t start = 0; start < 9; ++start) {
    for (size_t len = 0; start + len <= data.size(); len += 7) {
      const std::string_view piece = std::string_view(data).substr(start, len);
      ASSERT_EQ(crc32c(piece), bitwise(piece)) << "start " << start << ", length " << len;
    }
  }
}

TEST(RecordBatch, HandAssembledBatchParsesAndItsCrcMatches) {
  const RecordBatchHeader h = read_batch_header(kBatch);
  EXPECT_EQ(h.base_offset, 0);
  EXPECT_EQ(h.size_in_bytes(), kBatch.size());
  EXPECT_EQ(h.magic, 2);
  EXPECT_EQ(h.crc, 0x5e93538du);
  EXPECT_EQ(h.record_count, 1);
  EXPECT_EQ(h.base_timestamp, 1700000000000);
  EXPECT_EQ(compute_batch_crc(kBatch), 0x5e93538du);
  EXPECT_TRUE(batch_crc_matches(kBatch));

  const std::vector<Record> records = read_records(kBatch);
  ASSERT_EQ(records.size(), 1u);
  EXPECT_EQ(records[0].key, "k");
  EXPECT_EQ(records[0].value, "v");
  ASSERT_EQ(records[0].headers.size(), 1u);
  EXPECT_EQ(records[0].headers[0].key, "h");
  EXPECT_EQ(records[0].headers[0].value, "x");
}

TEST(RecordBatch, BuildingTheSameRecordGivesTheSameBytes) {
  Record r;
  r.key = "k";
  r.value = "v";
  r.headers.push_back({"h", "x"});
  EXPECT_EQ(to_hex(build_batch(0, 1700000000000, {r})), to_hex(kBatch));
}

TEST(RecordBatch, AnyFlippedByteUnderTheCrcIsDetected) {
  for (size_t i = kBatchCrcCoverageStart; i < kBatch.size(); ++i) {
    std::string bad = kBatch;
    bad[i] = static_cast<char>(bad[i] ^ 0x01);
    EXPECT_FALSE(batch_crc_matches(bad)) << "byte " << i;
  }
}

TEST(RecordBatch, RewritingBaseOffsetKeepsTheCrcValid) {
  std::string two = kBatch + kBatch;
  set_base_offset(two, kBatch.size(), 41);
  const std::vector<std::string_view> batches = split_batches(two);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(read_batch_header(batches[0]).base_offset, 0);
  EXPECT_EQ(read_batch_header(batches[1]).base_offset, 41);
  EXPECT_TRUE(batch_crc_matches(batches[1]));
}

TEST(RecordBatch, MalformedBatchesAreParseErrors) {
  // Truncated anywhere (no bytes at all is no batch, not an error).
  EXPECT_TRUE(split_batches("").empty());
  for (size_t cut = 1; cut < kBatch.size(); ++cut) {
    EXPECT_THROW(split_batches(std::string_view(kBatch).substr(0, cut)), ParseError) << cut;
  }
  // Magic 1.
  std::string old = kBatch;
  old[16] = 1;
  EXPECT_THROW(read_batch_header(old), ParseError);
  // A record count the records do not match.
  std::string more = kBatch;
  more[60] = 2;
  EXPECT_THROW(read_records(more), ParseError);
  // Compressed (gzip): not read.
  std::string gzip = kBatch;
  gzip[22] = 1;
  EXPECT_THROW(read_records(gzip), ParseError);
}

TEST(RecordBatch, RecordsRoundTripWithNullsAndManyHeaders) {
  std::vector<Record> in;
  for (int i = 0; i < 5; ++i) {
    Record r;
    r.offset_delta = i;
    r.timestamp_delta = i * 1000;
    // Appended: GCC 12 at -O3 reports a false -Wrestrict on `"key-" + std::to_string(i)`.
    if (i % 2 == 0) r.key = std::string("key-").append(std::to_string(i));
    if (i != 3) r.value = std::string(static_cast<size_t>(i * 100), 'v');
    for (int h = 0; h < i; ++h) {
      r.headers.push_back({std::string("h").append(std::to_string(h)),
                           h == 1 ? std::nullopt : std::optional<std::string>("x")});
    }
    in.push_back(std::move(r));
  }
  const std::string batch = build_batch(100, 5, in);
  const RecordBatchHeader h = read_batch_header(batch);
  EXPECT_EQ(h.last_offset_delta, 4);
  EXPECT_EQ(h.max_timestamp, 4005);
  EXPECT_TRUE(batch_crc_matches(batch));
  EXPECT_EQ(read_records(batch), in);
}

TEST(FillerBatches, EveryTotalFromTheSmallestBatchUpIsExact) {
  for (uint64_t total = kMinBatchBytes; total < 20000; ++total) {
    const FillerBatches f = build_filler_batches(total, 7, 0);
    ASSERT_EQ(f.bytes.size(), total);
    int64_t expected_offset = 7;
    for (std::string_view b : split_batches(f.bytes)) {
      const RecordBatchHeader h = read_batch_header(b);
      ASSERT_EQ(h.base_offset, expected_offset);
      ASSERT_TRUE(batch_crc_matches(b));
      expected_offset += static_cast<int64_t>(read_records(b).size());
    }
    ASSERT_EQ(expected_offset - 7, f.records) << total;
  }
}

TEST(FillerBatches, LargeTotalsSplitIntoBoundedBatches) {
  for (uint64_t total : {uint64_t{kFillerBatchMaxBytes}, uint64_t{kFillerBatchMaxBytes + 1},
                         uint64_t{kFillerBatchMaxBytes + kMinBatchBytes - 1},
                         uint64_t{3 * kFillerBatchMaxBytes + 12345}}) {
    const FillerBatches f =
        build_filler_batches(total, 0, 0, [](int64_t offset, char* v, size_t n) {
          for (size_t i = 0; i < n; ++i) v[i] = static_cast<char>(offset + static_cast<int64_t>(i));
        });
    ASSERT_EQ(f.bytes.size(), total);
    int64_t offset = 0;
    for (std::string_view b : split_batches(f.bytes)) {
      EXPECT_LE(b.size(), kFillerBatchMaxBytes);
      EXPECT_GE(b.size(), kMinBatchBytes);
      for (const Record& r : read_records(b)) {
        ASSERT_TRUE(r.value.has_value());
        if (!r.value->empty()) {
          EXPECT_EQ((*r.value)[0], static_cast<char>(offset));
        }
        ++offset;
      }
    }
    EXPECT_EQ(offset, f.records);
  }
}

TEST(FillerBatches, TooSmallATotalIsRefused) {
  EXPECT_THROW(build_filler_batches(kMinBatchBytes - 1, 0, 0), std::invalid_argument);
}

}  // namespace
}  // namespace lds::kafka
