// log_limiter.h: at most one log line per key and interval, with a count of the lines left out.
// For lines a client can make the broker write at will (a client that reconnects and asks the same
// refused thing again, many times a second).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <unordered_map>

#include "util/mutex.h"

namespace lds {

class LogLimiter {
 public:
  using Clock = std::function<std::chrono::steady_clock::time_point()>;

  // `max_keys` bounds the memory: past it, keys quiet for a whole interval are forgotten, and if
  // none is, all are (a line then comes through early, never is lost for good).
  explicit LogLimiter(std::chrono::milliseconds interval, size_t max_keys = 4096, Clock clock = {});

  // Whether a line for `key` may be logged now. If so, how many lines for `key` were left out
  // since the last one logged; nullopt: leave this one out (it is counted).
  std::optional<uint64_t> admit(const std::string& key);

 private:
  struct Entry {
    std::chrono::steady_clock::time_point logged;
    uint64_t left_out = 0;
  };
  const std::chrono::milliseconds interval_;
  const size_t max_keys_;
  const Clock clock_;
  Mutex mu_;
  std::unordered_map<std::string, Entry> entries_ GUARDED_BY(mu_);
};

}  // namespace lds
