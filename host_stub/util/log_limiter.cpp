// log_limiter.cpp: one log line per key and interval.
#include "util/log_limiter.h"

#include <utility>

namespace lds {

LogLimiter::LogLimiter(std::chrono::milliseconds interval, size_t max_keys, Clock clock)
    : interval_(interval),
      max_keys_(max_keys),
      clock_(clock ? std::move(clock) : Clock([] { return std::chrono::steady_clock::now(); })) {}

std::optional<uint64_t> LogLimiter::admit(const std::string& key) {
  const auto now = clock_();
  MutexLock lock(mu_);
  auto it = entries_.find(key);
  if (it != entries_.end()) {
    Entry& e = it->second;
    if (now - e.logged < interval_) {
      ++e.left_out;
      return std::nullopt;
    }
    const uint64_t left_out = e.left_out;
    e = Entry{now, 0};
    return left_out;
  }
  if (entries_.size() >= max_keys_) {
    std::erase_if(entries_, [&](const auto& kv) { return now - kv.second.logged >= interval_; });
    if (entries_.size() >= max_keys_) entries_.clear();
  }
  entries_.emplace(key, Entry{now, 0});
  return 0;
}

}  // namespace lds
