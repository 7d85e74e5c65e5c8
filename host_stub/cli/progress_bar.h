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

  // What a task counts: bytes are shown as sizes (12.0 MiB of 64.0 MiB, 4.0 MiB/s).
  enum class Unit { kCount, kBytes };

  // Finishes the current task (see finish()) and starts one of `total` units named `label`. A task
  // of 0 units has nothing to show, and draws nothing.
  void start(std::string label, uint64_t total, Unit unit = Unit::kCount);
  // Changes the current task's label and total without restarting its clock (starts a task when
  // none is running); for work that grows while it runs.
  void set_total(std::string label, uint64_t total, Unit unit = Unit::kCount);
  // `done` units of the current task are done. Cheap enough to call for every unit.
  void update(uint64_t done);
  // The current task is done: its line, when it was drawn at all, shows 100% and ends.
  void finish();
  // The current task stopped short (a move failed, a drain waits): its line ends where it stands.
  void stop() { end_line(); }

  // Whether stderr is a terminal.
  static bool stderr_is_terminal();

 private:
  void draw(int percent, uint64_t done);
  void end_line();
  // "12.0 MiB of 64.0 MiB, 4.0 MiB/s, 13 s left": how far, how fast, and how long still.
  std::string figures(uint64_t done) const;

  bool enabled_;
  std::chrono::steady_clock::time_point show_after_;
  std::string label_;
  uint64_t total_ = 0;
  Unit unit_ = Unit::kCount;
  std::chrono::steady_clock::time_point task_start_;
  uint64_t next_check_ = 0;  // the clock is read only every 1/1000 of the task
  int drawn_percent_ = -1;   // -1: this task's line is not on the screen
};

}  // namespace lds::cli
