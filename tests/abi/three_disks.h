// three_disks.h: an in-memory LogManager over three disks of 1, 2 and 4 GB, for the ABI suites,
// which need placements and swaps but no files.
#pragma once

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "io/disk_probe.h"
#include "storage/log_manager.h"
#include "strategy/strategy_slot.h"

namespace lds::test {

// Three disks of 1, 2 and 4 GB (the dirs named a, b and anything else), a quarter used.
class ThreeDisks final : public DiskProbe {
 public:
  DiskSpace read(const std::filesystem::path& dir) const override {
    const uint64_t gb = 1'000'000'000;
    const uint64_t total = dir.filename() == "a" ? gb : dir.filename() == "b" ? 2 * gb : 4 * gb;
    return {true, total, total / 4 * 3};
  }
};

// A started in-memory LogManager over `log_dirs` on ThreeDisks, placing through `slot`.
inline std::unique_ptr<LogManager> three_disk_logs(StrategySlot& slot,
                                                   std::vector<std::string> log_dirs) {
  LogManager::Options options;
  for (std::string& d : log_dirs) options.log_dirs.emplace_back(std::move(d));
  options.in_memory = true;
  auto logs = std::make_unique<LogManager>(options, std::make_shared<ThreeDisks>(), slot);
  logs->startup();
  return logs;
}

}  // namespace lds::test
