// byte_size.h: byte counts as operators write them ("1048576", "64MiB", "1.5 TiB"), one grammar for
// the command line and for simulator traces, and one way of printing them for people.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace lds {

enum class ByteSizeError {
  kNotANumber,   // no digits first, as in "ten" or "-1"
  kUnknownUnit,  // digits followed by something else than a unit, as in "5 XB" or "1.5.3"
  kTooLarge,     // more than 2^64-1 bytes
};

// Digits, optionally a '.' and more digits, optionally spaces, then a unit: none or B; K, KB or
// KiB; M, MB or MiB; G, GB or GiB; T, TB or TiB. Every unit is a power of 1024, the decimal-looking
// ones included, since the command line and the traces have always read them so. A fraction of a
// byte is dropped. Returns nullopt, with `why` set when given, for anything else.
std::optional<uint64_t> parse_byte_size(std::string_view text, ByteSizeError* why = nullptr);

// "100 B", "1.5 MiB", "41.2 GiB": powers of 1024, one decimal above bytes. What every message and
// table shows; parse_byte_size reads it back (to within the rounding).
std::string format_byte_size(uint64_t bytes);

}  // namespace lds
