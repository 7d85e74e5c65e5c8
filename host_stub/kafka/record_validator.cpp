// record_validator.cpp: Kafka's checks of a client's record batch, and the walk over its records
// (decompressed a piece at a time) that frames each one as Kafka's DefaultRecord.readFrom does.
#include "kafka/record_validator.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "core/record_batch.h"
#include "core/wire.h"
#include "kafka/compression.h"

namespace lds::kafka {
namespace {

// Attribute bits of a v2 batch (DefaultRecordBatch).
constexpr int16_t kControlFlag = 0x20;
constexpr int kZstd = static_cast<int>(Codec::kZstd);

[[noreturn]] void refuse(ErrorCode code, const std::string& message) {
  throw KafkaError(code, message);
}

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

// One record's fields, read within the size its length prefix gives (Kafka reads the whole body,
// then parses it: a field past the body is "invalid record structure").
class RecordBody {
 public:
  RecordBody(RecordBytes& bytes, int32_t size) : bytes_(bytes), left_(size), size_(size) {}

  uint8_t byte() {
    if (left_ == 0) throw FramingFault{"its fields run past its size of " + sized(size_)};
    const std::optional<uint8_t> b = bytes_.byte();
    if (!b) throw FramingFault{"the records end inside it"};
    --left_;
    return *b;
  }

  // Kafka's ByteUtils.readVarint and readVarlong: zigzag over at most 5 and 10 bytes.
  int32_t varint() {
    uint32_t raw = 0;
    for (int i = 0; i < 5; ++i) {
      const uint8_t b = byte();
      raw |= uint32_t{b & 0x7Fu} << (7 * i);
      if ((b & 0x80) == 0) return static_cast<int32_t>((raw >> 1) ^ (~(raw & 1) + 1));
    }
    throw FramingFault{"a varint runs longer than 5 bytes"};
  }
  int64_t varlong() {
    uint64_t raw = 0;
    for (int i = 0; i < 10; ++i) {
      const uint8_t b = byte();
      raw |= uint64_t{b & 0x7Fu} << (7 * i);
      if ((b & 0x80) == 0) return static_cast<int64_t>((raw >> 1) ^ (~(raw & 1) + 1));
    }
    throw FramingFault{"a varlong runs longer than 10 bytes"};
  }

  // A key, value or header of `length` bytes (Kafka's Utils.readBytes: a negative length is
  // null).
  void skip_field(int32_t length, const char* what) {
    if (length <= 0) return;
    if (length > left_) {
      throw FramingFault{std::string("its ") + what + " of " + sized(length) + " runs past it"};
    }
    if (bytes_.skip(static_cast<size_t>(length)) != static_cast<size_t>(length)) {
      throw FramingFault{"the records end inside it"};
    }
    left_ -= length;
  }

  int32_t left() const { return left_; }

