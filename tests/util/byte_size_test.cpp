// byte_size_test.cpp: parse_byte_size, the byte counts of lds-host's options and simulator traces:
// both grammars it replaced, exact fractions, and overflow as an error rather than a wrap.
#include "util/byte_size.h"

#include <gtest/gtest.h>

#include <limits>

#include "byte_units.h"

namespace {

using lds::kGiB;
using lds::kKiB;
using lds::kMiB;

using lds::ByteSizeError;
using lds::format_byte_size;
using lds::parse_byte_size;

constexpr uint64_t kTiB = 1ull << 40;
constexpr uint64_t kMax = std::numeric_limits<uint64_t>::max();

ByteSizeError error_of(std::string_view text) {
  ByteSizeError why{};
  EXPECT_EQ(parse_byte_size(text, &why), std::nullopt) << text;
  return why;
}

TEST(ByteSize, AcceptsTheCommandLineForms) {
  EXPECT_EQ(parse_byte_size("10"), 10u);
  EXPECT_EQ(parse_byte_size("0"), 0u);
  EXPECT_EQ(parse_byte_size("10B"), 10u);
  EXPECT_EQ(parse_byte_size("64KiB"), 64 * kKiB);
  EXPECT_EQ(parse_byte_size("5MiB"), 5 * kMiB);
  EXPECT_EQ(parse_byte_size("2GiB"), 2 * kGiB);
  EXPECT_EQ(parse_byte_size("3K"), 3 * kKiB);
  EXPECT_EQ(parse_byte_size("3M"), 3 * kMiB);
  EXPECT_EQ(parse_byte_size("3G"), 3 * kGiB);
}

TEST(ByteSize, AcceptsTheTraceForms) {
  EXPECT_EQ(parse_byte_size("1024"), kKiB);
  EXPECT_EQ(parse_byte_size("1073741824"), kGiB);
  EXPECT_EQ(parse_byte_size("1.5TiB"), 3ull << 39);
  EXPECT_EQ(parse_byte_size("10GB"), 10 * kGiB);
  EXPECT_EQ(parse_byte_size("7KB"), 7 * kKiB);
  EXPECT_EQ(parse_byte_size("7MB"), 7 * kMiB);
  EXPECT_EQ(parse_byte_size("2T"), 2 * kTiB);
  EXPECT_EQ(parse_byte_size("2TB"), 2 * kTiB);
  EXPECT_EQ(parse_byte_size("64 MiB"), 64 * kMiB);
  EXPECT_EQ(parse_byte_size("64   MiB"), 64 * kMiB);
  EXPECT_EQ(parse_byte_size("007"), 7u);
}

TEST(ByteSize, DropsAFractionOfAByteExactly) {
  EXPECT_EQ(parse_byte_size("1.5"), 1u);
  EXPECT_EQ(parse_byte_size("0.5KiB"), 512u);
  EXPECT_EQ(parse_byte_size("0.1KiB"), 102u);         // 102.4
  EXPECT_EQ(parse_byte_size("0.999KiB"), 1022u);      // 1022.976
  EXPECT_EQ(parse_byte_size("0.0009765625KiB"), 1u);  // exactly 2^-10 KiB
  EXPECT_EQ(parse_byte_size("0.00097656249999999999999999KiB"), 0u);
  EXPECT_EQ(parse_byte_size("2.25GiB"), 9 * kGiB / 4);
}

TEST(ByteSize, RejectsWhatIsNoNumber) {
  EXPECT_EQ(error_of(""), ByteSizeError::kNotANumber);
  EXPECT_EQ(error_of("ten"), ByteSizeError::kNotANumber);
  EXPECT_EQ(error_of("MiB"), ByteSizeError::kNotANumber);
  EXPECT_EQ(error_of(".5MiB"), ByteSizeError::kNotANumber);
  EXPECT_EQ(error_of("-1"), ByteSizeError::kNotANumber);
  EXPECT_EQ(error_of("+1"), ByteSizeError::kNotANumber);
  EXPECT_EQ(error_of(" 1"), ByteSizeError::kNotANumber);
}

TEST(ByteSize, RejectsUnknownUnits) {
  EXPECT_EQ(error_of("5 XB"), ByteSizeError::kUnknownUnit);
  EXPECT_EQ(error_of("12 parsecs"), ByteSizeError::kUnknownUnit);
  EXPECT_EQ(error_of("5mib"), ByteSizeError::kUnknownUnit);
  EXPECT_EQ(error_of("5PiB"), ByteSizeError::kUnknownUnit);
  EXPECT_EQ(error_of("5MiB "), ByteSizeError::kUnknownUnit);
  EXPECT_EQ(error_of("1."), ByteSizeError::kUnknownUnit);
  EXPECT_EQ(error_of("1.5.3"), ByteSizeError::kUnknownUnit);
  EXPECT_EQ(error_of("1..5"), ByteSizeError::kUnknownUnit);
  EXPECT_EQ(error_of("0x10"), ByteSizeError::kUnknownUnit);
}

TEST(ByteSize, AcceptsUpTo2To64Minus1) {
  EXPECT_EQ(parse_byte_size("18446744073709551615"), kMax);
  EXPECT_EQ(parse_byte_size("18446744073709551615B"), kMax);
  EXPECT_EQ(parse_byte_size("17179869183GiB"), kMax - kGiB + 1);
  EXPECT_EQ(parse_byte_size("16777215.99999999999999TiB"), kMax);
  EXPECT_EQ(parse_byte_size("18446744073709551615.9"), kMax);
}

TEST(ByteSize, RejectsOverflowInsteadOfWrapping) {
  EXPECT_EQ(error_of("18446744073709551616"), ByteSizeError::kTooLarge);
  EXPECT_EQ(error_of("99999999999999999999999"), ByteSizeError::kTooLarge);
  EXPECT_EQ(error_of("17179869184GiB"), ByteSizeError::kTooLarge);  // exactly 2^64
  EXPECT_EQ(error_of("16777216TiB"), ByteSizeError::kTooLarge);
  EXPECT_EQ(error_of("20000000000GiB"), ByteSizeError::kTooLarge);
  EXPECT_EQ(error_of("18014398509481984K"), ByteSizeError::kTooLarge);  // 2^54 KiB
}

TEST(ByteSize, WhyIsOptional) {
  EXPECT_EQ(parse_byte_size("ten", nullptr), std::nullopt);
  EXPECT_EQ(parse_byte_size("16777216TiB", nullptr), std::nullopt);
}

TEST(ByteSize, PrintsWhatPeopleReadAndReadsItBack) {
  EXPECT_EQ(format_byte_size(0), "0 B");
  EXPECT_EQ(format_byte_size(512), "512 B");
  EXPECT_EQ(format_byte_size(1536), "1.5 KiB");
  EXPECT_EQ(format_byte_size(64ull << 20), "64.0 MiB");
  EXPECT_EQ(format_byte_size(UINT64_MAX), "16.0 EiB");
  EXPECT_EQ(parse_byte_size(format_byte_size(3ull << 39)), 3ull << 39);  // "1.5 TiB"
}
}  // namespace
