// plugin_text.h: text a plugin hands back: the error buffer it writes into, with canaries past
// error_cap, and the quoting that puts its text into a check's detail.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace lds::conformance_detail {

// The error_cap of an ordinary call, and the caps the truncation checks try in turn.
inline constexpr uint32_t kErrorCap = 256;
inline constexpr std::array<uint32_t, 3> kTinyErrorCaps = {8, 1, 0};

// Plugin text quoted in a detail: printable ASCII only, and short.
std::string quote(std::string_view text);

// An error buffer of `cap` bytes followed by canary bytes, so writes past error_cap are visible.
class ErrorBuffer {
 public:
  explicit ErrorBuffer(uint32_t cap);

  char* data() { return bytes_.data(); }
  uint32_t cap() const { return cap_; }

  // What the plugin did wrong with the buffer, or "" if it kept to error_cap. With `terminated`, a
  // NUL must also exist within the first error_cap bytes (required whenever a status is not
  // LDS_OK).
  std::string fault(bool terminated) const;

  // The text up to the first NUL within error_cap (all error_cap bytes if there is none).
  std::string text() const;

 private:
  uint32_t cap_;
  std::vector<char> bytes_;
};

}  // namespace lds::conformance_detail
