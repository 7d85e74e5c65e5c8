// virtual_disks.cpp: virtual disks: fixed capacities and atomically counted used space.
#include "sim/virtual_disks.h"

#include <algorithm>

namespace lds::sim {

namespace fs = std::filesystem;

fs::path disk_path(const std::string& name) { return fs::path("/sim") / name; }

VirtualDisks::VirtualDisks(const std::vector<DiskSpec>& disks)
    : used_(std::make_unique<std::atomic<uint64_t>[]>(disks.size())) {
  for (const DiskSpec& d : disks) {
    paths_.push_back(disk_path(d.name));
    capacity_.push_back(d.capacity);
  }
}

DiskSpace VirtualDisks::read(const fs::path& dir) const {
  for (size_t i = 0; i < paths_.size(); ++i) {
    if (paths_[i].native() == dir.native()) {
      const uint64_t used = used_[i].load(std::memory_order_relaxed);
      return {true, capacity_[i], capacity_[i] - std::min(used, capacity_[i])};
    }
  }
  return {};
}

}  // namespace lds::sim
