// tree_bytes.h: every entry under some folders with its bytes, what a test compares before and
// after a start that must refuse to show that nothing on disk changed, byte for byte.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "file_bytes.h"

namespace lds::test {

// Path -> the file's content; a directory maps to "<dir>", so an added or removed empty one shows.
inline std::map<std::string, std::string> tree_bytes(
    const std::vector<std::filesystem::path>& roots) {
  namespace fs = std::filesystem;
  std::map<std::string, std::string> out;
  for (const auto& root : roots) {
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(root, ec);
         it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_directory()) {
        out[it->path().string()] = "<dir>";
        continue;
      }
      out[it->path().string()] = file_bytes(it->path());
    }
  }
  return out;
}

}  // namespace lds::test
