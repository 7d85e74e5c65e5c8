// splitmix.h: splitmix64, the one pseudo-random generator behind every seeded sequence of the host.
//
// Header-only and free of dependencies, so a library that does not link the core (the conformance
// checker) can use it too. It is fully specified by its constants, unlike the standard library's
// distributions, so a seed gives the same payload bytes, trace and checks on any platform.
#pragma once

#include <cstdint>

namespace lds {

// The step between successive states: 2^64 divided by the golden ratio, odd.
inline constexpr uint64_t kSplitMix64Increment = 0x9E3779B97F4A7C15ull;

// The value a splitmix64 sequence whose state is `state` yields next: a well-mixed hash of one
// 64-bit word, for callers that derive each value from a position rather than from a sequence.
constexpr uint64_t splitmix64(uint64_t state) {
  uint64_t z = state + kSplitMix64Increment;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// A splitmix64 sequence.
class SplitMix64 {
 public:
  constexpr explicit SplitMix64(uint64_t seed) : state_(seed) {}

  constexpr uint64_t next() {
    const uint64_t value = splitmix64(state_);
    state_ += kSplitMix64Increment;
    return value;
  }

 private:
  uint64_t state_;
};

}  // namespace lds
