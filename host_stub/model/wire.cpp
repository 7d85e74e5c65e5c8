// wire.cpp: the bounds-checked reader and the writer of Kafka's primitive types.
#include "model/wire.h"

#include <limits>
#include <type_traits>

namespace lds::kafka {
namespace {

uint32_t zigzag32(int32_t v) {
  return (static_cast<uint32_t>(v) << 1) ^ static_cast<uint32_t>(v >> 31);
}
uint64_t zigzag64(int64_t v) {
  return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}

}  // namespace

size_t unsigned_varint_size(uint64_t v) {
  size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}
size_t varint_size(int32_t v) { return unsigned_varint_size(zigzag32(v)); }
size_t varlong_size(int64_t v) { return unsigned_varint_size(zigzag64(v)); }

const char* Reader::take(size_t n, const char* what) {
  if (n > remaining()) {
    throw ParseError(std::string("Truncated input: ") + what + " needs " + std::to_string(n) +
                     " bytes at offset " + std::to_string(pos_) + ", " +
                     std::to_string(remaining()) + " left.");
  }
  const char* p = bytes_.data() + pos_;
  pos_ += n;
  return p;
}

namespace {
template <typename T>
T big_endian(const char* p) {
  using U = std::make_unsigned_t<T>;
  U v = 0;
  for (size_t i = 0; i < sizeof(T); ++i) {
    v = static_cast<U>((v << 8) | static_cast<unsigned char>(p[i]));
  }
  return static_cast<T>(v);
}
}  // namespace

int8_t Reader::int8() { return static_cast<int8_t>(*take(1, "an int8")); }
int16_t Reader::int16() { return big_endian<int16_t>(take(2, "an int16")); }
int32_t Reader::int32() { return big_endian<int32_t>(take(4, "an int32")); }
int64_t Reader::int64() { return big_endian<int64_t>(take(8, "an int64")); }
uint32_t Reader::uint32() { return big_endian<uint32_t>(take(4, "a uint32")); }
bool Reader::boolean() { return *take(1, "a boolean") != 0; }

uint64_t Reader::unsigned_varlong(int max_bytes, const char* what) {
  uint64_t value = 0;
  for (int i = 0; i < max_bytes; ++i) {
    const auto b = static_cast<unsigned char>(*take(1, what));
    value |= static_cast<uint64_t>(b & 0x7F) << (7 * i);
    if ((b & 0x80) == 0) return value;
  }
  throw ParseError(std::string("Malformed ") + what + ": more than " + std::to_string(max_bytes) +
                   " bytes, ending at offset " + std::to_string(pos_) + ".");
}

uint32_t Reader::unsigned_varint() {
  const uint64_t v = unsigned_varlong(5, "unsigned varint");
  if (v > std::numeric_limits<uint32_t>::max()) {
    throw ParseError("Malformed unsigned varint: it exceeds 32 bits, ending at offset " +
                     std::to_string(pos_) + ".");
  }
  return static_cast<uint32_t>(v);
}

int32_t Reader::varint() {
  const uint64_t raw64 = unsigned_varlong(5, "varint");
  if (raw64 > std::numeric_limits<uint32_t>::max()) {
    throw ParseError("Malformed varint: it exceeds 32 bits, ending at offset " +
                     std::to_string(pos_) + ".");
  }
  const auto raw32 = static_cast<uint32_t>(raw64);
  return static_cast<int32_t>((raw32 >> 1) ^ (~(raw32 & 1) + 1));
}

int64_t Reader::varlong() {
  const uint64_t raw64 = unsigned_varlong(10, "varlong");
  return static_cast<int64_t>((raw64 >> 1) ^ (~(raw64 & 1) + 1));
}

std::optional<std::string> Reader::nullable_string(bool flexible) {
  int64_t length = 0;
  if (flexible) {
    length = static_cast<int64_t>(unsigned_varint()) - 1;
  } else {
    length = int16();
  }
  if (length == -1) return std::nullopt;
  if (length < 0) {
    throw ParseError("Malformed string: length " + std::to_string(length) + " at offset " +
                     std::to_string(pos_) + ".");
  }
  return std::string(take(static_cast<size_t>(length), "a string"), static_cast<size_t>(length));
}

std::vector<int32_t> Reader::int32_array(bool flexible) {
  // The count is checked against the bytes left, so this reserves no more than they hold.
  const int32_t n = non_null_array_length(flexible);
  std::vector<int32_t> values;
  values.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) values.push_back(int32());
  return values;
}

std::optional<std::vector<int32_t>> Reader::nullable_int32_array(bool flexible) {
  const std::optional<int32_t> n = array_length(flexible);
  if (!n) return std::nullopt;
  // The count is checked against the bytes left, so this reserves no more than they hold.
  std::vector<int32_t> values;
  values.reserve(static_cast<size_t>(*n));
  for (int32_t i = 0; i < *n; ++i) values.push_back(int32());
  return values;
}

Uuid Reader::uuid() {
  const char* p = take(16, "a Uuid");
  Uuid v;
  for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<uint8_t>(p[i]);
  return v;
}

std::string Reader::string(bool flexible) {
  const size_t at = pos_;
  std::optional<std::string> s = nullable_string(flexible);
  if (!s) {
    throw ParseError("A non-nullable string at offset " + std::to_string(at) + " is null.");
  }
  return std::move(*s);
}

