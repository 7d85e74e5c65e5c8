// strategy_plugin.h: one loaded and validated strategy plugin: library, descriptor and instance.
//
// A LoadedStrategy is immutable once built. It is shared by every placement that ranks with it; the
// last reference to drop destroys the instance and unloads the library. A strategy that a thread
// is still inside when its load gives up on it is never destroyed nor unloaded.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <lds/logdir_strategy.h>

namespace boost::dll {
class shared_library;
}
namespace spdlog {
class logger;
}

namespace lds {

struct StrategyLoadSpec {
  std::filesystem::path plugin_dir;                          // canonical plugin.dir
  std::string name;                                          // log.directory.select.strategy
  std::vector<std::pair<std::string, std::string>> options;  // log.directory.select.<name>.*
  uint64_t generation = 0;    // stamped on every placement this strategy decides
  bool never_unload = false;  // plugin.never.unload: keep the library mapped after destroy
  // Candidates for the dry-run rank (the current online directories), and the request to rank.
  std::span<const lds_dir> dry_run_dirs;
  // plugin.validation.timeout.ms: how long create and the dry-run rank may take together.
  std::chrono::milliseconds validation_timeout{5000};
  // The count of placements made by strategies of this name (StrategySlot::placement_count), which
  // goes on across swaps; null: none is kept.
  std::shared_ptr<std::atomic<uint64_t>> placement_count;
};

class LoadedStrategy {
 public:
  // Loads <plugin_dir>/liblds_<name>.so from a private copy and runs every check, in order: name
  // syntax, file safety, loads as a shared object, entry symbol, version handshake, struct_size,
  // descriptor name, non-null functions, create, dry-run rank. Throws PluginError with one sentence
  // naming the file and the fault.
  //
  // create and the dry-run rank run on a thread of their own, bounded by spec.validation_timeout.
  // Past it the load is refused, the thread is left inside the plugin, and the strategy is kept
  // for the rest of the process: its library stays mapped and its instance is never destroyed,
  // since that thread may still return into it.
  static std::shared_ptr<const LoadedStrategy> load(const StrategyLoadSpec& spec);

  // Threads inside strategy plugin code right now (create, rank or destroy of any strategy),
  // including those a load gave up on. A process that ends with some must not run its exit-time
  // destructors or unload anything underneath them.
  static size_t threads_inside();

  ~LoadedStrategy();
  LoadedStrategy(const LoadedStrategy&) = delete;
  LoadedStrategy& operator=(const LoadedStrategy&) = delete;

  const std::string& name() const { return name_; }
  const std::string& version() const { return version_; }
  const std::string& description() const { return description_; }
  uint64_t capabilities() const { return capabilities_; }
  uint64_t generation() const { return generation_; }
  const std::filesystem::path& file() const { return file_; }
  bool honors_cordon() const { return (capabilities_ & LDS_CAP_HONORS_CORDON) != 0; }
  // The options it was created with (log.directory.select.<name>.*, prefix removed).
  const std::vector<std::pair<std::string, std::string>>& options() const { return options_; }

  // Whether the plugin file now differs from the one this strategy was loaded from (replaced,
  // rebuilt or removed), so a reload would load different code.
  bool file_changed() const;

  // Calls the plugin's rank on this instance. Safe from many threads.
  int32_t rank(lds_rank_args* args) const noexcept;
  // Tells the instance where a partition was created (ABI 1.2 placed); a no-op for a plugin
  // without it. Safe from many threads.
  void placed(const lds_request& request, const lds_dir& dir) const noexcept;
  bool has_placed() const { return descriptor_.placed != nullptr; }
  // What the plugin's scores are (ABI 1.2 score_name, e.g. "projected fill"); empty when it
  // writes none.
  const std::string& score_name() const { return score_name_; }

  // Placements this generation left to the built-in order because its answer was refused.
  uint64_t fallbacks() const { return fallbacks_.load(std::memory_order_relaxed); }
  void count_fallback() const { fallbacks_.fetch_add(1, std::memory_order_relaxed); }
  // A partition was created where this strategy's decision put it (spec.placement_count).
  void count_placement() const noexcept {
    if (placement_count_) placement_count_->fetch_add(1, std::memory_order_relaxed);
  }

 private:
  LoadedStrategy() = default;

  // Maps `copy`, the private copy of file_, and unlinks it.
  void map_library(const std::filesystem::path& copy);
  // Calls the entry point and checks the descriptor it returns: version handshake, struct_size,
  // descriptor name, non-null functions. Keeps its copy and what it tells.
  void read_descriptor();
  // create and the dry-run rank, on a thread bounded by spec.validation_timeout. Past it, `self`
  // is kept for the rest of the process and the load refused.
  static void create_and_dry_run(std::shared_ptr<LoadedStrategy>& self,
                                 const StrategyLoadSpec& spec);

  std::unique_ptr<boost::dll::shared_library> library_;
  lds_strategy
      descriptor_{};  // the first min(struct_size, sizeof) bytes of the plugin's, zero-filled
  void* instance_ = nullptr;
  bool created_ = false;
  bool never_unload_ = false;
  std::string name_, version_, description_, score_name_;
  uint64_t capabilities_ = 0;
  uint64_t generation_ = 0;
  std::vector<std::pair<std::string, std::string>> options_;
  std::filesystem::path file_;
  std::string file_identity_;  // device, inode, size and mtime of the loaded file
  std::shared_ptr<spdlog::logger> log_;
  lds_host_api host_api_{};
  mutable std::atomic<uint64_t> fallbacks_{0};
  std::shared_ptr<std::atomic<uint64_t>> placement_count_;
};

}  // namespace lds
