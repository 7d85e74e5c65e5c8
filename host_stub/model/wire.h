// wire.h: Kafka's primitive wire types: big-endian integers, zigzag varints, strings, bytes and
// arrays, in both the classic encoding and KIP-482's flexible one (compact lengths as unsigned
// varint length+1, tagged fields).
//
// One reader and one writer serve every message. Every read is bounds-checked and throws
// ParseError, which the listener turns into a closed connection; nothing here allocates more than
// the input could hold.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lds::kafka {

// Input that does not follow the wire format: a length past the end, a varint too long, a null
// where none is allowed. The message names what was being read.
class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Kafka's Uuid (topic ids): 16 bytes, most significant first. All zeros is Uuid.ZERO_UUID, "none".
using Uuid = std::array<uint8_t, 16>;

// Reads primitives from a byte range it does not own. `flexible` selects KIP-482's compact forms
// for the calls that take it.
class Reader {
 public:
  explicit Reader(std::string_view bytes) : bytes_(bytes) {}

  int8_t int8();
  int16_t int16();
  int32_t int32();
  int64_t int64();
  uint32_t uint32();
  bool boolean();
  // Zigzag-encoded signed varints (records): at most 5 and 10 bytes.
  int32_t varint();
  int64_t varlong();
  // Unsigned varint (flexible lengths and tags): at most 5 bytes.
  uint32_t unsigned_varint();
  Uuid uuid();

  // A non-nullable string: int16 length, or compact (unsigned varint length+1) when `flexible`.
  std::string string(bool flexible);
  // A nullable string; nullopt for null.
  std::optional<std::string> nullable_string(bool flexible);
  // Bytes: int32 length, or compact when `flexible`; nullopt for null.
  std::optional<std::string> nullable_bytes(bool flexible);
  // An array's element count: int32, or compact when `flexible`; nullopt for a null array. The
  // count is checked against the bytes left (every element takes at least one byte).
  std::optional<int32_t> array_length(bool flexible);
  // array_length for an array that may not be null.
  int32_t non_null_array_length(bool flexible);
  // An array of int32 (broker ids, partition indexes), and one that may be null.
  std::vector<int32_t> int32_array(bool flexible);
  std::optional<std::vector<int32_t>> nullable_int32_array(bool flexible);
  // Skips a tagged-field section (unsigned varint count, then tag, size, data each); does
  // nothing unless `flexible`.
  void tagged_fields(bool flexible);

  // The next `n` bytes, as a view into the input.
  std::string_view raw(size_t n);
  size_t remaining() const { return bytes_.size() - pos_; }
  size_t position() const { return pos_; }

 private:
  const char* take(size_t n, const char* what);
  uint64_t unsigned_varlong(int max_bytes, const char* what);

  std::string_view bytes_;
  size_t pos_ = 0;
};

// Appends primitives to a byte string it owns.
class Writer {
 public:
  void int8(int8_t v);
  void int16(int16_t v);
  void int32(int32_t v);
  void int64(int64_t v);
  void uint32(uint32_t v);
  void boolean(bool v);
  void varint(int32_t v);
  void varlong(int64_t v);
  void unsigned_varint(uint32_t v);
  void uuid(const Uuid& v);

  void string(std::string_view s, bool flexible);
  void nullable_string(const std::optional<std::string>& s, bool flexible);
  void nullable_bytes(const std::optional<std::string>& b, bool flexible);
  // An array's element count; nullopt writes a null array.
  void array_length(std::optional<int32_t> n, bool flexible);
  void int32_array(const std::vector<int32_t>& values, bool flexible);
  void nullable_int32_array(const std::optional<std::vector<int32_t>>& values, bool flexible);
  // An empty tagged-field section; nothing unless `flexible`.
  void tagged_fields(bool flexible);
  // One tagged field's header: its tag and the size of the data that follows.
  void tag_header(uint32_t tag, uint32_t size);

  void raw(std::string_view bytes) { out_.append(bytes); }
  // Overwrites 4 bytes at `pos` with `v` (a size prefix written before its contents were known).
  void patch_int32(size_t pos, int32_t v);

  size_t size() const { return out_.size(); }
  const std::string& bytes() const { return out_; }
  std::string take() { return std::move(out_); }

 private:
  std::string out_;
};

// Bytes an unsigned varint of `v` takes (1 to 5), and a zigzag varint/varlong.
size_t unsigned_varint_size(uint64_t v);
size_t varint_size(int32_t v);
size_t varlong_size(int64_t v);

}  // namespace lds::kafka
