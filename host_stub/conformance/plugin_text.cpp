// plugin_text.cpp: the canaried error buffer and the quoting of plugin text in details.
#include "conformance/plugin_text.h"

#include <cstring>

namespace lds::conformance_detail {
namespace {

constexpr size_t kCanarySlack = 64;
constexpr char kCanaryByte = static_cast<char>(0xA5);

}  // namespace

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text.substr(0, 120)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (text.size() > 120) out += "...";
  return out + "\"";
}

ErrorBuffer::ErrorBuffer(uint32_t cap) : cap_(cap), bytes_(cap + kCanarySlack, kCanaryByte) {}

std::string ErrorBuffer::fault(bool terminated) const {
  for (size_t i = cap_; i < bytes_.size(); ++i) {
    if (bytes_[i] != kCanaryByte) {
      return "wrote byte " + std::to_string(i) + " of the error buffer, past error_cap " +
             std::to_string(cap_);
    }
  }
  if (terminated && cap_ > 0 && std::memchr(bytes_.data(), '\0', cap_) == nullptr) {
    return "left the error text without a NUL within error_cap " + std::to_string(cap_);
  }
  return "";
}

std::string ErrorBuffer::text() const {
  const char* begin = bytes_.data();
  const void* nul = std::memchr(begin, '\0', cap_);
  const size_t length = nul ? static_cast<size_t>(static_cast<const char*>(nul) - begin) : cap_;
  return std::string(begin, length);
}

}  // namespace lds::conformance_detail
