// host_test_support.h: shared pieces of the host unit tests: a temp folder, a fake DiskProbe,
// plugins.
#pragma once

#include <spdlog/sinks/ringbuffer_sink.h>
#include <stdlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "io/disk_probe.h"
#include "strategy/strategy_plugin.h"
#include "temp_dir.h"
#include "util/logging.h"

namespace lds::test {

namespace fs = std::filesystem;

// The private plugin copies this process has mapped (each file once, however many segments).
// With `only_existing`, only those whose file still exists: the loader unlinks its copy as soon as
// it is mapped, so the kernel marks every such mapping "(deleted)". Read from this process's own
// maps, not from the temp folder, which tests running beside this one also use.
inline int private_copies_in_maps(bool only_existing) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  std::set<std::string> files;
  while (std::getline(maps, line)) {
    const auto at = line.find("lds-plugin-");
    if (at == std::string::npos || (only_existing && line.ends_with("(deleted)"))) continue;
    files.insert(line.substr(line.rfind('/', at)));
  }
  return static_cast<int>(files.size());
}
inline int mapped_private_copies() { return private_copies_in_maps(false); }
inline int leftover_private_copies() { return private_copies_in_maps(true); }

// Disks whose size the test sets; unknown paths read as "space unknown".
class FakeDiskProbe final : public DiskProbe {
 public:
  DiskSpace read(const fs::path& dir) const override {
    std::lock_guard lock(mu_);
    auto it = space_.find(dir);
    return it == space_.end() ? DiskSpace{} : it->second;
  }
  void set(const fs::path& dir, uint64_t total, uint64_t usable) {
    std::lock_guard lock(mu_);
    space_[dir] = DiskSpace{true, total, usable};
  }
  void fail(const fs::path& dir) {
    std::lock_guard lock(mu_);
    space_.erase(dir);
  }

  // The clock of the append rates: the real one until a test sets it, then only what it is set to.
  double now_seconds() const override {
    std::lock_guard lock(mu_);
    return now_ >= 0 ? now_ : DiskProbe::now_seconds();
  }
  void set_now(double seconds) {
    std::lock_guard lock(mu_);
    now_ = seconds;
  }
  void advance(double seconds) {
    std::lock_guard lock(mu_);
    now_ += seconds;
  }

 private:
  mutable std::mutex mu_;
  std::map<fs::path, DiskSpace> space_;
  double now_ = -1;  // < 0: the real clock
};

inline fs::path plugin_dir() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  return dir ? fs::path(dir) : fs::path("plugins");
}

// Loads one of the build's plugins with the given options and dry-run candidates.
inline std::shared_ptr<const LoadedStrategy> load_plugin(
    const std::string& name, std::vector<std::pair<std::string, std::string>> options = {},
    uint64_t generation = 1, std::span<const lds_dir> dirs = {}) {
  StrategyLoadSpec spec;
  spec.plugin_dir = plugin_dir();
  spec.name = name;
  spec.options = std::move(options);
  spec.generation = generation;
  spec.dry_run_dirs = dirs;
  return LoadedStrategy::load(spec);
}

// Captures what one host logger writes, for as long as the object lives.
class LogCapture {
 public:
  explicit LogCapture(const std::string& logger_name)
      : logger_(logger(logger_name)),
        sink_(std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(256)) {
    logger_->sinks().push_back(sink_);
  }
  ~LogCapture() { logger_->sinks().pop_back(); }
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;
  std::string text() const {
    std::string all;
    for (const auto& line : sink_->last_formatted()) all += line;
    return all;
  }

 private:
  std::shared_ptr<spdlog::logger> logger_;
  std::shared_ptr<spdlog::sinks::ringbuffer_sink_mt> sink_;
};

}  // namespace lds::test
