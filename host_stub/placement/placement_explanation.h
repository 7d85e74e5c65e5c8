// placement_explanation.h: why a placement would go where it goes: every log directory with the
// figures the strategy was given, in rank order, and each one left out with the reason. Built by
// LogManager::choose itself (the path a real creation takes), for `create --dry-run` and for the
// debug line of every placement.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include <lds/logdir_strategy.h>

namespace lds {

// One log directory as a placement saw it.
struct PlacementCandidate {
  std::string log_dir;
  // The figures of its lds_dir, as the strategy read them (none for an offline directory).
  bool space_known = false;
  uint64_t total_bytes = 0;
  uint64_t usable_bytes = 0;
  uint64_t reserved_bytes = 0;
  uint32_t partition_count = 0;
  uint32_t topic_partition_count = 0;
  // The plugin's score of this directory (ABI 1.2 scores), when it gave one.
  std::optional<double> score;
  uint32_t rank = 0;     // 1 for the first choice; 0 when left out
  std::string left_out;  // why it takes no part: "cordoned", "offline", ...; empty when ranked

  // (total − usable) / total in percent: how full the filesystem is; nullopt when space is unknown.
  std::optional<double> fill_percent() const;
  // projected_fill_percent of this directory once a partition of `expected_bytes` is placed.
  std::optional<double> projected_fill_percent(uint64_t expected_bytes) const;
};

// (total − usable + reserved + expected) / total in percent: what the directory will hold once a
// partition of `expected_bytes` is placed, the value the size strategy's fill mode (and cordon's
// order=size) sorts on, so it can differ in order from the fill; nullopt when total is 0.
std::optional<double> projected_fill_percent(uint64_t total_bytes, uint64_t usable_bytes,
                                             uint64_t reserved_bytes, uint64_t expected_bytes);

// The whole decision for one partition.
struct PlacementExplanation {
  std::string topic;
  int32_t partition = 0;
  uint64_t expected_bytes = 0;
  // Who decided: the strategy's name, "preferred", "builtin", or "partition-count fallback (<name>:
  // <why>)" when the plugin's answer was refused, as create names it.
  std::string strategy;
  uint64_t generation = 0;
  bool fell_back = false;
  // What the strategy's scores are (ABI 1.2 score_name), when it gave them; empty otherwise.
  std::string score_name;
  // Set when the replica already exists: create would return it where it is.
  std::string existing_log_dir;
  // The ranked directories first, best first, then those left out, in log.dirs order.
  std::vector<PlacementCandidate> dirs;
};

// What one rank call saw and answered, for explain_ranking.
struct RankingSeen {
  std::vector<std::string> log_dirs;    // every log directory, log.dirs order
  std::vector<bool> online;             // whether each is online
  std::span<const lds_dir> candidates;  // the online ones as the strategy got them
  std::span<const uint32_t> indices;    // their log-dir indices
  std::span<const uint32_t> order;      // the ranking used: candidate positions, best first
  std::span<const double> scores;       // the plugin's score of each candidate, or empty
  // Why an uncordoned candidate missing from `order` is left out; empty: unranked_reason's.
  std::string unranked;
  // The strategy's keep.free.bytes option, with its full key, when it has one.
  std::optional<std::pair<std::string, uint64_t>> keep_free;
};

// Why a candidate the strategy did not rank was left out: "below <key> (<n>): <m> free after
// placing <e>" when `keep_free` is given and its projected free bytes (usable − reserved −
// expected) fall short of it, otherwise "not ranked by the plugin".
std::string unranked_reason(const lds_dir& dir, uint64_t expected_bytes,
                            const std::optional<std::pair<std::string, uint64_t>>& keep_free);

// Fills `out.dirs`: the ranked candidates in order, then every other log directory in log.dirs
// order with its reason. A cordoned candidate is left out as "cordoned" whether or not the
// strategy ranked it: the host drops it (KIP-1066).
void explain_ranking(const RankingSeen& seen, PlacementExplanation& out);

// The explanation as one log line: "t-0 (expected 1048576 bytes) by size, generation 1: 1. /d2
// (fill 40.0%, free 600000000, reserved 0, partitions 3, of topic 1, projected fill % 40.1); 2.
// ...; left out: /d1 (cordoned; fill ...), /d3 (offline)". The strategy's score of a directory,
// when it gave one, ends its figures.
std::string placement_line(const PlacementExplanation& e);

}  // namespace lds