std::optional<std::string> Reader::nullable_bytes(bool flexible) {
  int64_t length = 0;
  if (flexible) {
    length = static_cast<int64_t>(unsigned_varint()) - 1;
  } else {
    length = int32();
  }
  if (length == -1) return std::nullopt;
  if (length < 0) {
    throw ParseError("Malformed bytes: length " + std::to_string(length) + " at offset " +
                     std::to_string(pos_) + ".");
  }
  return std::string(take(static_cast<size_t>(length), "bytes"), static_cast<size_t>(length));
}

std::optional<int32_t> Reader::array_length(bool flexible) {
  const size_t at = pos_;
  int64_t n = 0;
  if (flexible) {
    n = static_cast<int64_t>(unsigned_varint()) - 1;
  } else {
    n = int32();
  }
  if (n == -1) return std::nullopt;
  if (n < 0 || static_cast<uint64_t>(n) > remaining()) {
    throw ParseError("Malformed array: " + std::to_string(n) + " elements at offset " +
                     std::to_string(at) + ", with " + std::to_string(remaining()) + " bytes left.");
  }
  return static_cast<int32_t>(n);
}

int32_t Reader::non_null_array_length(bool flexible) {
  const size_t at = pos_;
  std::optional<int32_t> n = array_length(flexible);
  if (!n) throw ParseError("A non-nullable array at offset " + std::to_string(at) + " is null.");
  return *n;
}

void Reader::tagged_fields(bool flexible) {
  if (!flexible) return;
  const uint32_t count = unsigned_varint();
  for (uint32_t i = 0; i < count; ++i) {
    (void)unsigned_varint();  // the tag: none is known to this broker, so each is skipped
    const uint32_t size = unsigned_varint();
    take(size, "a tagged field");
  }
}

std::string_view Reader::raw(size_t n) { return {take(n, "raw bytes"), n}; }

namespace {
template <typename T>
void put_big_endian(std::string& out, T v) {
  using U = std::make_unsigned_t<T>;
  const auto u = static_cast<U>(v);
  for (size_t i = sizeof(T); i-- > 0;) {
    out.push_back(static_cast<char>((u >> (8 * i)) & 0xFF));
  }
}
void put_unsigned_varint(std::string& out, uint64_t v) {
  while (v >= 0x80) {
    out.push_back(static_cast<char>((v & 0x7F) | 0x80));
    v >>= 7;
  }
  out.push_back(static_cast<char>(v));
}
}  // namespace

void Writer::int8(int8_t v) { out_.push_back(static_cast<char>(v)); }
void Writer::int16(int16_t v) { put_big_endian(out_, v); }
void Writer::int32(int32_t v) { put_big_endian(out_, v); }
void Writer::int64(int64_t v) { put_big_endian(out_, v); }
void Writer::uint32(uint32_t v) { put_big_endian(out_, v); }
void Writer::boolean(bool v) { out_.push_back(v ? 1 : 0); }
void Writer::varint(int32_t v) { put_unsigned_varint(out_, zigzag32(v)); }
void Writer::varlong(int64_t v) { put_unsigned_varint(out_, zigzag64(v)); }
void Writer::unsigned_varint(uint32_t v) { put_unsigned_varint(out_, v); }

void Writer::int32_array(const std::vector<int32_t>& values, bool flexible) {
  array_length(static_cast<int32_t>(values.size()), flexible);
  for (int32_t v : values) int32(v);
}

void Writer::nullable_int32_array(const std::optional<std::vector<int32_t>>& values,
                                  bool flexible) {
  if (!values) {
    array_length(std::nullopt, flexible);
  } else {
    int32_array(*values, flexible);
  }
}

void Writer::uuid(const Uuid& v) { out_.append(reinterpret_cast<const char*>(v.data()), v.size()); }

void Writer::string(std::string_view s, bool flexible) {
  if (flexible) {
    unsigned_varint(static_cast<uint32_t>(s.size() + 1));
  } else {
    if (s.size() > static_cast<size_t>(std::numeric_limits<int16_t>::max())) {
      throw std::length_error("A string of " + std::to_string(s.size()) +
                              " bytes does not fit an int16 length.");
    }
    int16(static_cast<int16_t>(s.size()));
  }
  out_.append(s);
}

void Writer::nullable_string(const std::optional<std::string>& s, bool flexible) {
  if (s) {
    string(*s, flexible);
  } else if (flexible) {
    unsigned_varint(0);
  } else {
    int16(-1);
  }
}

void Writer::nullable_bytes(const std::optional<std::string>& b, bool flexible) {
  if (!b) {
    if (flexible) {
      unsigned_varint(0);
    } else {
      int32(-1);
    }
    return;
  }
  if (flexible) {
    unsigned_varint(static_cast<uint32_t>(b->size() + 1));
  } else {
    int32(static_cast<int32_t>(b->size()));
  }
  out_.append(*b);
}

void Writer::array_length(std::optional<int32_t> n, bool flexible) {
  if (flexible) {
    unsigned_varint(n ? static_cast<uint32_t>(*n) + 1 : 0);
  } else {
    int32(n ? *n : -1);
  }
}

void Writer::tagged_fields(bool flexible) {
  if (flexible) unsigned_varint(0);
}

void Writer::tag_header(uint32_t tag, uint32_t size) {
  unsigned_varint(tag);
  unsigned_varint(size);
}

void Writer::patch_int32(size_t pos, int32_t v) {
  const auto u = static_cast<uint32_t>(v);
  for (size_t i = 0; i < 4; ++i) {
    out_[pos + i] = static_cast<char>((u >> (8 * (3 - i))) & 0xFF);
  }
}

}  // namespace lds::kafka
