// progress_bar.h: a progress bar on stderr for long runs of several tasks, drawn only on a
// terminal and only once the run has lasted a while, so short runs and redirected output show
// nothing extra.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace lds::cli {

class ProgressBar {
 public:
  // Draws nothing unless `enabled`; then nothing until `delay` has passed since construction.
  explicit ProgressBar(bool enabled,
                       std::chrono::steady_clock::duration delay = std::chrono::seconds(1));
  // Ends the line of a task left unfinished, as it stands.
  ~ProgressBar();
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;

  // Finishes the current task (see finish()) and starts one of `total` units named `label`.
  void start(std::string label, uint64_t total);
  // `done` units of the current task are done. Cheap enough to call for every unit.
  void update(uint64_t done);
  // The current task is done: its line, when it was drawn at all, shows 100% and ends.
  void finish();

  // Whether stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  void draw(int percent);
  void end_line();

  bool enabled_;
  std::chrono::steady_clock::time_point show_after_;
  std::string label_;
  uint64_t total_ = 0;
  uint64_t next_check_ = 0;  // the clock is read only every 1/1000 of the task
  int drawn_percent_ = -1;   // -1: this task's line is not on the screen
};

}  // namespace lds::cli
