// tick_clock.cpp: chooses the tick source and calibrates it.
#include "util/tick_clock.h"

#include <fstream>
#include <mutex>
#include <sstream>
#include <string>

namespace lds {

bool TickClock::use_tsc = false;
double TickClock::ns_per_tick = 1.0;

namespace {

// The kernel's word that the time-stamp counter runs at one rate in every power state and on every
// core: constant_tsc and nonstop_tsc among the CPU flags.
bool invariant_tsc() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("flags", 0) != 0) continue;
    std::istringstream words(line);
    bool constant = false, nonstop = false;
    for (std::string w; words >> w;) {
      constant = constant || w == "constant_tsc";
      nonstop = nonstop || w == "nonstop_tsc";
    }
    return constant && nonstop;
  }
  return false;
}

}  // namespace

void TickClock::calibrate() {
  static std::once_flag once;
  std::call_once(once, [] {
#if defined(__x86_64__)
    if (!invariant_tsc()) return;
    using Steady = std::chrono::steady_clock;
    const auto t0 = Steady::now();
    const uint64_t c0 = __rdtsc();
    Steady::time_point t1;
    do {
      t1 = Steady::now();
    } while (t1 - t0 < std::chrono::milliseconds(5));
    const uint64_t c1 = __rdtsc();
    if (c1 <= c0) return;
    ns_per_tick = static_cast<double>(std::chrono::nanoseconds(t1 - t0).count()) /
                  static_cast<double>(c1 - c0);
    use_tsc = true;
#endif
  });
}

}  // namespace lds
