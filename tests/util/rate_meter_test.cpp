// rate_meter_test.cpp: the decayed append rate: a steady rate reads as itself at any age, old bytes
// fade with the window, and a meter without history is unknown.
#include "util/rate_meter.h"

#include <gtest/gtest.h>

#include <cmath>

namespace lds {
namespace {

constexpr double kWindow = 300;  // log.dir.rate.window.ms's default, in seconds

// `bytes_per_second` written as one append per second from `from` to `to`.
void write_steadily(RateMeter& meter, double from, double to, uint64_t bytes_per_second) {
  for (double t = from + 1; t <= to; t += 1) meter.add(t, bytes_per_second, kWindow);
}

TEST(RateMeter, IsUnknownUntilItHasHistory) {
  RateMeter meter;
  EXPECT_FALSE(meter.known(100));
  EXPECT_EQ(meter.rate(100, kWindow), 0);
  meter.start(100);
  meter.add(100.5, 1000, kWindow);
  EXPECT_FALSE(meter.known(100.5));
  EXPECT_EQ(meter.rate(100.5, kWindow), 0);
  EXPECT_TRUE(meter.known(101));
}

TEST(RateMeter, AnIdleMeterIsKnownAsZero) {
  RateMeter meter;
  meter.start(0);
  EXPECT_TRUE(meter.known(60));
  EXPECT_EQ(meter.rate(60, kWindow), 0);
}

TEST(RateMeter, ASteadyRateReadsAsItselfWithHistoryShorterThanTheWindow) {
  RateMeter meter;
  meter.start(0);
  write_steadily(meter, 0, 30, 1'000'000);  // a tenth of the window
  EXPECT_NEAR(meter.rate(30, kWindow), 1'000'000, 20'000);
}

TEST(RateMeter, ASteadyRateReadsAsItselfWithHistoryLongerThanTheWindow) {
  RateMeter meter;
  meter.start(0);
  write_steadily(meter, 0, 3000, 2'000'000);  // ten windows
  EXPECT_NEAR(meter.rate(3000, kWindow), 2'000'000, 20'000);
}

TEST(RateMeter, OldBytesDecayWithTheWindowAsTimeConstant) {
  RateMeter meter;
  meter.start(0);
  write_steadily(meter, 0, 3000, 1'000'000);
  const double before = meter.rate(3000, kWindow);
  // One window of silence: e^-1 of the rate is left; three windows: e^-3.
  EXPECT_NEAR(meter.rate(3000 + kWindow, kWindow) / before, std::exp(-1.0), 0.01);
  EXPECT_NEAR(meter.rate(3000 + 3 * kWindow, kWindow) / before, std::exp(-3.0), 0.01);
}

TEST(RateMeter, ARateChangeShowsAfterAboutAWindow) {
  RateMeter meter;
  meter.start(0);
  write_steadily(meter, 0, 3000, 1'000'000);
  write_steadily(meter, 3000, 3000 + 5 * kWindow, 4'000'000);
  EXPECT_NEAR(meter.rate(3000 + 5 * kWindow, kWindow), 4'000'000, 4'000'000 * 0.02);
}

TEST(RateMeter, TimeGoingBackwardsCountsAsNoTime) {
  RateMeter meter;
  meter.start(0);
  write_steadily(meter, 0, 100, 1000);
  const double before = meter.rate(100, kWindow);
  meter.add(50, 0, kWindow);
  EXPECT_DOUBLE_EQ(meter.rate(100, kWindow), before);
}

TEST(RateMeter, StartForgetsEverythingBefore) {
  RateMeter meter;
  meter.start(0);
  write_steadily(meter, 0, 100, 1'000'000);
  meter.start(100);
  EXPECT_FALSE(meter.known(100.5));
  EXPECT_EQ(meter.rate(200, kWindow), 0);
}

// MemoRateMeter answers a second question at the same time from its first answer; anything
// counted, a restart, or another window is seen at once.
TEST(MemoRateMeter, ASecondAskAtTheSameTimeSeesEveryChangeSinceTheFirst) {
  MemoRateMeter meter;
  RateMeter plain;
  meter.start(0);
  plain.start(0);
  for (int t = 0; t < 100; ++t) {
    meter.add(t, 1000, kWindow);
    plain.add(t, 1000, kWindow);
  }
  const double first = meter.rate(100, kWindow);
  EXPECT_DOUBLE_EQ(first, plain.rate(100, kWindow));
  EXPECT_DOUBLE_EQ(meter.rate(100, kWindow), first);
  meter.add(100, 1'000'000, kWindow);
  plain.add(100, 1'000'000, kWindow);
  EXPECT_DOUBLE_EQ(meter.rate(100, kWindow), plain.rate(100, kWindow));
  EXPECT_GT(meter.rate(100, kWindow), first);
  EXPECT_DOUBLE_EQ(meter.rate(100, kWindow / 2), plain.rate(100, kWindow / 2));
  EXPECT_DOUBLE_EQ(meter.rate(101, kWindow), plain.rate(101, kWindow));
  meter.start(100);
  EXPECT_EQ(meter.rate(100, kWindow), 0);
}

}  // namespace
}  // namespace lds
