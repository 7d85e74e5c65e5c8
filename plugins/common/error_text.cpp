// Formats error sentences into fixed-size ABI buffers, truncating on UTF-8 boundaries.
#include "error_text.h"

#include <cstdio>

namespace lds::plugin {
namespace {

// Length of the UTF-8 sequence a lead byte starts (1 for ASCII or a stray continuation byte).
size_t utf8_sequence_length(unsigned char lead) {
  if (lead >= 0xF0) return 4;
  if (lead >= 0xE0) return 3;
  if (lead >= 0xC0) return 2;
  return 1;
}

// The text was cut at byte `length`; drops a trailing incomplete multi-byte sequence so the buffer
// stays valid UTF-8.
void drop_incomplete_sequence(char* text, size_t length) {
  size_t start = length;
  while (start > 0 && (static_cast<unsigned char>(text[start - 1]) & 0xC0) == 0x80) --start;
  if (start == 0) {
    text[0] = '\0';
    return;
  }
  const size_t lead = start - 1;
  const auto lead_byte = static_cast<unsigned char>(text[lead]);
  if (lead_byte >= 0xC0 && length - lead < utf8_sequence_length(lead_byte)) text[lead] = '\0';
}

}  // namespace

void write_error(char* error, uint32_t error_cap, const char* format, ...) noexcept {
  va_list arguments;
  va_start(arguments, format);
  write_error_v(error, error_cap, format, arguments);
  va_end(arguments);
}

void write_error_v(char* error, uint32_t error_cap, const char* format,
                   va_list arguments) noexcept {
  if (error == nullptr || error_cap == 0) return;
  const int needed = std::vsnprintf(error, error_cap, format, arguments);
  if (needed < 0) {
    error[0] = '\0';
    return;
  }
  if (static_cast<uint64_t>(needed) >= error_cap) drop_incomplete_sequence(error, error_cap - 1);
}

}  // namespace lds::plugin
