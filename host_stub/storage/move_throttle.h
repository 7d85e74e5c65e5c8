// move_throttle.h: replica.alter.log.dirs.io.max.bytes.per.second as the replica mover applies it,
// one schedule of copied bytes shared by every move.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <thread>

#include "config/config.h"
#include "util/mutex.h"

namespace lds {

// Whether `limit` (replica.alter.log.dirs.io.max.bytes.per.second) limits at all: 0 holds every
// move, kNoMoveThrottle (the default) and above is none.
inline bool is_move_limit(uint64_t limit) { return limit > 0 && limit < kNoMoveThrottle; }

// replica.alter.log.dirs.io.max.bytes.per.second, shared by every move: all of them together copy
// at most that many bytes a second, every byte counted, the catch-up's included, as Kafka's
// intra-broker quota does. The limit is read before each range, so a change applies to running
// moves (and starts a fresh schedule); 0 is a quota that lets no byte through, as in Kafka, so the
// copies wait for it to be raised.
//
// The schedule is one point in time, `due_`: when every byte accounted so far has been paid for at
// the limit. A copy of n bytes pushes it n / limit further (from the copy's start, if the moves
// were idle), and its mover sleeps until then: after the copy for the bulk ranges, before it for
// the catch-up, which holds the partition's I/O lock and so must not sleep.
class MoveThrottle {
 public:
  using Clock = std::chrono::steady_clock;

  explicit MoveThrottle(const std::atomic<uint64_t>& bytes_per_second)
      : bytes_per_second_(bytes_per_second) {}

  uint64_t limit() const { return bytes_per_second_.load(std::memory_order_relaxed); }

  // Whether the copy that waits was abandoned (its move cancelled, or the mover stopping): asked
  // at every look at the limit, so that neither waits out a low limit's schedule.
  using Abandoned = std::function<bool()>;

  // The limit is 0: waits a little, for the caller to look at the limit and cancellation again.
  static void pause() { std::this_thread::sleep_for(kPausedPoll); }

  // `bytes` were copied from `started` on: sleeps until the moves' copies so far fit the limit,
  // or the copy is abandoned.
  void copied(uint64_t bytes, Clock::time_point started, const Abandoned& abandoned) {
    const uint64_t l = limit();
    if (!is_move_limit(l)) return;
    sleep_until(account(bytes, started, l), l, abandoned);
  }

  // Sleeps until `bytes` more may be copied at once, paid for in advance. False when the limit
  // is 0 (again), or the copy was abandoned meanwhile: the caller copies nothing.
  bool before_copy(uint64_t bytes, const Abandoned& abandoned) {
    const uint64_t l = limit();
    if (l == 0) return false;
    return !is_move_limit(l) || sleep_until(account(bytes, Clock::now(), l), l, abandoned);
  }

  // `bytes` were copied beyond what before_copy() paid for (appends that came meanwhile): the
  // next copy of any move waits for them.
  void owe(uint64_t bytes) {
    const uint64_t l = limit();
    if (is_move_limit(l) && bytes > 0) account(bytes, Clock::now(), l);
  }

 private:
  // How often a paused copy looks at the limit again, and the longest sleep between two looks at
  // a changed limit and at an abandoned copy.
  static constexpr std::chrono::milliseconds kPausedPoll{50};
  static constexpr std::chrono::milliseconds kLongestSleep{100};

  // Adds `bytes` to the schedule from `from` on under limit `l`; returns when they are paid for.
  Clock::time_point account(uint64_t bytes, Clock::time_point from, uint64_t l);
  // Sleeps until `due`, or until the limit changes from `l` (the new one applies at once); false
  // if it stopped because the copy was abandoned.
  bool sleep_until(Clock::time_point due, uint64_t l, const Abandoned& abandoned) const;

  const std::atomic<uint64_t>& bytes_per_second_;
  Mutex mu_;  // guards the two below
  uint64_t schedule_limit_ GUARDED_BY(mu_) = 0;
  Clock::time_point due_ GUARDED_BY(mu_){};
};

}  // namespace lds
