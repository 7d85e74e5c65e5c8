// quoted_text.cpp: a value quoted for an error message.
#include "util/quoted_text.h"

#include <cstdio>

namespace lds {

std::string quoted_text(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7F) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04X", c);
      out += escape;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out + "\"";
}

}  // namespace lds
