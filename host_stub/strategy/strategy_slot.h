// strategy_slot.h: the active strategy, published so that placements never wait for a swap.
//
// A swap loads and validates the next strategy first, without touching the slot; publishing is then
// one pointer exchange, and the old strategy is destroyed outside the slot, by whoever drops the
// last reference (a placement still ranking with it, or the swap itself). The pointer is guarded by
// a mutex held only for a reference-count increment: GCC 12's std::atomic<std::shared_ptr> releases
// its internal lock with memory_order_relaxed in load(), a data race ThreadSanitizer reports.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "strategy/strategy_plugin.h"
#include "util/mutex.h"
#include <lds/logdir_strategy.h>

namespace lds {

// What one rank call decided.
struct RankOutcome {
  int32_t status = LDS_OK;  // LDS_OK, or LDS_ERR_NO_ELIGIBLE_DIR with `message`
  uint32_t order_len = 0;   // valid entries in the caller's order buffer
  bool fell_back = false;   // the plugin failed or answered badly; built-in order used
  std::string message;      // why nothing is eligible, or why the plugin's answer was refused
  // With fell_back: what was wrong with the answer ("index 1 appears twice", "status 4: ...").
  std::string refusal;
  std::shared_ptr<const LoadedStrategy> strategy;  // who decided (null only if none was active)
};

class StrategySlot {
 public:
  // The active strategy; null before the first publish().
  std::shared_ptr<const LoadedStrategy> current() const {
    MutexLock lock(current_mu_);
    return current_;
  }

  // Makes `next` the active strategy. Calls in flight finish on the one they hold; the old one is
  // destroyed when its last reference drops. Counts a swap when one was already active.
  void publish(std::shared_ptr<const LoadedStrategy> next);

  // A fresh generation number for the next strategy to load.
  uint64_t next_generation() { return ++generation_counter_; }
  // Gives back `generation` when the load it was taken for failed, so a refused swap uses up no
  // number; a no-op once a later generation has been taken.
  void release_generation(uint64_t generation) {
    generation_counter_.compare_exchange_strong(generation, generation - 1);
  }

  // Ranks `dirs` (log.dirs order) for `request` with the active strategy, writing indices into
  // `order` (room for dirs.size()). A failing plugin or an invalid ranking is counted and the call
  // falls back to the built-in order: fewest partitions first, cordoned directories last excluded.
  // `purpose` is the LDS_RANK_* the plugin is told (ABI 1.2). `scores`, when not empty, has room
  // for dirs.size() entries and receives the plugin's score of each candidate (NaN where it gave
  // none); when empty, the plugin writes into a per-thread scratch that is then dropped.
  RankOutcome rank(const lds_request& request, std::span<const lds_dir> dirs,
                   std::span<uint32_t> order, uint32_t purpose, std::span<double> scores = {}) {
    return rank(current(), request, dirs, order, purpose, scores);
  }
  // The same with a strategy the caller already holds (taken with current()). A preview
  // (LDS_RANK_PREVIEW: a placement only explained, not made) counts and logs no fallback.
  RankOutcome rank(std::shared_ptr<const LoadedStrategy> strategy, const lds_request& request,
                   std::span<const lds_dir> dirs, std::span<uint32_t> order, uint32_t purpose,
                   std::span<double> scores = {});

  uint64_t swaps() const { return swaps_.load(std::memory_order_relaxed); }
  // Fallbacks across every generation since start (LoadedStrategy::fallbacks() counts one).
  uint64_t fallbacks() const { return fallbacks_.load(std::memory_order_relaxed); }
  // The same by why the answer was refused: the plugin failed (a status other than LDS_OK or
  // LDS_ERR_NO_ELIGIBLE_DIR), or its ranking was invalid.
  struct FallbackReasons {
    uint64_t plugin_error = 0;
    uint64_t invalid_ranking = 0;
  };
  FallbackReasons fallback_reasons() const {
    return {plugin_errors_.load(std::memory_order_relaxed),
            invalid_rankings_.load(std::memory_order_relaxed)};
  }

  // A strategy change that was refused (its load or dry run failed); the active one stayed.
  void count_refused_swap() { refused_swaps_.fetch_add(1, std::memory_order_relaxed); }
  uint64_t refused_swaps() const { return refused_swaps_.load(std::memory_order_relaxed); }

  // The placement count of the strategies named `name`, created at its first load and shared by
  // every generation of that name (StrategyLoadSpec::placement_count).
  std::shared_ptr<std::atomic<uint64_t>> placement_count(const std::string& name);
  // Placements by strategy name since start, by name.
  std::vector<std::pair<std::string, uint64_t>> placements_by_strategy() const;

  // The built-in order: uncordoned directories by partition_count ascending, ties in input order.
  static uint32_t builtin_order(std::span<const lds_dir> dirs, std::span<uint32_t> order);

 private:
  mutable Mutex current_mu_;  // guards only the pointer copy and exchange
  std::shared_ptr<const LoadedStrategy> current_ GUARDED_BY(current_mu_);
  std::atomic<uint64_t> generation_counter_{0};
  std::atomic<uint64_t> swaps_{0};
  std::atomic<uint64_t> fallbacks_{0};
  std::atomic<uint64_t> plugin_errors_{0};
  std::atomic<uint64_t> invalid_rankings_{0};
  std::atomic<uint64_t> refused_swaps_{0};
  mutable Mutex placements_mu_;  // guards the map, not the counts: a load adds a name
  std::map<std::string, std::shared_ptr<std::atomic<uint64_t>>> placements_
      GUARDED_BY(placements_mu_);
};

}  // namespace lds
