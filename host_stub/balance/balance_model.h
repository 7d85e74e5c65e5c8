// balance_model.h: the balance planner's inputs taken from a LogManager: its directories and
// partitions as a BalanceModel, and destinations ranked by the active strategy. Shared by the
// broker's balancer and the simulator, so both plan from the same view.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "balance/balance_planner.h"
#include "storage/log_manager.h"
#include "strategy/strategy_slot.h"

namespace lds {

// A partition's append rate in bytes per second, 0 when unknown.
using PartitionRate = std::function<double(const TopicPartition&)>;

// The append rates the broker's balancer plans with. They are LogManager's per-partition rates
// (LogManager::partition_rate); until those are kept, every rate reads as unknown (0), so no
// partition is skipped for appending faster than the throttle.
PartitionRate partition_rates_for_balance(const LogManager& logs);

// How far one move in flight has come.
struct MoveProgress {
  uint32_t to = 0;
  uint64_t copied = 0;
  uint64_t size = 0;  // the replica's size now; it grows while appends continue
};

// An offline dir's replicas, still this broker's but unreadable until a restart finds the dir again
// (LogDirDescription::unreadable_partitions), sorted by topic and partition.
struct OfflineReplicas {
  std::vector<std::string> names;  // "t-0"
  uint64_t bytes = 0;              // their sizes when the dir went offline
};

struct BalanceSnapshot {
  BalanceModel model;
  std::unordered_map<TopicPartition, MoveProgress, TopicPartitionHash> moves;
  std::vector<OfflineReplicas> offline;  // by dir index; empty for an online dir
};

// The LogManager's directories (log.dirs order, so a model dir index is a log-dir index) and
// partitions, with `last_moved` as each partition's last balancer move and `rate` its append rate.
BalanceSnapshot balance_snapshot(
    const LogManager& logs,
    const std::unordered_map<TopicPartition, int64_t, TopicPartitionHash>& last_moved,
    const PartitionRate& rate);

// Ranks `dirs` (candidates as the plan projects them; dir_of[k] is dirs[k]'s model dir) for
// moving `p` with `slot`'s active strategy (LDS_RANK_MOVE, the partition's size and append rate in
// the request) and returns the model dirs, best first. Cordoned dirs are left out whatever the
// strategy answers: cordons are the host's guarantee.
std::vector<uint32_t> rank_move_destinations(StrategySlot& slot, const BalancePartition& p,
                                             std::span<const lds_dir> dirs,
                                             std::span<const uint32_t> dir_of);

// Ranks destination candidates through `slot`'s active strategy (with its per-call fallback), each
// candidate's space as the plan projects it; cordoned directories are never returned.
RankDestinations strategy_ranker(const LogManager& logs, StrategySlot& slot);

}  // namespace lds
