// short_string_test.cpp: ShortString holds any text up to 255 characters, inline up to 23 and on
// the heap beyond, through copies, moves and self-assignment; longer text is refused.
#include "util/short_string.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lds {
namespace {

std::string text_of(size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += static_cast<char>('a' + i % 26);
  return s;
}

TEST(ShortString, HoldsEveryLengthUpTo255) {
  for (size_t n : {0, 1, 15, 16, 22, 23, 24, 64, 255}) {
    const std::string text = text_of(n);
    const ShortString s(text);
    EXPECT_EQ(s.size(), n);
    EXPECT_EQ(s.view(), text);
    EXPECT_EQ(s.str(), text);
    EXPECT_EQ(s.empty(), n == 0);
  }
  EXPECT_TRUE(ShortString().empty());
  EXPECT_THROW(ShortString(text_of(256)), std::length_error);
}

TEST(ShortString, CopiesAndMovesKeepTheTextAndLeaveTheSourceEmptyAfterAMove) {
  for (size_t n : {22, 23, 24, 64}) {
    const std::string text = text_of(n);
    ShortString a(text);
    ShortString b(a);
    EXPECT_EQ(b.view(), text);
    ShortString c(std::move(a));
    EXPECT_EQ(c.view(), text);
    EXPECT_TRUE(a.empty());  // NOLINT(bugprone-use-after-move): a moved-from one is empty
    ShortString d("x");
    d = c;
    EXPECT_EQ(d.view(), text);
    ShortString e(text_of(40));
    e = std::move(d);
    EXPECT_EQ(e.view(), text);
    EXPECT_TRUE(d.empty());  // NOLINT(bugprone-use-after-move)
    ShortString& same = e;
    e = same;
    EXPECT_EQ(e.view(), text);
    e = std::move(same);
    EXPECT_EQ(e.view(), text);
    EXPECT_TRUE(e == ShortString(text));
  }
}

TEST(ShortString, SurvivesTheMovesOfAGrowingVector) {
  std::vector<ShortString> v;  // not reserved: each growth moves every element
  for (size_t i = 0; i < 100; ++i) {
    v.emplace_back(text_of(i % 40));  // NOLINT(performance-inefficient-vector-operation)
  }
  for (size_t i = 0; i < 100; ++i) EXPECT_EQ(v[i].view(), text_of(i % 40));
  EXPECT_EQ(sizeof(ShortString), 24u);
}

}  // namespace
}  // namespace lds
