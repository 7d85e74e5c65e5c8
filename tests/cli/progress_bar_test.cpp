// progress_bar_test.cpp: what the progress bar of drain and simulate shows on the terminal.
#include "cli/progress_bar.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "byte_units.h"
#include "temp_dir.h"

namespace lds::cli {
namespace {

// Everything written to stderr while `fn` runs.
template <typename Fn>
std::string stderr_of(Fn&& fn) {
  test::TempDir dir;
  const std::string file = (dir.path() / "stderr").string();
  std::fflush(stderr);
  const int saved = ::dup(STDERR_FILENO);
  std::FILE* out = std::fopen(file.c_str(), "w");
  ::dup2(::fileno(out), STDERR_FILENO);
  fn();
  std::fflush(stderr);
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  std::fclose(out);
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(ProgressBar, ShowsBytesRateAndTimeLeft) {
  const std::string text = stderr_of([] {
    ProgressBar bar(true, std::chrono::milliseconds(0));
    bar.start("drain /d3", 64 * kMiB, ProgressBar::Unit::kBytes);
    std::this_thread::sleep_for(std::chrono::milliseconds(600));
    bar.update(32 * kMiB);
    bar.finish();
  });
  EXPECT_NE(text.find(" 50%  drain /d3  32.0 MiB of 64.0 MiB, "), std::string::npos) << text;
  EXPECT_NE(text.find("MiB/s, "), std::string::npos) << text;
  EXPECT_NE(text.find(" s left"), std::string::npos) << text;
  EXPECT_NE(text.find("100%  drain /d3  64.0 MiB of 64.0 MiB"), std::string::npos) << text;
}

TEST(ProgressBar, ATaskOfNothingDrawsNothing) {
  const std::string text = stderr_of([] {
    ProgressBar bar(true, std::chrono::milliseconds(0));
    bar.start("drain /d3", 0, ProgressBar::Unit::kBytes);
    bar.update(0);
    bar.finish();
  });
  EXPECT_EQ(text, "");  // never "0 B of 0 B"
}

// Work that stopped short (a failed move, a drain that waits) ends its line where it stands: a
// bar never claims 100% for bytes that were not copied.
TEST(ProgressBar, StoppedShortEndsWhereItStands) {
  const std::string text = stderr_of([] {
    ProgressBar bar(true, std::chrono::milliseconds(0));
    bar.start("moving 1 replica", 64 * kMiB, ProgressBar::Unit::kBytes);
    bar.update(16 * kMiB);
    bar.stop();
  });
  EXPECT_NE(text.find(" 25%  moving 1 replica  16.0 MiB of 64.0 MiB"), std::string::npos) << text;
  EXPECT_EQ(text.find("100%"), std::string::npos) << text;
  EXPECT_TRUE(text.ends_with("\n")) << text;
}

TEST(ProgressBar, CountsAreShownAsNumbers) {
  const std::string text = stderr_of([] {
    ProgressBar bar(true, std::chrono::milliseconds(0));
    bar.start("size_fill (1/7)", 200);
    bar.update(50);
    bar.finish();
  });
  EXPECT_NE(text.find(" 25%  size_fill (1/7)  50 of 200"), std::string::npos) << text;
}

}  // namespace
}  // namespace lds::cli
