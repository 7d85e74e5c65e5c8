// placement_history.cpp: recent placements kept as compact records, newest first, the oldest
// dropped past the capacity.
#include "placement/placement_history.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <utility>

namespace lds {

namespace {

// The reasons most left-out directories share, kept as a number rather than as text.
constexpr std::array<const char*, 4> kCommonReasons = {"", "cordoned", "offline",
                                                       "not ranked by the plugin"};

}  // namespace

size_t PlacementHistory::KeyHash::operator()(const Key& k) const noexcept {
  return std::hash<std::string>{}(k.topic) * 31 + std::hash<int32_t>{}(k.partition);
}

PlacementHistory::PlacementHistory(std::vector<std::string> log_dirs, size_t capacity)
    : log_dirs_(std::move(log_dirs)), capacity_(capacity) {}

uint32_t PlacementHistory::index_of(const std::string& log_dir) const {
  auto at = std::find(log_dirs_.begin(), log_dirs_.end(), log_dir);
  return static_cast<uint32_t>(at - log_dirs_.begin());
}

PlacementHistory::Record PlacementHistory::compact(const PastPlacement& placement) const {
  const PlacementExplanation& e = placement.explanation;
  Record r;
  r.topic = e.topic;
  r.partition = e.partition;
  r.placed_in = index_of(placement.placed_in);
  r.placed_at_ns =
      std::chrono::duration_cast<std::chrono::nanoseconds>(placement.placed_at.time_since_epoch())
          .count();
  r.expected_bytes = e.expected_bytes;
  r.generation = e.generation;
  r.fell_back = e.fell_back;
  r.strategy = e.strategy;
  r.score_name = e.score_name;
  r.dirs.reserve(e.dirs.size());
  for (const PlacementCandidate& c : e.dirs) {
    Dir d;
    d.total_bytes = c.total_bytes;
    d.usable_bytes = c.usable_bytes;
    d.reserved_bytes = c.reserved_bytes;
    if (c.score) d.score = *c.score;
    d.partition_count = c.partition_count;
    d.topic_partition_count = c.topic_partition_count;
    d.dir_index = index_of(c.log_dir);
    d.rank = static_cast<uint16_t>(std::min<uint32_t>(c.rank, UINT16_MAX));
    d.space_known = c.space_known;
    if (!c.left_out.empty()) {
      auto common = std::find_if(kCommonReasons.begin() + 1, kCommonReasons.end(),
                                 [&](const char* s) { return c.left_out == s; });
      if (common != kCommonReasons.end()) {
        d.reason = static_cast<uint16_t>(common - kCommonReasons.begin());
      } else {
        auto own = std::find(r.reasons.begin(), r.reasons.end(), c.left_out);
        if (own == r.reasons.end()) own = r.reasons.insert(own, c.left_out);
        d.reason = static_cast<uint16_t>(std::min<size_t>(
            kCommonReasons.size() + static_cast<size_t>(own - r.reasons.begin()), UINT16_MAX));
      }
    }
    r.dirs.push_back(d);
  }
  r.reasons.shrink_to_fit();
  return r;
}

PastPlacement PlacementHistory::expand(const Record& r) const {
  auto path = [&](uint32_t i) { return i < log_dirs_.size() ? log_dirs_[i] : std::string("?"); };
  PastPlacement p;
  PlacementExplanation& e = p.explanation;
  e.topic = r.topic;
  e.partition = r.partition;
  e.expected_bytes = r.expected_bytes;
  e.strategy = r.strategy;
  e.generation = r.generation;
  e.fell_back = r.fell_back;
  e.score_name = r.score_name;
  for (const Dir& d : r.dirs) {
    PlacementCandidate c;
    c.log_dir = path(d.dir_index);
    c.space_known = d.space_known;
    c.total_bytes = d.total_bytes;
    c.usable_bytes = d.usable_bytes;
    c.reserved_bytes = d.reserved_bytes;
    if (!std::isnan(d.score)) c.score = d.score;
    c.partition_count = d.partition_count;
    c.topic_partition_count = d.topic_partition_count;
    c.rank = d.rank;
    if (d.reason > 0 && d.reason < kCommonReasons.size()) {
      c.left_out = kCommonReasons[d.reason];
    } else if (d.reason >= kCommonReasons.size() &&
               d.reason - kCommonReasons.size() < r.reasons.size()) {
      c.left_out = r.reasons[d.reason - kCommonReasons.size()];
    }
    e.dirs.push_back(std::move(c));
  }
  p.placed_in = path(r.placed_in);
  p.placed_at = std::chrono::system_clock::time_point(
      std::chrono::duration_cast<std::chrono::system_clock::duration>(
          std::chrono::nanoseconds(r.placed_at_ns)));
  return p;
}

void PlacementHistory::keep(const PastPlacement& placement) {
  if (capacity_ == 0) return;
  Record r = compact(placement);
  MutexLock lock(mu_);
  Key key{r.topic, r.partition};
  if (auto it = by_partition_.find(key); it != by_partition_.end()) {
    records_.erase(it->second);
    by_partition_.erase(it);
  }
  records_.push_front(std::move(r));
  by_partition_.emplace(std::move(key), records_.begin());
  if (records_.size() > capacity_) {
    by_partition_.erase(Key{records_.back().topic, records_.back().partition});
    records_.pop_back();
  }
}

std::optional<PastPlacement> PlacementHistory::find(const std::string& topic,
                                                    int32_t partition) const {
  MutexLock lock(mu_);
  auto it = by_partition_.find(Key{topic, partition});
  if (it == by_partition_.end()) return std::nullopt;
  return expand(*it->second);
}

void PlacementHistory::forget(const std::string& topic, int32_t partition) {
  MutexLock lock(mu_);
  if (auto it = by_partition_.find(Key{topic, partition}); it != by_partition_.end()) {
    records_.erase(it->second);
    by_partition_.erase(it);
  }
}

size_t PlacementHistory::size() const {
  MutexLock lock(mu_);
  return records_.size();
}

}  // namespace lds
