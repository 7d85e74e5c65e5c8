// placement_history.h: the explanation of each recent placement, kept after the creation so that
// `lds-host explain` can say why a partition went where it went. Bounded by a count of partitions:
// the oldest placement is dropped when a new one would exceed it.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <list>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "placement/placement_explanation.h"
#include "util/mutex.h"

namespace lds {

// One partition's placement as it was decided, and where and when it was created.
struct PastPlacement {
  PlacementExplanation explanation;  // dirs as the decision saw them, in rank order
  std::string placed_in;             // the log dir the replica was created in
  std::chrono::system_clock::time_point placed_at;
};

// Thread-safe; its lock is a leaf (nothing is called under it).
class PlacementHistory {
 public:
  // What a broker keeps. A record takes 48 bytes per log dir plus the topic's name and the
  // strategy's, so a few megabytes at most on a dozen log dirs.
  static constexpr size_t kDefaultCapacity = 4096;

  // `log_dirs` in log.dirs order: a record names a directory by its index in it, not by its path.
  // A capacity of 0 keeps nothing.
  PlacementHistory(std::vector<std::string> log_dirs, size_t capacity);

  // Keeps `placement` as its partition's last one, replacing any earlier one of that partition,
  // and drops the oldest placement kept when there are more than capacity().
  void keep(const PastPlacement& placement);

  // The last placement kept of topic-partition, or nullopt when none is (never placed since this
  // history started, or dropped for newer ones).
  std::optional<PastPlacement> find(const std::string& topic, int32_t partition) const;

  // Drops the placement of topic-partition, deleted: its next placement starts afresh.
  void forget(const std::string& topic, int32_t partition);

  size_t size() const;
  size_t capacity() const { return capacity_; }

 private:
  // A candidate directory in a few fixed-width fields: its path is an index into log_dirs_, and
  // its reason for being left out an index into kCommonReasons or the record's own `reasons`.
  struct Dir {
    uint64_t total_bytes = 0;
    uint64_t usable_bytes = 0;
    uint64_t reserved_bytes = 0;
    double score = std::numeric_limits<double>::quiet_NaN();  // the plugin's; NaN for none
    uint32_t partition_count = 0;
    uint32_t topic_partition_count = 0;
    uint32_t dir_index = 0;
    uint16_t rank = 0;
    uint16_t reason = 0;  // 0: ranked
    bool space_known = false;
  };
  struct Record {
    std::string topic;
    int32_t partition = 0;
    uint32_t placed_in = 0;
    int64_t placed_at_ns = 0;
    uint64_t expected_bytes = 0;
    uint64_t generation = 0;
    bool fell_back = false;
    std::string strategy;
    std::string score_name;
    std::vector<Dir> dirs;
    std::vector<std::string> reasons;  // the reasons not in kCommonReasons, each once
  };
  struct Key {
    std::string topic;
    int32_t partition = 0;
    bool operator==(const Key&) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key& k) const noexcept;
  };

  uint32_t index_of(const std::string& log_dir) const;
  Record compact(const PastPlacement& placement) const;
  PastPlacement expand(const Record& r) const;

  const std::vector<std::string> log_dirs_;
  const size_t capacity_;
  mutable Mutex mu_;
  std::list<Record> records_ GUARDED_BY(mu_);  // newest first
  std::unordered_map<Key, std::list<Record>::iterator, KeyHash> by_partition_ GUARDED_BY(mu_);
};

}  // namespace lds
