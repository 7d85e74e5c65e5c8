// latency_histogram_test.cpp: the placement latency histogram's buckets, and the tick clock that
// feeds it.
#include "util/latency_histogram.h"

#include <gtest/gtest.h>

#include <chrono>
#include <thread>
#include <vector>

#include "util/tick_clock.h"

namespace lds {
namespace {

using std::chrono::nanoseconds;

TEST(LatencyHistogram, EachDurationLandsInTheFirstBucketThatHoldsIt) {
  LatencyHistogram h;
  h.record(nanoseconds(0));           // bucket 0 (<= 1 us)
  h.record(nanoseconds(1'000));       // bucket 0: bounds are inclusive, as Prometheus' le
  h.record(nanoseconds(1'001));       // bucket 1 (<= 2.5 us)
  h.record(nanoseconds(-5));          // a clock step backwards counts as 0
  h.record(std::chrono::seconds(2));  // past the last bound: +Inf
  const LatencyHistogram::Snapshot s = h.snapshot();
  EXPECT_EQ(s.buckets[0], 3u);
  EXPECT_EQ(s.buckets[1], 1u);
  EXPECT_EQ(s.buckets.back(), 1u);
  EXPECT_EQ(s.count, 5u);
  EXPECT_EQ(s.sum_ns, 1'000u + 1'001u + 2'000'000'000u);
}

TEST(LatencyHistogram, CountsEveryRecordFromManyThreads) {
  LatencyHistogram h;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&h] {
      for (int i = 0; i < 10'000; ++i) h.record(nanoseconds(i % 3 == 0 ? 3'000 : 30'000));
    });
  }
  for (auto& t : threads) t.join();
  const LatencyHistogram::Snapshot s = h.snapshot();
  EXPECT_EQ(s.count, 40'000u);
  EXPECT_EQ(s.buckets[2] + s.buckets[5], 40'000u);  // <= 5 us and <= 50 us
}

TEST(TickClock, MeasuresASleepWithinReason) {
  TickClock::calibrate();
  TickClock::calibrate();  // a second call changes nothing
  const uint64_t start = TickClock::now();
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  const nanoseconds took = TickClock::since(start);
  // At least the sleep; at most what a loaded machine may add to it.
  EXPECT_GE(took, std::chrono::milliseconds(19));
  EXPECT_LT(took, std::chrono::seconds(5));
}

}  // namespace
}  // namespace lds