  static std::string sized(int64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

 private:
  RecordBytes& bytes_;
  int32_t left_;
  int32_t size_;
};

// Kafka's varint outside a body: the record's length prefix.
std::optional<int32_t> length_prefix(RecordBytes& bytes) {
  uint32_t raw = 0;
  for (int i = 0; i < 5; ++i) {
    const std::optional<uint8_t> b = bytes.byte();
    if (!b) {
      if (i == 0) return std::nullopt;
      throw FramingFault{"the records end inside its length"};
    }
    raw |= uint32_t{*b & 0x7Fu} << (7 * i);
    if ((*b & 0x80) == 0) return static_cast<int32_t>((raw >> 1) ^ (~(raw & 1) + 1));
  }
  throw FramingFault{"its length runs longer than 5 bytes"};
}

// Frames one record (DefaultRecord.readFrom) and returns its offsetDelta. Throws FramingFault.
int32_t read_record(RecordBytes& bytes, int32_t size) {
  if (size < 0) throw FramingFault{"its length is " + std::to_string(size)};
  RecordBody body(bytes, size);
  (void)body.byte();     // attributes
  (void)body.varlong();  // timestampDelta
  const int32_t offset_delta = body.varint();
  body.skip_field(body.varint(), "key");
  body.skip_field(body.varint(), "value");
  const int32_t headers = body.varint();
  if (headers < 0) throw FramingFault{"its header count is " + std::to_string(headers)};
  if (headers > body.left()) {
    throw FramingFault{"its " + std::to_string(headers) + " headers cannot fit in the " +
                       RecordBody::sized(body.left()) + " left of it"};
  }
  for (int32_t i = 0; i < headers; ++i) {
    const int32_t key = body.varint();
    if (key < 0) throw FramingFault{"a header key's length is " + std::to_string(key)};
    body.skip_field(key, "header key");
    body.skip_field(body.varint(), "header value");
  }
  // Kafka reads the whole record before its fields: a record cut short is that first.
  if (const int32_t rest = body.left(); rest != 0) {
    if (bytes.skip(static_cast<size_t>(rest)) != static_cast<size_t>(rest)) {
      throw FramingFault{"the records end inside it"};
    }
    throw FramingFault{RecordBody::sized(rest) + " of its size of " + RecordBody::sized(size) +
                       " follow its last header"};
  }
  return offset_delta;
}

std::string in_partition(const std::string& partition) {
  return " in topic partition " + partition;
}

// The records of `batch`: exactly record_count of them, each framed, at offsetDeltas 0, 1, 2, ...,
// and nothing after them; the codec's stream whole and checked.
void validate_records(std::string_view batch, const RecordBatchHeader& h,
                      const std::string& partition) {
  // The refusal's subject, spelled out only for a refusal.
  const auto of_batch = [&] {
    const std::string codec =
        h.compression() == 0 ? "uncompressed" : codec_name(h.compression()) + "-compressed";
    return "The record batch (" + codec + ", " + std::to_string(h.record_count) +
           " records) in the append to " + partition;
  };
  const std::string_view records =
      batch.substr(kBatchHeaderBytes, h.size_in_bytes() - kBatchHeaderBytes);
  int32_t index = 0;
  try {
    const std::unique_ptr<Decompressor> source =
        open_decompressor(static_cast<Codec>(h.compression()), records);
    RecordBytes bytes(*source);
    for (; index < h.record_count; ++index) {
      const std::optional<int32_t> size = length_prefix(bytes);
      if (!size) {
        refuse(ErrorCode::kInvalidRecord, of_batch() + " holds only " + std::to_string(index) +
                                              " records, not the " +
                                              std::to_string(h.record_count) + " its count says.");
      }
      const int32_t offset_delta = read_record(bytes, *size);
      if (offset_delta != index) {
        const std::string why = "Record " + std::to_string(index) + " has offsetDelta " +
                                std::to_string(offset_delta) + ", not its index " +
                                std::to_string(index) + in_partition(partition);
        throw RecordValidationError(
            ErrorCode::kInvalidRecord,
            of_batch() + " was refused: " + why +
                " (a batch's records take offsetDeltas 0, 1, 2, ... in order).",
            {{index, why}});
      }
    }
    if (!bytes.at_end()) {
      refuse(ErrorCode::kInvalidRecord,
             of_batch() + " has bytes after its last record (Incorrect declared batch size, " +
                 "records still remaining).");
    }
  } catch (const FramingFault& fault) {
    const std::string why = "Record " + std::to_string(index) +
                            " does not frame as a Kafka record: " + fault.why +
                            in_partition(partition);
    throw RecordValidationError(ErrorCode::kInvalidRecord,
                                of_batch() + " was refused: " + why + ".", {{index, why}});
  } catch (const DecompressError& e) {
    refuse(ErrorCode::kInvalidRecord, of_batch() + " does not decompress: " + e.what() + ".");
  }
}

}  // namespace

void validate_produce_records(std::string_view records, int16_t version,
                              const std::string& partition) {
  const auto produce = [version] {
    return "Produce requests with version " + std::to_string(version);
  };
  if (records.empty()) {
    refuse(ErrorCode::kInvalidRecord, produce() +
                                          " must have at least one record batch per "
                                          "partition; the one for " +
                                          partition + " has none.");
  }
  if (records.size() < kBatchCrcOffset) return;  // the framing check answers
  const auto magic = static_cast<int8_t>(records[kBatchCrcOffset - 1]);
  if (magic != kMagicV2) {
    refuse(ErrorCode::kInvalidRecord,
           produce() +
               " are only allowed to contain record batches with magic version 2; the one " +
               "for " + partition + " has magic " + std::to_string(magic) + ".");
  }
  RecordBatchHeader h;
  try {
    h = read_batch_header_fields(records);
  } catch (const ParseError&) {
    return;  // the framing check answers
  }
  if (version < 7 && h.compression() == kZstd) {
    refuse(ErrorCode::kUnsupportedCompressionType,
           produce() + " are not allowed to use ZStandard compression (" + partition + ").");
  }
  if (h.size_in_bytes() < records.size()) {
    refuse(ErrorCode::kInvalidRecord,
           produce() + " are only allowed to contain exactly one record batch per partition; " +
               "the one for " + partition + " has " +
               RecordBody::sized(static_cast<int64_t>(records.size() - h.size_in_bytes())) +
               " after its first batch.");
  }
  // UnifiedLog.analyzeAndValidateRecords, before the size and CRC checks.
  if (h.base_offset != 0) {
    refuse(ErrorCode::kInvalidRecord, "The baseOffset of the record batch in the append to " +
                                          partition + " should be 0, but it is " +
                                          std::to_string(h.base_offset) + ".");
  }
}

void validate_client_batch(std::string_view batch, const std::string& partition) {
  const RecordBatchHeader h = read_batch_header(batch);
  // UnifiedLog.analyzeAndValidateRecords (CompressionType.forId).
  if (h.compression() > kLastCodec) {
    refuse(ErrorCode::kUnsupportedCompressionType,
           "The record batch in the append to " + partition + " names compression " +
               codec_name(h.compression()) +
               "; Kafka's codecs are 0 (none), 1 (gzip), 2 (snappy), 3 (lz4) and 4 (zstd).");
  }
  // LogValidator.validateBatch, for a client's batch.
  const auto range = [&h] {
    // Kafka's lastOffset(), wrapping as Java's long does (baseOffset is any int64 here).
    const auto last = static_cast<int64_t>(static_cast<uint64_t>(h.base_offset) +
                                           static_cast<uint64_t>(int64_t{h.last_offset_delta}));
    std::string text =
        "[";  // appended piece by piece: GCC 12 -O3 sees a false -Wrestrict in "[" + ...
    text += std::to_string(h.base_offset);
    text += ", ";
    text += std::to_string(last);
    text += ']';
    return text;
  };
  if (int64_t{h.last_offset_delta} + 1 <= 0) {
    refuse(ErrorCode::kInvalidRecord,
           "Batch has an invalid offset range: " + range() + in_partition(partition) + ".");
  }
  if (h.record_count <= 0) {
    refuse(ErrorCode::kInvalidRecord,
           "Invalid reported count for record batch: " + std::to_string(h.record_count) +
               in_partition(partition) + ".");
  }
  if (int64_t{h.last_offset_delta} + 1 != h.record_count) {
    refuse(ErrorCode::kInvalidRecord,
           "Inconsistent batch offset range " + range() + " and count of records " +
               std::to_string(h.record_count) + in_partition(partition) + ".");
  }
  if ((h.attributes & kControlFlag) != 0) {
    refuse(ErrorCode::kInvalidRecord,
           "Clients are not allowed to write control records" + in_partition(partition) + ".");
  }
  if (h.producer_id >= 0 && h.base_sequence < 0) {
    refuse(ErrorCode::kInvalidRecord, "Invalid sequence number " + std::to_string(h.base_sequence) +
                                          " in record batch with producerId " +
                                          std::to_string(h.producer_id) + in_partition(partition) +
                                          ".");
  }
  validate_records(batch, h, partition);
}

}  // namespace lds::kafka
