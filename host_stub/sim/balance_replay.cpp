// balance_replay.cpp: simulated copies of the balancer's moves, and the balancer's tick per step.
#include "sim/balance_replay.h"

#include <algorithm>
#include <unordered_set>

namespace lds::sim {

ReplayBalancer::ReplayBalancer(LogManager& logs, StrategySlot& slot, VirtualDisks& disks,
                               const BalancerSpec& spec, Partitions partitions)
    : logs_(logs),
      disks_(disks),
      spec_(spec),
      partitions_(std::move(partitions)),
      balancer_(logs, slot, partitions_.rate, [this] { return now_ms_; }) {
  BalanceConfig config;
  config.enable = true;
  config.threshold_percent = spec.threshold_percent;
  config.interval_ms = static_cast<int64_t>(spec.interval_steps) * kStepMillis;
  config.max_concurrent_moves = static_cast<int32_t>(spec.max_concurrent_moves);
  // The throttle the moves share, per second, for the rule that skips a partition appending
  // faster than half of it.
  balancer_.configure(config, spec.bytes_per_step / (kStepMillis / 1000));
  balancer_.set_move_listener([this](const BalanceMoveEvent& e) {
    if (!e.completed) return;
    log_.push_back({e.tp.str(), static_cast<uint32_t>(e.started_ms / kStepMillis),
                    static_cast<uint32_t>(e.finished_ms / kStepMillis)});
  });
}

size_t ReplayBalancer::step(uint32_t step) {
  const BalanceStatus before = balancer_.status();
  std::unordered_set<TopicPartition, TopicPartitionHash> running;
  const uint64_t share =
      before.in_flight.empty() ? 0 : spec_.bytes_per_step / before.in_flight.size();
  for (const BalanceMoveStatus& m : before.in_flight) {
    const int from = logs_.dir_index(m.from), to = logs_.dir_index(m.to);
    if (from < 0 || to < 0) continue;
    running.insert(m.tp);
    Copy& copy = copies_[m.tp];
    copy.to = static_cast<uint32_t>(to);
    const uint64_t size = partitions_.size(m.tp);
    const uint64_t want =
        std::min({share, size - std::min(size, copy.bytes), disks_.free(static_cast<size_t>(to))});
    const uint64_t copied = logs_.in_memory_storage()->advance_move(m.tp, want);
    disks_.add(static_cast<size_t>(to), copied);
    copy.bytes += copied;
    if (copy.bytes >= size) {
      // Caught up: the LogManager promoted it; the source's bytes go.
      disks_.remove(static_cast<size_t>(from), size);
      partitions_.relocated(m.tp, static_cast<uint32_t>(to));
      copies_.erase(m.tp);
      running.erase(m.tp);
    }
  }
  // A copy whose move is no longer running (cancelled) gives its bytes back.
  for (auto it = copies_.begin(); it != copies_.end();) {
    if (running.count(it->first) == 0) {
      disks_.remove(it->second.to, it->second.bytes);
      it = copies_.erase(it);
    } else {
      ++it;
    }
  }
  now_ms_ = static_cast<int64_t>(step) * kStepMillis;
  balancer_.tick();
  return balancer_.status().in_flight.size();
}

void ReplayBalancer::report(RunResult& result) const {
  const BalanceStatus s = balancer_.status();
  result.moves = s.moves;
  result.bytes_moved = s.bytes_moved;
  result.bytes_lower_bound = s.lower_bound_bytes;
  result.move_log = log_;
}

}  // namespace lds::sim
