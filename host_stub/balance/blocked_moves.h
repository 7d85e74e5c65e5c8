// blocked_moves.h: the balancer's memory of moves that were refused or failed, so that a balancer
// or drain that cannot progress settles instead of planning the same failing move forever.
//
// A failed move is not planned again until its destination has space freed (kSpaceFreedBytes more
// free than when it failed) or log.dir.balance.cooldown.ms has passed. A failure for space blocks
// every move at least as large into that destination (on a full filesystem: every move), not only
// the one that failed; any other failure blocks that partition's move to that destination only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "balance/balance_planner.h"

namespace lds {

class BlockedMoves {
 public:
  // Space freed on a destination that lets its blocked moves be tried again: more than the few
  // pages a busy disk frees and takes back between two ticks.
  static constexpr uint64_t kSpaceFreedBytes = 1ull << 20;

  struct Blocked {
    std::optional<TopicPartition> tp;  // empty: any partition of at least min_bytes
    uint32_t to = 0;
    uint64_t min_bytes = 0;
    std::string reason;  // the mover's or the LogManager's sentence
    int64_t since_ms = 0;
    uint64_t free_bytes = 0;  // the destination's free bytes when it failed
    bool blocks(const BalancePartition& p, uint32_t dir) const {
      return dir == to && (tp ? *tp == p.tp : p.size >= min_bytes);
    }
  };

  bool empty() const { return list_.empty(); }
  size_t size() const { return list_.size(); }
  // The move of `tp` to dir `to` failed with `reason`.
  void add(const TopicPartition& tp, uint32_t to, const std::string& reason,
           const BalanceModel& model, int64_t now);
  // Forgets the blocks whose destination has space freed, whose cooldown has passed, or whose
  // partition is gone.
  void expire(const BalanceModel& model, int64_t now, int64_t cooldown_ms);
  // The block that stops moving `p` to `to`, or null.
  const Blocked* find(const BalancePartition& p, uint32_t to) const;
  // `rank` without the destinations blocked for each partition. The result refers to this object.
  RankDestinations filter(const RankDestinations& rank) const;
  // The latest failure that blocks a move of one of `tps` (of any partition when empty), with how
  // many more there are, as sentences; "" when none does.
  std::string describe(const BalanceModel& model, const std::vector<TopicPartition>& tps) const;

 private:
  std::vector<Blocked> list_;
};

}  // namespace lds
