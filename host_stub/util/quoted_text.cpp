// quoted_text.cpp: a value quoted for an error message.
#include "util/quoted_text.h"

#include <cstdio>

namespace lds {

void append_escaping_control(std::string& out, unsigned char c) {
  if (c >= 0x20 && c != 0x7F) {
    out += static_cast<char>(c);
    return;
  }
  char escape[8];
  std::snprintf(escape, sizeof escape, "\\u%04X", c);
  out += escape;
}

std::string quoted_text(std::string_view s) {
  std::string out = "\"";
  for (unsigned char c : s) append_escaping_control(out, c);
  return out + "\"";
}

}  // namespace lds
