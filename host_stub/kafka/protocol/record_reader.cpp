// record_reader.cpp: one record at a time from a batch's decompressed records.
#include "kafka/protocol/record_reader.h"

#include <memory>
#include <type_traits>

#include "model/record_batch.h"

namespace lds::kafka {

std::string byte_count(int64_t n) { return std::to_string(n) + (n == 1 ? " byte" : " bytes"); }

namespace {

// One record's fields, read within the size its length prefix gives (Kafka reads the whole body,
// then parses it: a field past the body is "invalid record structure").
class RecordBody {
 public:
  RecordBody(RecordBytes& bytes, int32_t size) : bytes_(bytes), left_(size), size_(size) {}

  uint8_t byte() {
    if (left_ == 0) throw FramingFault{"its fields run past its size of " + byte_count(size_)};
    const std::optional<uint8_t> b = bytes_.byte();
    if (!b) throw FramingFault{"the records end inside it"};
    --left_;
    return *b;
  }

  // Kafka's ByteUtils.readVarint and readVarlong: zigzag over at most 5 and 10 bytes.
  int32_t varint() { return zigzag<int32_t, 5>("varint"); }
  int64_t varlong() { return zigzag<int64_t, 10>("varlong"); }

  // A key, value or header of `length` bytes (Kafka's Utils.readBytes: a negative length is
  // null).
  void skip_field(int32_t length, const char* what) {
    if (length <= 0) return;
    if (length > left_) {
      throw FramingFault{std::string("its ") + what + " of " + byte_count(length) +
                         " runs past it"};
    }
    if (bytes_.skip(static_cast<size_t>(length)) != static_cast<size_t>(length)) {
      throw FramingFault{"the records end inside it"};
    }
    left_ -= length;
  }

  int32_t left() const { return left_; }

 private:
  template <typename Signed, int MaxBytes>
  Signed zigzag(const char* what) {
    using Raw = std::make_unsigned_t<Signed>;
    Raw raw = 0;
    for (int i = 0; i < MaxBytes; ++i) {
      const uint8_t b = byte();
      raw |= static_cast<Raw>(b & 0x7Fu) << (7 * i);
      if ((b & 0x80) == 0) return static_cast<Signed>((raw >> 1) ^ (~(raw & 1) + 1));
    }
    throw FramingFault{std::string("a ") + what + " runs longer than " + std::to_string(MaxBytes) +
                       " bytes"};
  }

  RecordBytes& bytes_;
  int32_t left_;
  int32_t size_;
};

}  // namespace

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

RecordFields read_record(RecordBytes& bytes, int32_t size) {
  if (size < 0) throw FramingFault{"its length is " + std::to_string(size)};
  RecordBody body(bytes, size);
  (void)body.byte();  // attributes
  RecordFields fields;
  fields.timestamp_delta = body.varlong();
  fields.offset_delta = body.varint();
  body.skip_field(body.varint(), "key");
  body.skip_field(body.varint(), "value");
  const int32_t headers = body.varint();
  if (headers < 0) throw FramingFault{"its header count is " + std::to_string(headers)};
  if (headers > body.left()) {
    throw FramingFault{"its " + std::to_string(headers) + " headers cannot fit in the " +
                       byte_count(body.left()) + " left of it"};
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
    throw FramingFault{byte_count(rest) + " of its size of " + byte_count(size) +
                       " follow its last header"};
  }
  return fields;
}

std::optional<TimestampAndOffset> first_record_at_or_after(std::string_view batch,
                                                           int64_t timestamp) {
  const RecordBatchHeader h = read_batch_header(batch);
  if (h.max_timestamp < timestamp) return std::nullopt;
  constexpr int16_t kLogAppendTime = 0x08;  // attributes bit 3
  const std::string_view records =
      batch.substr(kBatchHeaderBytes, h.size_in_bytes() - kBatchHeaderBytes);
  const std::unique_ptr<Decompressor> source =
      open_decompressor(static_cast<Codec>(h.compression()), records);
  RecordBytes bytes(*source);
  while (const std::optional<int32_t> size = length_prefix(bytes)) {
    const RecordFields r = read_record(bytes, *size);
    const int64_t at = (h.attributes & kLogAppendTime) != 0 ? h.max_timestamp
                                                            : h.base_timestamp + r.timestamp_delta;
    if (at >= timestamp) return TimestampAndOffset{at, h.base_offset + r.offset_delta};
  }
  return std::nullopt;
}

}  // namespace lds::kafka
