// blocked_moves.cpp: which failed moves the balancer leaves out of its plans, and until when.
#include "balance/blocked_moves.h"

#include <algorithm>
#include <unordered_map>

#include "io/io_errors.h"

namespace lds {
void BlockedMoves::add(const TopicPartition& tp, uint32_t to, const std::string& reason,
                       const BalanceModel& model, int64_t now) {
  Blocked b;
  b.to = to;
  b.reason = reason;
  b.since_ms = now;
  b.free_bytes = to < model.dirs.size() ? model.dirs[to].free_bytes : 0;
  const BalancePartition* p = model.find(tp);
  if (is_out_of_space_for_move(reason)) {
    b.min_bytes = p != nullptr ? p->size : 0;
    // The new failure replaces the space failures into `to` it covers.
    std::erase_if(
        list_, [&](const Blocked& o) { return !o.tp && o.to == to && o.min_bytes >= b.min_bytes; });
  } else {
    b.tp = tp;
    std::erase_if(list_, [&](const Blocked& o) { return o.tp == tp && o.to == to; });
  }
  list_.push_back(std::move(b));
}

void BlockedMoves::expire(const BalanceModel& model, int64_t now, int64_t cooldown_ms) {
  std::erase_if(list_, [&](const Blocked& b) {
    if (now - b.since_ms >= cooldown_ms) return true;
    if (b.tp && model.find(*b.tp) == nullptr) return true;  // deleted
    return b.to < model.dirs.size() &&
           model.dirs[b.to].free_bytes >= b.free_bytes + kSpaceFreedBytes;
  });
}

const BlockedMoves::Blocked* BlockedMoves::find(const BalancePartition& p, uint32_t to) const {
  auto it =
      std::find_if(list_.begin(), list_.end(), [&](const Blocked& b) { return b.blocks(p, to); });
  return it == list_.end() ? nullptr : &*it;
}

RankDestinations BlockedMoves::filter(const RankDestinations& rank) const {
  if (list_.empty()) return rank;
  return [this, rank](const BalancePartition& p, std::span<const DestinationCandidate> cands) {
    std::vector<uint32_t> order = rank(p, cands);
    std::erase_if(order, [&](uint32_t d) { return find(p, d) != nullptr; });
    return order;
  };
}

std::string BlockedMoves::describe(const BalanceModel& model,
                                   const std::vector<TopicPartition>& tps) const {
  std::vector<const BalancePartition*> of;
  if (!tps.empty()) {
    std::unordered_map<TopicPartition, const BalancePartition*, TopicPartitionHash> index;
    for (const BalancePartition& p : model.partitions) index.emplace(p.tp, &p);
    for (const TopicPartition& tp : tps) {
      if (auto it = index.find(tp); it != index.end()) of.push_back(it->second);
    }
  }
  const Blocked* latest = nullptr;
  size_t count = 0;
  for (const Blocked& b : list_) {
    bool relevant = tps.empty();
    for (const BalancePartition* p : of) relevant = relevant || b.blocks(*p, b.to);
    if (!relevant) continue;
    ++count;
    if (latest == nullptr || b.since_ms >= latest->since_ms) latest = &b;
  }
  if (latest == nullptr) return "";
  std::string text = latest->reason;
  if (!text.ends_with('.')) text += '.';
  // Appended: GCC 12 at -O3 reports a false -Wrestrict on `" " + std::to_string(n)`.
  if (count > 1) {
    text.append(1, ' ').append(std::to_string(count - 1)).append(" other failed moves wait too.");
  }
  return text;
}

}  // namespace lds
