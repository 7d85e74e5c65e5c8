// balance_replay.h: the intra-broker balancer inside a replay. The broker's own Balancer plans
// and starts the moves (through LogManager::alter_replica_log_dir, as in `lds-host serve`); only
// the copy is simulated: the trace's [balancer] bytes_per_step are shared by the moves in flight,
// each step, on the virtual disks.
#pragma once

#include <cstdint>
#include <functional>
#include <unordered_map>

#include "balance/balancer.h"
#include "sim/replay.h"
#include "sim/trace.h"
#include "sim/virtual_disks.h"
#include "storage/log_manager.h"
#include "strategy/strategy_slot.h"

namespace lds::sim {

class ReplayBalancer {
 public:
  // The replay's view of its partitions: a partition's size now, and its append rate in bytes
  // per second (0 once it stopped growing).
  struct Partitions {
    std::function<uint64_t(const TopicPartition&)> size;
    std::function<double(const TopicPartition&)> rate;
    // A move finished: the partition now lives on disk `to`.
    std::function<void(const TopicPartition&, uint32_t to)> relocated;
  };

  ReplayBalancer(LogManager& logs, StrategySlot& slot, VirtualDisks& disks,
                 const BalancerSpec& spec, Partitions partitions);

  // Ends step `step`: the moves in flight copy their share of bytes_per_step, a move whose copy
  // caught up leaves its source, then the balancer ticks on the clock of this step. Returns the
  // moves in flight afterwards.
  size_t step(uint32_t step);

  // The balancer's counts and its finished moves, into `result`.
  void report(RunResult& result) const;

 private:
  struct Copy {
    uint32_t to = 0;
    uint64_t bytes = 0;
  };

  LogManager& logs_;
  VirtualDisks& disks_;
  BalancerSpec spec_;
  Partitions partitions_;
  int64_t now_ms_ = 0;
  Balancer balancer_;
  std::unordered_map<TopicPartition, Copy, TopicPartitionHash> copies_;
  std::vector<RunResult::Move> log_;
};

}  // namespace lds::sim
