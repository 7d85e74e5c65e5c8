// progress_bar.cpp: drawing the progress bar of a long run on stderr.
#include "cli/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <utility>

namespace lds::cli {

ProgressBar::ProgressBar(bool enabled, std::chrono::steady_clock::duration delay)
    : enabled_(enabled), show_after_(std::chrono::steady_clock::now() + delay) {}

// A task cut short by an error: its line ends where it was, so the error is printed on its own.
ProgressBar::~ProgressBar() { end_line(); }

bool ProgressBar::stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

void ProgressBar::start(std::string label, uint64_t total) {
  finish();
  label_ = std::move(label);
  total_ = total;
  next_check_ = 0;
}

void ProgressBar::update(uint64_t done) {
  if (!enabled_ || done < next_check_ || total_ == 0) return;
  next_check_ = done + std::max<uint64_t>(1, total_ / 1000);
  if (std::chrono::steady_clock::now() < show_after_) return;
  const int percent = static_cast<int>(100 * std::min(done, total_) / total_);
  if (percent != drawn_percent_) draw(percent);
}

void ProgressBar::finish() {
  if (drawn_percent_ >= 0 && drawn_percent_ != 100) draw(100);
  end_line();
}

void ProgressBar::end_line() {
  if (drawn_percent_ < 0) return;
  std::fputc('\n', stderr);
  std::fflush(stderr);
  drawn_percent_ = -1;
}

void ProgressBar::draw(int percent) {
  constexpr int kWidth = 30;
  const int filled = kWidth * percent / 100;
  // "\r" and erasing to the end of the line redraw it in place.
  std::fprintf(
      stderr, "\r[%s%s] %3d%%  %s\033[K", std::string(static_cast<size_t>(filled), '#').c_str(),
      std::string(static_cast<size_t>(kWidth - filled), ' ').c_str(), percent, label_.c_str());
  std::fflush(stderr);
  drawn_percent_ = percent;
}

}  // namespace lds::cli
