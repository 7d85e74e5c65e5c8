// record_batch.h: Kafka's record batch, magic 2 (the v2 message format): the 61-byte header, its
// CRC32C, the varint-encoded records inside, and batches built by this broker (filler records of
// an exact total size).
//
// Layout: baseOffset int64, batchLength int32 (bytes after this field), partitionLeaderEpoch
// int32, magic int8, crc uint32 (CRC32C of everything after it), attributes int16,
// lastOffsetDelta int32, baseTimestamp int64, maxTimestamp int64, producerId int64, producerEpoch
// int16, baseSequence int32, then the record count int32 and the records.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lds::kafka {

inline constexpr size_t kBatchHeaderBytes = 61;
// baseOffset and batchLength: the bytes before what batchLength counts.
inline constexpr size_t kBatchLogOverhead = 12;
// Where the CRC sits, and where the bytes it covers start.
inline constexpr size_t kBatchCrcOffset = 17;
inline constexpr size_t kBatchCrcCoverageStart = 21;
inline constexpr int8_t kMagicV2 = 2;
// The smallest batch: one record with no key, an empty value and no headers.
inline constexpr size_t kMinBatchBytes = 68;

struct RecordBatchHeader {
  int64_t base_offset = 0;
  int32_t batch_length = 0;
  int32_t partition_leader_epoch = -1;
  int8_t magic = kMagicV2;
  uint32_t crc = 0;
  int16_t attributes = 0;  // bits 0-2: compression codec
  int32_t last_offset_delta = 0;
  int64_t base_timestamp = 0;
  int64_t max_timestamp = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
  int32_t base_sequence = -1;
  int32_t record_count = 0;

  // The whole batch, header included.
  size_t size_in_bytes() const { return kBatchLogOverhead + static_cast<size_t>(batch_length); }
  int compression() const { return attributes & 0x7; }
};

struct RecordHeader {
  std::string key;
  std::optional<std::string> value;
  bool operator==(const RecordHeader&) const = default;
};

struct Record {
  int8_t attributes = 0;
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
  std::optional<std::string> key;
  std::optional<std::string> value;
  std::vector<RecordHeader> headers;
  bool operator==(const Record&) const = default;
};

// CRC32C (Castagnoli), as the v2 format uses it.
uint32_t crc32c(std::string_view bytes);

// The fields of the 61-byte batch header at the start of `bytes`, without judging batchLength
// against what follows (a reader that has only the header). Throws ParseError when fewer than 61
// bytes are there, the magic is not 2, batchLength is shorter than a header, or the record count
// is negative.
RecordBatchHeader read_batch_header_fields(std::string_view bytes);

// The header of the batch at the start of `bytes`. Throws ParseError when fewer than 61 bytes are
// there, the magic is not 2, or batchLength is shorter than a header or runs past `bytes`.
RecordBatchHeader read_batch_header(std::string_view bytes);

// The CRC32C the batch at the start of `batch` should carry (over everything after the CRC
// field); the batch must hold at least its header (read_batch_header has checked it).
uint32_t compute_batch_crc(std::string_view batch);
bool batch_crc_matches(std::string_view batch);

// Splits `bytes` into whole batches, each checked by read_batch_header. Throws ParseError on
// anything that is not a sequence of whole batches.
std::vector<std::string_view> split_batches(std::string_view bytes);

// Rewrites baseOffset of the batch at the start of `batch` (it lies outside the CRC).
void set_base_offset(std::string& batch, size_t batch_start, int64_t base_offset);

// The records of an uncompressed batch. Throws ParseError for a compressed batch, a count that
// does not match the records, or a record that runs past its length.
std::vector<Record> read_records(std::string_view batch);

// One batch holding `records`, with lastOffsetDelta and the CRC filled in. Timestamps are
// base_timestamp plus each record's delta.
std::string build_batch(int64_t base_offset, int64_t base_timestamp,
                        const std::vector<Record>& records);

// Batches of filler records totalling exactly `total_bytes` (at least kMinBatchBytes), each batch
// at most kFillerBatchMaxBytes. Records have no key and no headers; `fill_value`, when given,
// writes each record's value (its offset, then the bytes), else values are zeros.
inline constexpr size_t kFillerBatchMaxBytes = size_t{64} * 1024;
struct FillerBatches {
  std::string bytes;
  int64_t records = 0;  // offsets consumed, from base_offset on
};
using FillValue = std::function<void(int64_t offset, char* value, size_t size)>;
FillerBatches build_filler_batches(uint64_t total_bytes, int64_t base_offset, int64_t timestamp,
                                   const FillValue& fill_value = nullptr);

}  // namespace lds::kafka
