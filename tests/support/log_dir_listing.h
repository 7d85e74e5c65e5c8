// log_dir_listing.h: what a test expects to find in log directories, listed: every entry below
// them, relative to a root, sorted, without the broker's own bookkeeping (meta.properties, the
// lock, lds.partition) and without segment indexes, which go with their segments and whose
// contents segment_index_test checks.
#pragma once

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "io/log_layout.h"

namespace lds::test {

inline std::vector<std::string> log_dir_listing(const std::vector<std::filesystem::path>& dirs,
                                                const std::filesystem::path& root) {
  std::vector<std::string> out;
  for (const auto& d : dirs) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(d)) {
      const std::filesystem::path name = e.path().filename();
      if (name == layout::kMetaProperties || name == layout::kLockFile ||
          name == layout::kPartitionMetadata) {
        continue;
      }
      if (name.extension() == ".index" || name.extension() == ".timeindex") continue;
      out.push_back(std::filesystem::relative(e.path(), root).string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace lds::test
