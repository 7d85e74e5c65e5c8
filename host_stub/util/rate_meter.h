// rate_meter.h: an exponentially decayed bytes-per-second meter, the append rate a log directory
// and a partition report to strategies (lds_dir.bytes_in_per_sec, ABI 1.1).
//
// Time is passed in, in seconds of a monotonic clock, so tests and the simulator drive it with a
// clock of their own. The meters are not thread-safe; their owner serialises calls, reads included
// (MemoRateMeter::rate keeps its last answer).
#pragma once

#include <cmath>
#include <cstdint>
#include <limits>

namespace lds {

class RateMeter {
 public:
  // A rate over less than this much history says nothing: known() stays false until then.
  static constexpr double kMinHistorySeconds = 1.0;

  // Starts (or restarts) measuring at `now`, forgetting everything before.
  void start(double now) {
    decayed_bytes_ = 0;
    last_ = now;
    start_ = now;
  }

  // Counts `bytes` written at `now`. Starts the meter first if it was not started. Time going
  // backwards counts as no time passing.
  void add(double now, uint64_t bytes, double window_seconds) {
    if (!started()) start(now);
    decay_to(now, window_seconds);
    decayed_bytes_ += static_cast<double>(bytes);
  }

  // True once the meter has watched for kMinHistorySeconds: until then rate() is 0 and means
  // "unknown", not "idle".
  bool known(double now) const { return started() && now - start_ >= kMinHistorySeconds; }

  // Bytes per second: the bytes counted, each weighted by exp(-age / window), divided by the
  // weight a steady rate would have collected over the history so far, window * (1 -
  // exp(-history / window)). So a steady rate reads as itself whether the history is shorter or
  // longer than the window, and older bytes fade with time constant `window_seconds`.
  double rate(double now, double window_seconds) const {
    if (!known(now) || window_seconds <= 0) return 0;
    const double since_last = now > last_ ? now - last_ : 0;
    const double history = now - start_;
    const double bytes = decayed_bytes_ * std::exp(-since_last / window_seconds);
    const double weight = window_seconds * -std::expm1(-history / window_seconds);
    return weight > 0 ? bytes / weight : 0;
  }

 private:
  void decay_to(double now, double window_seconds) {
    if (now <= last_) return;
    if (window_seconds > 0) decayed_bytes_ *= std::exp(-(now - last_) / window_seconds);
    last_ = now;
  }

  bool started() const { return !std::isnan(start_); }

  // Three doubles and no flag: a partition holds one, and a broker a million partitions.
  double decayed_bytes_ = 0;  // bytes, each weighted by exp(-(last_ - its time) / window)
  double last_ = 0;           // time of the last decay
  double start_ = std::numeric_limits<double>::quiet_NaN();  // when measuring began; NaN: not yet
};

// A RateMeter that, asked again at the same `now` and window with nothing counted since, answers
// from its last answer. For the meters every placement reads (each directory's, the topic's): many
// placements fall in one tick of a coarse clock (DiskProbe::now_seconds), and the two
// exponentials are most of what a rate costs. A partition's own meter is the plain one: a broker
// holds a million of them, and they are read one at a time.
class MemoRateMeter {
 public:
  void start(double now) {
    memo_now_ = -1;
    meter_.start(now);
  }
  void add(double now, uint64_t bytes, double window_seconds) {
    memo_now_ = -1;
    meter_.add(now, bytes, window_seconds);
  }
  bool known(double now) const { return meter_.known(now); }
  double rate(double now, double window_seconds) const {
    if (now != memo_now_ || window_seconds != memo_window_) {
      memo_rate_ = meter_.rate(now, window_seconds);
      memo_now_ = now;
      memo_window_ = window_seconds;
    }
    return memo_rate_;
  }

 private:
  RateMeter meter_;
  mutable double memo_now_ = -1;  // the `now` of the last answer; -1 after a change
  mutable double memo_window_ = 0;
  mutable double memo_rate_ = 0;
};

}  // namespace lds
