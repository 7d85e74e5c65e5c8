// tree_bytes.h: every entry under some folders with its bytes, what a test compares before and
// after a start that must refuse to show that nothing on disk changed, byte for byte.
#pragma once

#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

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
      std::ifstream in(it->path(), std::ios::binary);
      out[it->path().string()] = std::string(std::istreambuf_iterator<char>(in), {});
    }
  }
  return out;
}

}  // namespace lds::test
