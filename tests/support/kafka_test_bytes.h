// kafka_test_bytes.h: hex text to bytes and back, for tests that spell wire bytes out by hand.
#pragma once

#include <cctype>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lds::test {

// "00 0a ff" (spaces and newlines ignored) to bytes.
inline std::string from_hex(std::string_view hex) {
  std::string digits;
  for (char c : hex) {
    if (std::isxdigit(static_cast<unsigned char>(c)) != 0) digits += c;
  }
  if (digits.size() % 2 != 0) throw std::invalid_argument("odd number of hex digits");
  std::string out;
  for (size_t i = 0; i < digits.size(); i += 2) {
    out += static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16));
  }
  return out;
}

inline std::string to_hex(std::string_view bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (char c : bytes) {
    const auto u = static_cast<unsigned char>(c);
    if (!out.empty()) out += ' ';
    out += kDigits[u >> 4];
    out += kDigits[u & 0xF];
  }
  return out;
}

}  // namespace lds::test
