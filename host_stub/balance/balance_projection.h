// balance_projection.h: the balance and drain planners' working state: each filesystem's projected
// bytes as planned moves add up, log directories that share a filesystem counted as one.
#pragma once

#include <cstdint>
#include <vector>

#include "balance/balance_planner.h"

namespace lds::detail {

// Online, uncordoned, size known: a dir the planners may move replicas to.
inline bool balance_eligible(const BalanceDir& d) {
  return d.online && !d.cordoned && d.total_bytes > 0;
}

// Dirs with one non-zero BalanceDir::filesystem are one filesystem: its size and used bytes are
// counted once, the reservations and moves of all its dirs add up on it, and each of its dirs
// reads its fill. A dir with an unknown filesystem (0) is a filesystem of its own.
class BalanceProjection {
 public:
  explicit BalanceProjection(const BalanceModel& model);

  // The eligible dirs, in model order.
  const std::vector<uint32_t>& dirs() const { return dirs_; }
  // The filesystems with an eligible dir, each as the first dir of the model on it.
  const std::vector<uint32_t>& filesystems() const { return filesystems_; }
  // Dir `d`'s filesystem: the first dir of the model on it.
  uint32_t filesystem(uint32_t d) const { return fs_[d]; }

  // Σ effective / Σ total over the filesystems with an eligible dir.
  double ideal() const { return ideal_; }
  double total(uint32_t d) const { return total_[fs_[d]]; }
  double fill(uint32_t d) const;
  // Bytes d's filesystem holds at most on the way to the end of the moves in flight and planned.
  double physical(uint32_t d) const { return physical_[fs_[d]]; }
  // Bytes d's filesystem holds once the moves in flight and planned end.
  double effective(uint32_t d) const { return effective_[fs_[d]]; }

  // Max fill minus min fill over the filesystems with an eligible dir, with `bytes` moved from
  // `from` to `to` when they are on different filesystems.
  double spread(uint32_t from = 0, uint32_t to = 0, double bytes = 0) const;

  // A move planned: its copy lands on `to` before the source frees its bytes when it ends.
  void move(uint32_t from, uint32_t to, double bytes);

  // Whether `bytes` more fit on dir `d`'s filesystem at all.
  bool fits(uint32_t d, double bytes) const { return physical(d) + bytes <= total(d); }

 private:
  std::vector<uint32_t> dirs_;
  std::vector<uint32_t> filesystems_;
  std::vector<uint32_t> fs_;       // by dir: its filesystem's first dir
  std::vector<double> total_;      // by filesystem's first dir
  std::vector<double> physical_;   // by filesystem's first dir
  std::vector<double> effective_;  // by filesystem's first dir
  double ideal_ = 0;
};

}  // namespace lds::detail
