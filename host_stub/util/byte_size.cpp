// byte_size.cpp: parses byte counts in exact integer arithmetic, so "1.5TiB" is exactly 3 << 39
// and no value wraps around; prints them for people.
#include "util/byte_size.h"

#include <array>
#include <cstdio>
#include <limits>
#include <utility>

namespace lds {
namespace {

constexpr uint64_t kMaxBytes = std::numeric_limits<uint64_t>::max();

std::optional<uint64_t> unit_scale(std::string_view unit) {
  static constexpr std::array<std::pair<std::string_view, uint64_t>, 14> kUnits = {{
      {"", 1},
      {"B", 1},
      {"K", 1ull << 10},
      {"KB", 1ull << 10},
      {"KiB", 1ull << 10},
      {"M", 1ull << 20},
      {"MB", 1ull << 20},
      {"MiB", 1ull << 20},
      {"G", 1ull << 30},
      {"GB", 1ull << 30},
      {"GiB", 1ull << 30},
      {"T", 1ull << 40},
      {"TB", 1ull << 40},
      {"TiB", 1ull << 40},
  }};
  for (const auto& [name, scale] : kUnits) {
    if (name == unit) return scale;
  }
  return std::nullopt;
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

std::optional<uint64_t> fail(ByteSizeError error, ByteSizeError* why) {
  if (why) *why = error;
  return std::nullopt;
}

}  // namespace

std::optional<uint64_t> parse_byte_size(std::string_view text, ByteSizeError* why) {
  size_t pos = 0;
  while (pos < text.size() && is_digit(text[pos])) ++pos;
  if (pos == 0) return fail(ByteSizeError::kNotANumber, why);
  const std::string_view whole = text.substr(0, pos);
  std::string_view fraction;
  if (pos + 1 < text.size() && text[pos] == '.' && is_digit(text[pos + 1])) {
    const size_t start = ++pos;
    while (pos < text.size() && is_digit(text[pos])) ++pos;
    fraction = text.substr(start, pos - start);
  }
  while (pos < text.size() && text[pos] == ' ') ++pos;
  const std::optional<uint64_t> scale = unit_scale(text.substr(pos));
  if (!scale) return fail(ByteSizeError::kUnknownUnit, why);

  uint64_t count = 0;
  for (char c : whole) {
    const uint64_t digit = static_cast<uint64_t>(c - '0');
    if (count > (kMaxBytes - digit) / 10) return fail(ByteSizeError::kTooLarge, why);
    count = count * 10 + digit;
  }
  if (count > kMaxBytes / *scale) return fail(ByteSizeError::kTooLarge, why);
  count *= *scale;

  // floor(0.d1d2...dn * scale) is what carries out of multiplying the digits d1...dn by scale from
  // the right: exact for any number of digits, and each carry stays below scale.
  uint64_t carry = 0;
  for (auto c = fraction.rbegin(); c != fraction.rend(); ++c) {
    carry = (static_cast<uint64_t>(*c - '0') * *scale + carry) / 10;
  }
  if (carry > kMaxBytes - count) return fail(ByteSizeError::kTooLarge, why);
  return count + carry;
}

std::string format_byte_size(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 6) {
    v /= 1024.0;
    ++unit;
  }
  char buf[48];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  }
  return buf;
}

}  // namespace lds
