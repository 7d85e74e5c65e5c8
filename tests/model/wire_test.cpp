// wire_test.cpp: the primitive encoding: integers, zigzag and unsigned varints, classic and compact
// strings, bytes and arrays, tagged fields, and the errors for input that runs short or is
// malformed.
#include "model/wire.h"

#include <gtest/gtest.h>

#include <limits>

#include "kafka_test_bytes.h"

namespace lds::kafka {
namespace {

using test::from_hex;
using test::to_hex;

TEST(Wire, IntegersAreBigEndian) {
  Writer w;
  w.int16(0x0102);
  w.int32(-2);
  w.int64(0x0102030405060708);
  EXPECT_EQ(to_hex(w.bytes()), "01 02 ff ff ff fe 01 02 03 04 05 06 07 08");
  Reader r(w.bytes());
  EXPECT_EQ(r.int16(), 0x0102);
  EXPECT_EQ(r.int32(), -2);
  EXPECT_EQ(r.int64(), 0x0102030405060708);
  EXPECT_EQ(r.remaining(), 0u);
}

// Kafka's ByteUtils: zigzag maps 0,-1,1,-2,... to 0,1,2,3,...; seven bits a byte, low first.
TEST(Wire, VarintsUseZigzagAndSevenBitGroups) {
  const std::pair<int32_t, const char*> cases[] = {
      {0, "00"},
      {-1, "01"},
      {1, "02"},
      {63, "7e"},
      {-64, "7f"},
      {64, "80 01"},
      {300, "d8 04"},
      {std::numeric_limits<int32_t>::max(), "fe ff ff ff 0f"},
      {std::numeric_limits<int32_t>::min(), "ff ff ff ff 0f"}};
  for (const auto& [value, hex] : cases) {
    Writer w;
    w.varint(value);
    EXPECT_EQ(to_hex(w.bytes()), hex) << value;
    EXPECT_EQ(w.size(), varint_size(value));
    Reader r(w.bytes());
    EXPECT_EQ(r.varint(), value);
  }
  Writer w;
  w.varlong(std::numeric_limits<int64_t>::min());
  EXPECT_EQ(to_hex(w.bytes()), "ff ff ff ff ff ff ff ff ff 01");
  Reader r(w.bytes());
  EXPECT_EQ(r.varlong(), std::numeric_limits<int64_t>::min());
}

TEST(Wire, UnsignedVarintRoundTrips) {
  for (uint32_t v : {0u, 1u, 127u, 128u, 16383u, 16384u, 0xFFFFFFFFu}) {
    Writer w;
    w.unsigned_varint(v);
    EXPECT_EQ(w.size(), unsigned_varint_size(v));
    Reader r(w.bytes());
    EXPECT_EQ(r.unsigned_varint(), v);
  }
  Writer w;
  w.unsigned_varint(300);
  EXPECT_EQ(to_hex(w.bytes()), "ac 02");
}

TEST(Wire, VarintLongerThanFiveBytesIsRefused) {
  const std::string bytes = from_hex("ff ff ff ff ff 01");
  Reader r(bytes);
  EXPECT_THROW(r.unsigned_varint(), ParseError);
  Reader r2(bytes);
  EXPECT_THROW(r2.varint(), ParseError);
}

TEST(Wire, ClassicAndCompactStrings) {
  Writer w;
  w.string("ab", false);
  w.string("ab", true);
  w.nullable_string(std::nullopt, false);
  w.nullable_string(std::nullopt, true);
  w.string("", true);
  EXPECT_EQ(to_hex(w.bytes()), "00 02 61 62 03 61 62 ff ff 00 01");
  Reader r(w.bytes());
  EXPECT_EQ(r.string(false), "ab");
  EXPECT_EQ(r.string(true), "ab");
  EXPECT_EQ(r.nullable_string(false), std::nullopt);
  EXPECT_EQ(r.nullable_string(true), std::nullopt);
  EXPECT_EQ(r.string(true), "");
}

TEST(Wire, NullWhereNotAllowedIsAParseError) {
  const std::string bytes = from_hex("ff ff");
  Reader r(bytes);
  EXPECT_THROW(r.string(false), ParseError);
  const std::string compact_null = from_hex("00");
  Reader r2(compact_null);
  EXPECT_THROW(r2.non_null_array_length(true), ParseError);
}

TEST(Wire, BytesAndArrays) {
  Writer w;
  w.nullable_bytes(std::string("\x01\x02", 2), false);
  w.nullable_bytes(std::string("\x01", 1), true);
  w.nullable_bytes(std::nullopt, false);
  w.array_length(2, false);
  w.array_length(2, true);
  w.array_length(std::nullopt, true);
  w.array_length(std::nullopt, false);
  EXPECT_EQ(to_hex(w.bytes()), "00 00 00 02 01 02 02 01 ff ff ff ff 00 00 00 02 03 00 ff ff ff ff");
  Reader r(w.bytes());
  EXPECT_EQ(r.nullable_bytes(false), std::string("\x01\x02", 2));
  EXPECT_EQ(r.nullable_bytes(true), std::string("\x01", 1));
  EXPECT_EQ(r.nullable_bytes(false), std::nullopt);
  EXPECT_EQ(r.array_length(false), 2);
  EXPECT_EQ(r.array_length(true), 2);
  EXPECT_EQ(r.array_length(true), std::nullopt);
  EXPECT_EQ(r.array_length(false), std::nullopt);
  EXPECT_EQ(r.remaining(), 0u);
}

TEST(Wire, ArrayCountIsBoundedByTheBytesLeft) {
  const std::string huge = from_hex("7f ff ff ff 00");
  Reader r(huge);
  EXPECT_THROW(r.array_length(false), ParseError);
  const std::string ok = from_hex("00 00 00 01 00");
  Reader r2(ok);
  EXPECT_EQ(r2.array_length(false), 1);
}

TEST(Wire, TaggedFieldsAreSkippedWhole) {
  // Two tagged fields: tag 0 with 3 bytes, tag 5 with 0 bytes; then an int8 that must still read.
  const std::string bytes = from_hex("02 00 03 aa bb cc 05 00 7b");
  Reader r(bytes);
  r.tagged_fields(true);
  EXPECT_EQ(r.int8(), 0x7b);
  // A tagged field whose size runs past the end.
  const std::string short_field = from_hex("01 00 05 aa");
  Reader r2(short_field);
  EXPECT_THROW(r2.tagged_fields(true), ParseError);
  // Not flexible: nothing is read.
  Reader r3(bytes);
  r3.tagged_fields(false);
  EXPECT_EQ(r3.position(), 0u);
}

TEST(Wire, EveryTruncationIsAParseError) {
  Writer w;
  w.int32(7);
  w.string("hello", true);
  w.int64(1);
  const std::string full = w.bytes();
  for (size_t cut = 0; cut < full.size(); ++cut) {
    Reader r(std::string_view(full).substr(0, cut));
    EXPECT_THROW(
        {
          r.int32();
          r.string(true);
          r.int64();
        },
        ParseError)
        << "cut at " << cut;
  }
}

}  // namespace
}  // namespace lds::kafka
