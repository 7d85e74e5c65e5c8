// balance_model.cpp: a BalanceModel from LogManager::describe(), and the strategy as the planner's
// destination ranking.
#include "balance/balance_model.h"

#include <charconv>

namespace lds {
namespace {

// "topic-3" back into its topic and partition (topic names may hold '-'; the number is last).
bool parse_partition_name(const std::string& name, TopicPartition* tp) {
  const size_t dash = name.rfind('-');
  if (dash == std::string::npos || dash == 0) return false;
  int32_t partition = 0;
  const char* end = name.data() + name.size();
  auto [ptr, ec] = std::from_chars(name.data() + dash + 1, end, partition);
  if (ec != std::errc() || ptr != end) return false;
  tp->topic = name.substr(0, dash);
  tp->partition = partition;
  return true;
}

// The reservations of described[i] and of the other online dirs on its filesystem.
uint64_t reserved_on_filesystem(const std::vector<LogDirDescription>& described, size_t i) {
  const LogDirDescription& d = described[i];
  if (d.filesystem == 0) return d.reserved_bytes;
  uint64_t reserved = 0;
  for (const LogDirDescription& o : described) {
    if (o.filesystem == d.filesystem && o.error == StorageErrc::kNone) reserved += o.reserved_bytes;
  }
  return reserved;
}

}  // namespace

PartitionRate partition_rates_for_balance(const LogManager& logs) {
  // LogManager's decayed append rate of each partition (log.dir.rate.window.ms); 0 when unknown.
  return [&logs](const TopicPartition& tp) { return logs.partition_rate(tp); };
}

BalanceSnapshot balance_snapshot(
    const LogManager& logs,
    const std::unordered_map<TopicPartition, int64_t, TopicPartitionHash>& last_moved,
    const PartitionRate& rate) {
  BalanceSnapshot snap;
  const std::vector<LogDirDescription> described = logs.describe();
  std::unordered_map<TopicPartition, size_t, TopicPartitionHash> index;
  for (size_t i = 0; i < described.size(); ++i) {
    const LogDirDescription& d = described[i];
    BalanceDir dir;
    dir.path = d.log_dir;
    dir.online = d.error == StorageErrc::kNone;
    dir.cordoned = d.cordoned;
    if (dir.online && d.space_known && d.total_bytes > 0) {
      dir.total_bytes = d.total_bytes;
      dir.used_bytes = d.total_bytes - std::min(d.usable_bytes, d.total_bytes);
      // Every reservation on its filesystem takes from the same usable bytes.
      const uint64_t reserved = reserved_on_filesystem(described, i);
      dir.free_bytes = d.usable_bytes - std::min(d.usable_bytes, reserved);
      dir.filesystem = d.filesystem;
    }
    for (const PartitionDescription& p : d.partitions) {
      if (p.is_future) dir.reserved_bytes += p.offset_lag;
    }
    snap.model.dirs.push_back(std::move(dir));
    snap.offline.push_back({d.unreadable_partitions, d.unreadable_bytes});
  }
  for (size_t i = 0; i < described.size(); ++i) {
    for (const PartitionDescription& p : described[i].partitions) {
      if (p.is_future) continue;
      BalancePartition bp;
      if (!parse_partition_name(p.partition, &bp.tp)) continue;
      bp.dir = static_cast<uint32_t>(i);
      bp.size = p.size;
      bp.bytes_in_per_sec = rate ? rate(bp.tp) : 0;
      if (auto it = last_moved.find(bp.tp); it != last_moved.end()) bp.last_moved_ms = it->second;
      index.emplace(bp.tp, snap.model.partitions.size());
      snap.model.partitions.push_back(std::move(bp));
    }
  }
  // A future replica marks its partition as moving, towards the future's directory.
  for (size_t i = 0; i < described.size(); ++i) {
    for (const PartitionDescription& p : described[i].partitions) {
      if (!p.is_future) continue;
      TopicPartition tp;
      if (!parse_partition_name(p.partition, &tp)) continue;
      // Listed even when its source is offline (the partition is not listed then), so that the
      // balancer can stop it.
      snap.moves[tp] = MoveProgress{static_cast<uint32_t>(i), p.size, p.size + p.offset_lag};
      auto it = index.find(tp);
      if (it == index.end()) continue;
      BalancePartition& bp = snap.model.partitions[it->second];
      bp.moving = true;
      bp.moving_to = static_cast<uint32_t>(i);
    }
  }
  return snap;
}

RankDestinations strategy_ranker(const LogManager& logs, StrategySlot& slot) {
  return [&logs, &slot](const BalancePartition& p,
                        std::span<const DestinationCandidate> cands) -> std::vector<uint32_t> {
    std::vector<uint32_t> indices;
    const std::vector<lds_dir> online = logs.candidates(p.tp.topic, false, &indices);
    std::vector<lds_dir> dirs;
    std::vector<uint32_t> dir_of;
    for (size_t k = 0; k < online.size(); ++k) {
      for (const DestinationCandidate& c : cands) {
        if (c.dir != indices[k]) continue;
        lds_dir d = online[k];
        // The plan's projection: moves in flight and planned count as used space.
        d.flags &= ~static_cast<uint32_t>(LDS_DIR_SPACE_UNKNOWN);
        d.total_bytes = c.total_bytes;
        d.usable_bytes = c.total_bytes - std::min(c.used_bytes, c.total_bytes);
        d.reserved_bytes = 0;
        dirs.push_back(d);
        dir_of.push_back(c.dir);
      }
    }
    return rank_move_destinations(slot, p, dirs, dir_of);
  };
}

std::vector<uint32_t> rank_move_destinations(StrategySlot& slot, const BalancePartition& p,
                                             std::span<const lds_dir> dirs,
                                             std::span<const uint32_t> dir_of) {
  if (dirs.empty()) return {};
  std::vector<uint32_t> order(dirs.size());
  // The partition brings its own append rate to its destination (ABI 1.1).
  const lds_request request{sizeof(lds_request), p.tp.partition, p.tp.topic.c_str(), p.size,
                            static_cast<uint64_t>(p.bytes_in_per_sec)};
  const RankOutcome outcome = slot.rank(request, dirs, order, LDS_RANK_MOVE);
  std::vector<uint32_t> out;
  if (outcome.status != LDS_OK) return out;
  for (uint32_t k = 0; k < outcome.order_len; ++k) {
    if ((dirs[order[k]].flags & LDS_DIR_CORDONED) == 0) out.push_back(dir_of[order[k]]);
  }
  return out;
}

}  // namespace lds
