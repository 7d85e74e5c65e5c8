// batch_bytes.h: record batches edited byte by byte, as a client could send them: any header field
// set to anything, the records replaced by any bytes under any codec number, with batchLength and
// the CRC32C made right again, so that only the rule under test is broken.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "model/record_batch.h"

namespace lds::test {

// Where a v2 batch header keeps the fields a test breaks (record_batch.h has the layout).
inline constexpr size_t kBaseOffsetAt = 0;
inline constexpr size_t kAttributesAt = 21;
inline constexpr size_t kLastOffsetDeltaAt = 23;
inline constexpr size_t kProducerIdAt = 43;
inline constexpr size_t kBaseSequenceAt = 53;
inline constexpr size_t kRecordCountAt = 57;

// `n` records "k<i>" = "<tag><i>" at offsetDeltas 0, 1, 2, ..., one header each.
inline std::vector<kafka::Record> numbered_records(int n, const std::string& tag = "v") {
  std::vector<kafka::Record> records;
  for (int i = 0; i < n; ++i) {
    kafka::Record r;
    r.offset_delta = i;
    r.timestamp_delta = i;
    r.key = "k" + std::to_string(i);
    r.value = tag + std::to_string(i);
    r.headers.push_back({"h", "x"});
    records.push_back(std::move(r));
  }
  return records;
}

// Writes `value` big-endian over `sizeof(T)` bytes of `batch` at `at`.
template <typename T>
void put(std::string& batch, size_t at, T value) {
  const auto u = static_cast<uint64_t>(value);
  for (size_t i = 0; i < sizeof(T); ++i) {
    batch[at + i] = static_cast<char>((u >> (8 * (sizeof(T) - 1 - i))) & 0xFF);
  }
}

// `batch` after an edit, with batchLength and the CRC32C that fit its bytes again.
inline std::string sealed(std::string batch) {
  put<int32_t>(batch, 8, static_cast<int32_t>(batch.size() - kafka::kBatchLogOverhead));
  put<uint32_t>(batch, kafka::kBatchCrcOffset, 0);
  put<uint32_t>(batch, kafka::kBatchCrcOffset,
                kafka::crc32c(std::string_view(batch).substr(kafka::kBatchCrcCoverageStart)));
  return batch;
}

// `batch` with its records replaced by `area` and its codec bits by `codec` (0 to 7, named or not),
// sealed.
inline std::string with_records_area(std::string batch, std::string_view area, int codec) {
  batch.resize(kafka::kBatchHeaderBytes);
  batch += area;
  const int old = (static_cast<uint8_t>(batch[kAttributesAt]) << 8) |
                  static_cast<uint8_t>(batch[kAttributesAt + 1]);
  const auto attributes = static_cast<int16_t>((old & ~0x7) | (codec & 0x7));
  put<int16_t>(batch, kAttributesAt, attributes);
  return sealed(std::move(batch));
}

// The records area of `batch` (everything after the 61-byte header).
inline std::string records_area(std::string_view batch) {
  return std::string(batch.substr(kafka::kBatchHeaderBytes));
}

// `batch` with the header field at `at` set to `value`, sealed.
template <typename T>
std::string with_field(std::string batch, size_t at, T value) {
  put<T>(batch, at, value);
  return sealed(std::move(batch));
}

}  // namespace lds::test
