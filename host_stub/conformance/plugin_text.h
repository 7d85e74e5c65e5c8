// plugin_text.h: text a plugin hands back: the error_cap values the checks use, and the quoting
// that puts a plugin's text into a check's detail (the buffer itself is error_buffer.h).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace lds::conformance_detail {

// The error_cap of an ordinary call, and the caps the truncation checks try in turn.
inline constexpr uint32_t kErrorCap = 256;
inline constexpr std::array<uint32_t, 3> kTinyErrorCaps = {8, 1, 0};

// Plugin text quoted in a detail: printable ASCII only, and short.
std::string quote(std::string_view text);

}  // namespace lds::conformance_detail
