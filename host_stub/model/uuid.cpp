// uuid.cpp: Kafka's Uuid as text, written and checked.
#include "model/uuid.h"

#include <cstdint>

#include "util/quoted_text.h"

namespace lds {

std::string uuid_text(std::span<const unsigned char, 16> bytes) {
  static constexpr char kB64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
  std::string out;
  for (size_t i = 0; i < 16; i += 3) {
    uint32_t chunk = static_cast<uint32_t>(bytes[i]) << 16;
    if (i + 1 < 16) chunk |= static_cast<uint32_t>(bytes[i + 1]) << 8;
    if (i + 2 < 16) chunk |= bytes[i + 2];
    out += kB64[(chunk >> 18) & 63];
    out += kB64[(chunk >> 12) & 63];
    if (i + 1 < 16) out += kB64[(chunk >> 6) & 63];
    if (i + 2 < 16) out += kB64[chunk & 63];
  }
  return out;  // 22 characters, no padding
}

std::string uuid_problem(std::string_view id) {
  if (id.size() != 22) {
    return quoted_text(id) + " is " + std::to_string(id.size()) +
           " characters long; a Uuid is 22 characters of URL-safe base64";
  }
  for (size_t i = 0; i < id.size(); ++i) {
    const char c = id[i];
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) {
      return quoted_text(id) + " has " + quoted_text(std::string_view(&id[i], 1)) +
             " at position " + std::to_string(i + 1) + ", outside URL-safe base64";
    }
  }
  return "";
}

std::string uuid_string_problem(std::string_view text) {
  if (text.size() > 24) return "longer than the 24 characters of a base64 Uuid";
  size_t data = 0;
  while (data < text.size() && text[data] != '=') {
    const char c = text[data];
    const bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                    c == '-' || c == '_';
    if (!ok) {
      return quoted_text(std::string_view(&text[data], 1)) + " at position " +
             std::to_string(data + 1) + " is outside URL-safe base64";
    }
    ++data;
  }
  const size_t padding = text.size() - data;
  if (text.find_first_not_of('=', data) != std::string_view::npos || data % 4 == 1 ||
      (padding > 0 && padding != 4 - data % 4)) {
    return "its padding is not base64's";
  }
  const size_t bytes = data / 4 * 3 + (data % 4 == 0 ? 0 : data % 4 - 1);
  if (bytes != 16) return "it decodes to " + std::to_string(bytes) + " bytes, not 16";
  return "";
}

}  // namespace lds
