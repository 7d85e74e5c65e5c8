// move_throttle.cpp: the schedule every move's copy is paced by.
#include "storage/move_throttle.h"

#include <algorithm>

namespace lds {

MoveThrottle::Clock::time_point MoveThrottle::account(uint64_t bytes, Clock::time_point from,
                                                      uint64_t l) {
  MutexLock lock(mu_);
  if (l != schedule_limit_) {  // a new limit: what was owed under the old one is forgiven
    schedule_limit_ = l;
    due_ = from;
  }
  due_ = std::max(due_, from) +
         std::chrono::duration_cast<Clock::duration>(
             std::chrono::duration<double>(static_cast<double>(bytes) / static_cast<double>(l)));
  return due_;
}

bool MoveThrottle::sleep_until(Clock::time_point due, uint64_t l,
                               const Abandoned& abandoned) const {
  for (auto now = Clock::now(); now < due && limit() == l; now = Clock::now()) {
    if (abandoned()) return false;
    std::this_thread::sleep_for(std::min<Clock::duration>(
        due - now, std::chrono::duration_cast<Clock::duration>(kLongestSleep)));
  }
  return true;
}

}  // namespace lds
