// log_limiter_test.cpp: one line per key and interval, the lines left out counted and reported
// with the next one, keys independent, and the memory bounded.
#include "util/log_limiter.h"

#include <gtest/gtest.h>

namespace lds {
namespace {

using std::chrono::milliseconds;
using Time = std::chrono::steady_clock::time_point;

TEST(LogLimiter, OneLinePerKeyAndIntervalWithTheCountLeftOut) {
  Time now{};
  LogLimiter limiter(milliseconds(60000), 16, [&] { return now; });
  EXPECT_EQ(limiter.admit("127.0.0.1 key 10"), 0u);
  for (int i = 0; i < 259; ++i) {
    now += milliseconds(150);
    EXPECT_FALSE(limiter.admit("127.0.0.1 key 10").has_value()) << i;
  }
  // Another client, or another reason, is a line of its own.
  EXPECT_EQ(limiter.admit("127.0.0.2 key 10"), 0u);
  EXPECT_EQ(limiter.admit("127.0.0.1 key 11"), 0u);
  now += milliseconds(60000);
  EXPECT_EQ(limiter.admit("127.0.0.1 key 10"), 259u);
  EXPECT_FALSE(limiter.admit("127.0.0.1 key 10").has_value());
}

TEST(LogLimiter, ManyKeysForgetTheQuietOnesFirst) {
  Time now{};
  LogLimiter limiter(milliseconds(1000), 4, [&] { return now; });
  EXPECT_EQ(limiter.admit("a"), 0u);
  EXPECT_EQ(limiter.admit("b"), 0u);
  now += milliseconds(2000);
  EXPECT_EQ(limiter.admit("c"), 0u);
  EXPECT_EQ(limiter.admit("d"), 0u);
  EXPECT_FALSE(limiter.admit("c").has_value());
  // Full: "a" and "b" have been quiet for an interval and are forgotten, "c" and "d" are kept.
  EXPECT_EQ(limiter.admit("e"), 0u);
  EXPECT_FALSE(limiter.admit("c").has_value());
  EXPECT_FALSE(limiter.admit("d").has_value());
  EXPECT_EQ(limiter.admit("a"), 0u);
}

}  // namespace
}  // namespace lds
