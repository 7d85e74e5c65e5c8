// latency_histogram.h: a fixed-bucket histogram of durations that records without a lock or an
// allocation, for the placement path; the metrics endpoint reads it as Prometheus' histogram.
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>

namespace lds {

class LatencyHistogram {
 public:
  // Upper bounds of the buckets, in nanoseconds; the last bucket (+Inf) is implicit.
  static constexpr std::array<uint64_t, 12> kBoundsNs = {
      1'000,   2'500,   5'000,     10'000,     25'000,      50'000,
      100'000, 250'000, 1'000'000, 10'000'000, 100'000'000, 1'000'000'000};

  void record(std::chrono::nanoseconds duration) noexcept {
    const uint64_t ns = duration.count() > 0 ? static_cast<uint64_t>(duration.count()) : 0;
    size_t i = 0;
    while (i < kBoundsNs.size() && ns > kBoundsNs[i]) ++i;
    buckets_[i].fetch_add(1, std::memory_order_relaxed);
    sum_ns_.fetch_add(ns, std::memory_order_relaxed);
  }

  struct Snapshot {
    std::array<uint64_t, kBoundsNs.size() + 1> buckets{};  // per bucket, not cumulative
    uint64_t count = 0;
    uint64_t sum_ns = 0;
  };
  // Each bucket read once; `count` is their sum, so the buckets and the count always agree.
  Snapshot snapshot() const noexcept {
    Snapshot s;
    for (size_t i = 0; i < buckets_.size(); ++i) {
      s.buckets[i] = buckets_[i].load(std::memory_order_relaxed);
      s.count += s.buckets[i];
    }
    s.sum_ns = sum_ns_.load(std::memory_order_relaxed);
    return s;
  }

 private:
  std::array<std::atomic<uint64_t>, kBoundsNs.size() + 1> buckets_{};
  std::atomic<uint64_t> sum_ns_{0};
};

}  // namespace lds
