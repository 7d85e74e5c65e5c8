// virtual_disks.h: the disks of one simulated run, a DiskProbe with fixed capacities whose used
// space only the replay changes; nothing touches a real file system.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/disk_probe.h"
#include "sim/trace.h"

namespace lds::sim {

// A disk's log directory as the LogManager and the strategy see it: /sim/<name>.
std::filesystem::path disk_path(const std::string& name);

// read() may be called from any thread, as the DiskProbe contract asks.
class VirtualDisks final : public DiskProbe {
 public:
  explicit VirtualDisks(const std::vector<DiskSpec>& disks);

  DiskSpace read(const std::filesystem::path& dir) const override;

  const std::vector<std::filesystem::path>& paths() const { return paths_; }
  uint64_t capacity(size_t i) const { return capacity_[i]; }
  uint64_t used(size_t i) const { return used_[i].load(std::memory_order_relaxed); }
  uint64_t free(size_t i) const { return capacity_[i] - std::min(used(i), capacity_[i]); }
  void add(size_t i, uint64_t bytes) { used_[i].fetch_add(bytes, std::memory_order_relaxed); }
  // A moved replica's bytes leaving disk i.
  void remove(size_t i, uint64_t bytes) { used_[i].fetch_sub(std::min(bytes, used(i))); }

  // Trace time, the clock the LogManager measures append rates by: set by the replay.
  double now_seconds() const override { return now_.load(std::memory_order_relaxed); }
  void set_now(double seconds) { now_.store(seconds, std::memory_order_relaxed); }

 private:
  std::vector<std::filesystem::path> paths_;
  std::vector<uint64_t> capacity_;
  std::unique_ptr<std::atomic<uint64_t>[]> used_;
  std::atomic<double> now_{0};
};

}  // namespace lds::sim
