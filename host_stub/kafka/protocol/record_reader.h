// record_reader.h: the records of a v2 batch, read one at a time as Kafka's DefaultRecord.readFrom
// frames them, from the batch's codec a piece at a time (memory stays bounded by the codec's block
// or window, whatever the records inflate to). The record validator checks client batches with it;
// ListOffsets finds the first record at or after a time with it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "kafka/protocol/compression.h"

namespace lds::kafka {

// A record that does not frame: why, in a sentence fragment ("its key runs past it").
struct FramingFault {
  std::string why;
};

// The bytes of a batch's records, as its codec yields them, read a byte or a run at a time.
class RecordBytes {
 public:
  explicit RecordBytes(Decompressor& source) : source_(source) {}

  // The next byte, or nullopt at the end of the records.
  std::optional<uint8_t> byte() {
    if (!fill()) return std::nullopt;
    const auto b = static_cast<uint8_t>(piece_[at_]);
    ++at_;
    return b;
  }

  // Skips up to `n` bytes; returns how many there were.
  size_t skip(size_t n) {
    size_t done = 0;
    while (done < n && fill()) {
      const size_t step = std::min(n - done, piece_.size() - at_);
      at_ += step;
      done += step;
    }
    return done;
  }

  // Whether the records end here, every byte of the stream read and checked.
  bool at_end() { return !fill(); }

 private:
  bool fill() {
    while (at_ == piece_.size()) {
      if (ended_) return false;
      piece_ = source_.next();
      at_ = 0;
      if (piece_.empty()) ended_ = true;
    }
    return true;
  }

  Decompressor& source_;
  std::string_view piece_;
  size_t at_ = 0;
  bool ended_ = false;
};

// "1 byte", "7 bytes": a size in a refusal's sentence.
std::string byte_count(int64_t n);

// The fields of one record a reader needs, the rest skipped.
struct RecordFields {
  int64_t timestamp_delta = 0;
  int32_t offset_delta = 0;
};

// A record's length prefix, Kafka's varint outside its body; nullopt at the end of the records.
// Throws FramingFault.
std::optional<int32_t> length_prefix(RecordBytes& bytes);

// Frames one record of `size` bytes (DefaultRecord.readFrom). Throws FramingFault.
RecordFields read_record(RecordBytes& bytes, int32_t size);

// Kafka's FileRecords.searchForTimestamp within one batch (whole, its framing and CRC checked):
// the first record whose timestamp is at least `timestamp`, as (its timestamp, its offset);
// nullopt when none is. A LogAppendTime batch's records all carry its max timestamp. Throws
// FramingFault or DecompressError.
struct TimestampAndOffset {
  int64_t timestamp = -1;
  int64_t offset = -1;
  bool operator==(const TimestampAndOffset&) const = default;
};
std::optional<TimestampAndOffset> first_record_at_or_after(std::string_view batch,
                                                           int64_t timestamp);

}  // namespace lds::kafka
