// partition_table.h: the partitions a LogManager hosts, found by topic-partition. Each is stored
// once: its key is the partition's own `tp`, not a copy of it beside it.
#pragma once

#include <cstddef>
#include <memory>
#include <unordered_set>

#include "model/topic_partition.h"
#include "storage/hosted_partition.h"

namespace lds {

// Not synchronised: the LogManager's state lock guards it. A partition's `tp` must not change
// while it is in the table.
class PartitionTable {
 public:
  using Entry = std::shared_ptr<HostedPartition>;

  // The partition hosted as `tp`, or null; valid while the state lock is held.
  HostedPartition* find(const TopicPartition& tp) const {
    const auto it = entries_.find(tp);
    return it == entries_.end() ? nullptr : it->get();
  }
  // The same, shared, for a caller that keeps it once the state lock is let go; null when none.
  Entry share(const TopicPartition& tp) const {
    const auto it = entries_.find(tp);
    return it == entries_.end() ? nullptr : *it;
  }
  bool contains(const TopicPartition& tp) const { return entries_.find(tp) != entries_.end(); }
  // Hosts `p` as p->tp. Returns false, and keeps the partition already there, when p->tp is
  // hosted already.
  bool insert(Entry p) { return entries_.insert(std::move(p)).second; }
  // Stops hosting `tp`: returns the partition that was, or null.
  Entry take(const TopicPartition& tp) {
    const auto it = entries_.find(tp);
    if (it == entries_.end()) return nullptr;
    Entry p = *it;
    entries_.erase(it);
    return p;
  }
  size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  // Every hosted partition, in no order.
  auto begin() const { return entries_.begin(); }
  auto end() const { return entries_.end(); }

 private:
  // Looks an entry up by a TopicPartition without building an entry (C++20 heterogeneous lookup).
  struct Hash {
    using is_transparent = void;  // NOLINT(readability-identifier-naming): the standard's name
    size_t operator()(const TopicPartition& tp) const noexcept { return TopicPartitionHash{}(tp); }
    size_t operator()(const Entry& p) const noexcept { return TopicPartitionHash{}(p->tp); }
  };
  struct Equal {
    using is_transparent = void;  // NOLINT(readability-identifier-naming): the standard's name
    bool operator()(const Entry& a, const Entry& b) const noexcept { return a->tp == b->tp; }
    bool operator()(const TopicPartition& a, const Entry& b) const noexcept { return a == b->tp; }
    bool operator()(const Entry& a, const TopicPartition& b) const noexcept { return a->tp == b; }
  };

  std::unordered_set<Entry, Hash, Equal> entries_;
};

}  // namespace lds
