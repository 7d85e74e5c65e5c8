// placed_call.cpp: calling placed with the created partition and the directory that took it.
#include "conformance/placed_call.h"

#include <limits>

namespace lds::conformance_detail {
namespace {

// The host of placed is always 1.2: older hosts never call it.
constexpr uint32_t kPlacedHostMinor = 2;

uint32_t plus_one(uint32_t count) {
  return count == std::numeric_limits<uint32_t>::max() ? count : count + 1;
}

}  // namespace

std::string call_placed(const lds_strategy& strategy, void* instance, const CandidateSet& set,
                        uint32_t index, DirLayout layout) {
  if (strategy.placed == nullptr) return "";
  CandidateSet created;
  created.topic = set.topic;
  created.request = set.request;
  created.paths = {set.paths.at(index)};
  lds_dir dir = set.dirs.at(index);
  dir.partition_count = plus_one(dir.partition_count);
  dir.topic_partition_count = plus_one(dir.topic_partition_count);
  created.dirs = {dir};
  HostBlock dir_block = host_dirs(created, layout, kPlacedHostMinor);
  HostBlock request = host_request(created, kPlacedHostMinor);
  dir_block.seal();
  request.seal();
  try {
    strategy.placed(instance, reinterpret_cast<const lds_request*>(request.data()),
                    reinterpret_cast<const lds_dir*>(dir_block.data()));
  } catch (...) {
    return "placed let a C++ exception escape across the C ABI";
  }
  if (dir_block.written_since_sealed() || request.written_since_sealed()) {
    return "placed wrote into the host's read-only request or directory";
  }
  return "";
}

}  // namespace lds::conformance_detail
