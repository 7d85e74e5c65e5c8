// Test helper: loads a strategy plugin from LDS_PLUGIN_DIR with dlopen, creates instances with
// options, captures what they log, and ranks vectors of directories.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include <lds/logdir_strategy.h>

namespace lds_test {

inline constexpr uint64_t kMB = 1000ull * 1000ull;

// A version 1 lds_dir. path must outlive the rank call (string literals do).
lds_dir Dir(const char* path, uint64_t total_bytes, uint64_t usable_bytes,
            uint64_t reserved_bytes = 0, uint32_t partition_count = 0,
            uint32_t topic_partition_count = 0, uint32_t flags = 0);

struct LogLine {
  int32_t level;
  std::string message;
};

// An lds_host_api whose log callback records every line; safe to log into from many threads.
class LogCapture {
 public:
  LogCapture();
  LogCapture(const LogCapture&) = delete;
  LogCapture& operator=(const LogCapture&) = delete;

  const lds_host_api* api() const { return &api_; }
  std::vector<LogLine> lines() const;
  size_t CountAtLevel(int32_t level) const;

 private:
  static void Log(void* context, int32_t level, const char* message);

  mutable std::mutex mutex_;
  std::vector<LogLine> lines_;
  lds_host_api api_;
};

// liblds_<name>.so from LDS_PLUGIN_DIR, loaded for the object's lifetime.
class StrategyPlugin {
 public:
  explicit StrategyPlugin(const std::string& name);
  ~StrategyPlugin();
  StrategyPlugin(const StrategyPlugin&) = delete;
  StrategyPlugin& operator=(const StrategyPlugin&) = delete;

  lds_strategy_get_fn entry_point() const { return entry_point_; }
  // The descriptor for this build's ABI version; throws if the plugin refuses it.
  const lds_strategy& descriptor() const;

 private:
  void* handle_ = nullptr;
  lds_strategy_get_fn entry_point_ = nullptr;
};

using Options = std::vector<std::pair<std::string, std::string>>;

struct CreateResult {
  int32_t status;
  std::string error;
};

struct RankResult {
  int32_t status;
  std::vector<uint32_t> order;
  std::string error;
};

// Calls create with options on a fresh load of the plugin and destroys any instance it made.
CreateResult TryCreate(const std::string& name, const Options& options);

// One created instance of a strategy, with a LogCapture as its host.
class Strategy {
 public:
  // Throws std::runtime_error (which fails the test) if the plugin cannot be loaded or create
  // fails.
  explicit Strategy(const std::string& name, const Options& options = {});
  ~Strategy();
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;

  // Ranks dirs for a partition of expected_bytes. Checks the answer against the rank contract
  // (indices in range and unique, order_len within dir_count, order_len 0 on failure) and records
  // a test failure if it is broken.
  RankResult Rank(const std::vector<lds_dir>& dirs, uint64_t expected_bytes = 0,
                  uint32_t error_cap = 256) const;
  // The same for a request the test fills (its topic may be NULL: "orders" is used).
  RankResult Rank(const std::vector<lds_dir>& dirs, const lds_request& request,
                  uint32_t error_cap = 256) const;

  const lds_strategy& descriptor() const { return plugin_.descriptor(); }
  void* instance() const { return instance_; }
  const LogCapture& log() const { return log_; }

 private:
  StrategyPlugin plugin_;
  LogCapture log_;
  void* instance_ = nullptr;
};

// The index order a rank result names, as dir paths, for readable assertions.
std::vector<std::string> Paths(const std::vector<lds_dir>& dirs,
                               const std::vector<uint32_t>& order);

}  // namespace lds_test
