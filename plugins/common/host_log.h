// Logging from a plugin through the host's lds_host_api callbacks, including a warn-once latch.
#pragma once

#include <atomic>
#include <cstdint>

#include <lds/logdir_strategy.h>

namespace lds::plugin {

// True if the host would write a message at level: host and its log callback are present, and
// log_enabled (when the host provides it) agrees.
bool host_log_enabled(const lds_host_api* host, int32_t level) noexcept;

// Writes message at level through host->log. A NULL host or callback makes this a no-op.
void log_to_host(const lds_host_api* host, int32_t level, const char* message) noexcept;

// Logs one warning the first time Warn is called on this object and never again, however many
// threads call it. Keeps the strategies' fallback warnings from flooding the broker log.
class WarnOnce {
 public:
  void warn(const lds_host_api* host, const char* format, ...) noexcept
      __attribute__((format(printf, 3, 4)));

 private:
  std::atomic<bool> fired_{false};
};

}  // namespace lds::plugin
