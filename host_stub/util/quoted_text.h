// quoted_text.h: a value quoted for an error message, its control characters escaped, so that a
// hand-edited file's stray byte shows in the sentence instead of breaking it.
#pragma once

#include <string>
#include <string_view>

namespace lds {

// `s` in double quotes, each control character as \uXXXX (as Java prints them).
std::string quoted_text(std::string_view s);

// Appends `c` to `out`, as \uXXXX when it is a control character (below 0x20, or 0x7F).
void append_escaping_control(std::string& out, unsigned char c);

}  // namespace lds
