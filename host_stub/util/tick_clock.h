// tick_clock.h: a cheap monotonic clock for timing placements: the CPU's invariant time-stamp
// counter on x86-64 (a read costs a few nanoseconds, a third of clock_gettime's), calibrated once
// against the steady clock; the steady clock itself where there is no invariant counter.
#pragma once

#include <chrono>
#include <cstdint>

#if defined(__x86_64__)
#include <x86intrin.h>
#endif

namespace lds {

class TickClock {
 public:
  // Decides the source and, for the counter, measures its rate against the steady clock (a spin of
  // a few milliseconds). Call once before now(); later calls return at once. Thread-safe.
  static void calibrate();

  static uint64_t now() noexcept {
#if defined(__x86_64__)
    if (use_tsc) return __rdtsc();
#endif
    return static_cast<uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count());
  }
  static std::chrono::nanoseconds since(uint64_t start) noexcept {
    const uint64_t end = now();
    const uint64_t ticks = end > start ? end - start : 0;  // another core's counter may lag
    return std::chrono::nanoseconds(static_cast<int64_t>(static_cast<double>(ticks) * ns_per_tick));
  }

 private:
  static bool use_tsc;
  static double ns_per_tick;
};

}  // namespace lds
