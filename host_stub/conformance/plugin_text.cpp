// plugin_text.cpp: the quoting of plugin text in details.
#include "conformance/plugin_text.h"

namespace lds::conformance_detail {

std::string quote(std::string_view text) {
  std::string out = "\"";
  for (const char c : text.substr(0, 120)) {
    out += (c >= 0x20 && c < 0x7f) ? c : '?';
  }
  if (text.size() > 120) out += "...";
  return out + "\"";
}

}  // namespace lds::conformance_detail
