// progress_bar.cpp: drawing the progress bar of a long run on stderr.
#include "cli/progress_bar.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <utility>

#include "cli/output.h"

namespace lds::cli {

ProgressBar::ProgressBar(bool enabled, std::chrono::steady_clock::duration delay)
    : enabled_(enabled), show_after_(std::chrono::steady_clock::now() + delay) {}

// A task cut short by an error: its line ends where it was, so the error is printed on its own.
ProgressBar::~ProgressBar() { end_line(); }

bool ProgressBar::stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

void ProgressBar::start(std::string label, uint64_t total, Unit unit) {
  finish();
  label_ = std::move(label);
  total_ = total;
  unit_ = unit;
  task_start_ = std::chrono::steady_clock::now();
  next_check_ = 0;
}

void ProgressBar::set_total(std::string label, uint64_t total, Unit unit) {
  if (total_ == 0 && drawn_percent_ < 0) return start(std::move(label), total, unit);
  label_ = std::move(label);
  total_ = total;
  unit_ = unit;
  next_check_ = 0;
}

void ProgressBar::update(uint64_t done) {
  if (!enabled_ || done < next_check_ || total_ == 0) return;
  next_check_ = done + std::max<uint64_t>(1, total_ / 1000);
  if (std::chrono::steady_clock::now() < show_after_) return;
  const int percent = static_cast<int>(100 * std::min(done, total_) / total_);
  if (percent != drawn_percent_) draw(percent, done);
}

void ProgressBar::finish() {
  if (drawn_percent_ >= 0 && drawn_percent_ != 100) draw(100, total_);
  end_line();
}

void ProgressBar::end_line() {
  if (drawn_percent_ < 0) return;
  std::fputc('\n', stderr);
  std::fflush(stderr);
  drawn_percent_ = -1;
}

std::string ProgressBar::figures(uint64_t done) const {
  done = std::min(done, total_);
  auto amount = [this](double v) {
    if (unit_ == Unit::kBytes) return human_bytes(static_cast<uint64_t>(v));
    char text[32];
    std::snprintf(text, sizeof text, "%.0f", v);
    return std::string(text);
  };
  std::string out =
      amount(static_cast<double>(done)) + " of " + amount(static_cast<double>(total_));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - task_start_).count();
  if (seconds < 0.5 || done == 0 || done == total_) return out;  // no rate worth showing yet
  const double rate = static_cast<double>(done) / seconds;
  const double left = static_cast<double>(total_ - done) / rate;
  char tail[64];
  std::snprintf(tail, sizeof tail, "/s, %.0f s left", left < 1 ? 1 : left);
  return out + ", " + amount(rate) + tail;
}

void ProgressBar::draw(int percent, uint64_t done) {
  constexpr int kWidth = 30;
  const int filled = kWidth * percent / 100;
  // "\r" and erasing to the end of the line redraw it in place.
  std::fprintf(stderr, "\r[%s%s] %3d%%  %s  %s\033[K",
               std::string(static_cast<size_t>(filled), '#').c_str(),
               std::string(static_cast<size_t>(kWidth - filled), ' ').c_str(), percent,
               label_.c_str(), figures(done).c_str());
  std::fflush(stderr);
  drawn_percent_ = percent;
}

}  // namespace lds::cli
