// balance_planner.h: the intra-broker balance planner, a pure function over a model of the log
// directories and their partitions. It decides which replicas to move between directories so that
// every directory ends near the same fill, moving close to the fewest bytes that reach the target.
//
// The same planner serves `lds-host serve` (balance/balancer.h) and the simulator: only the model's
// source differs. Destinations are ranked by a callback, in practice the active strategy's rank,
// so cordons, keep.free.bytes and a third-party plugin's rules hold for balancing as for placement.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "model/topic_partition.h"

namespace lds {

// One log directory as the planner sees it.
struct BalanceDir {
  std::string path;
  uint64_t total_bytes = 0;     // 0 when its size could not be read: then it takes no part
  uint64_t used_bytes = 0;      // on disk now (total minus usable), copies of moves in flight too
  uint64_t reserved_bytes = 0;  // still to be copied into it by moves in flight
  bool online = true;
  bool cordoned = false;
  // Usable bytes less everything promised there (partitions' expected bytes too), what a move
  // into it is checked against; the balancer watches it to see space freed.
  uint64_t free_bytes = 0;
  // The filesystem it is on (DiskSpace::filesystem), 0 when unknown. Dirs with one non-zero id
  // share one filesystem: the planner counts its size, used bytes and room once, and fills it as
  // one (each of its dirs shows the filesystem's fill).
  uint64_t filesystem = 0;
};

// One hosted replica as the planner sees it.
struct BalancePartition {
  TopicPartition tp;
  uint32_t dir = 0;  // index into BalanceModel::dirs
  uint64_t size = 0;
  double bytes_in_per_sec = 0;  // its append rate; 0 when unknown
  bool moving = false;          // a move is in flight: its size leaves `dir` when the move ends
  uint32_t moving_to = 0;       // the move's destination, when `moving`
  std::optional<int64_t> last_moved_ms;  // when the balancer last moved it
};

struct BalanceModel {
  std::vector<BalanceDir> dirs;
  std::vector<BalancePartition> partitions;

  // The replica `tp`, or nullptr when the model does not hold it.
  const BalancePartition* find(const TopicPartition& tp) const;
};

struct BalanceSettings {
  double threshold_percent = 10;  // log.dir.balance.threshold.percent
  int64_t cooldown_ms = 3600000;  // log.dir.balance.cooldown.ms
  int64_t now_ms = 0;             // the clock cooldowns are measured on
  // replica.alter.log.dirs.io.max.bytes.per.second; kNoMoveThrottle (or more) = unthrottled. A
  // partition appending faster than half of it is never moved: its copy would never catch up. At
  // 0 no move can copy a byte, so a plan that would act plans none and says why.
  uint64_t throttle_bytes_per_sec = kNoMoveThrottle;
  // Hysteresis: the previous round had not reached its target, so the planner keeps going while
  // the spread is above half the threshold, not only above the threshold.
  bool balancing = false;
  // A round on request (balance --execute): plan towards the target whatever the spread.
  bool force = false;
  size_t max_moves = 100000;  // a plan stops after this many moves
};

// Why nothing moves while replica.alter.log.dirs.io.max.bytes.per.second is 0 (a quota that lets
// no byte through): a clause for the plan's summary and the balancer's and the drain's waits.
inline constexpr std::string_view kMovesHeldByZeroThrottle =
    "replica.alter.log.dirs.io.max.bytes.per.second is 0, so no move can copy a byte until it is "
    "raised";

// A directory a partition could move to, with its state as projected by the plan so far.
struct DestinationCandidate {
  uint32_t dir = 0;  // index into BalanceModel::dirs
  uint64_t total_bytes = 0;
  uint64_t used_bytes = 0;  // used plus the bytes still to be copied into it, moves planned too
};

// Ranks `candidates` for moving `partition` and returns their dir indices, best first. A candidate
// left out is ineligible for this partition (a cordon, keep.free.bytes, a plugin's own rule).
using RankDestinations = std::function<std::vector<uint32_t>(
    const BalancePartition& partition, std::span<const DestinationCandidate> candidates)>;

struct PlannedMove {
  TopicPartition tp;
  uint32_t from = 0;
  uint32_t to = 0;
  uint64_t bytes = 0;
  double from_fill_percent = 0;  // fills before this move, as projected by the moves before it
  double to_fill_percent = 0;
  std::string reason;  // "spread 21.5 > 10.0 points"
};

struct DirFill {
  std::string path;
  bool eligible = false;  // online, uncordoned, size known
  double before_percent = 0;
  double after_percent = 0;
};

struct BalancePlan {
  bool act = false;             // the spread called for a round (or one was asked for)
  bool target_reached = false;  // after the planned moves every eligible dir is in the band
  double ideal_percent = 0;     // Σused / Σtotal over the eligible dirs' filesystems
  double threshold_percent = 0;
  double spread_before_percent = 0;  // max fill minus min fill over the eligible dirs
  double spread_after_percent = 0;
  // The least any plan must move to reach the band: Σ of each dir's excess over ideal +
  // threshold/4, or Σ of each dir's deficit under ideal − threshold/4 when that is larger.
  uint64_t lower_bound_bytes = 0;
  uint64_t planned_bytes = 0;
  std::vector<PlannedMove> moves;
  std::vector<DirFill> dirs;  // model order
  std::string summary;        // one sentence: what the plan does, or why it does nothing
};

// Plans one round. The target band is ideal ± threshold/4 (a spread of half the threshold). The
// most-over dir gives first, the transfer it needs being its excess over the band's top: of its
// partitions that may move (not empty, not moving, out of their cooldown, not appending faster
// than half the throttle), the one closest to that transfer without overshooting it by more than
// 10%, else the largest that fits in a destination's room below the band's top without taking the
// source under the band's bottom. Destinations are the dirs below the ideal, ranked by `rank`; a
// move must fit in the destination and lower the spread, or it is not taken. Within a round a dir
// either gives or takes, never both. When the spread is over the threshold with no dir over the
// band's top (one dir far under it), a dir gives its excess over the ideal instead.
BalancePlan plan_balance(const BalanceModel& model, const BalanceSettings& settings,
                         const RankDestinations& rank);

// Why moving `bytes` of a partition from dir `from` to dir `to` would not help now (the source is
// no longer above the ideal, the destination no longer below it, or the spread would not drop), or
// empty when it still would: a planned move is checked again before it starts.
std::string balance_move_problem(const BalanceModel& model, uint32_t from, uint32_t to,
                                 uint64_t bytes);

// Dir `dir`'s fill in percent once the moves in flight end (what the planner balances).
double balance_fill_percent(const BalanceModel& model, uint32_t dir);

// The bytes dir `dir`'s filesystem can still take: its size less its used bytes and what the moves
// in flight into any of its dirs have still to copy.
uint64_t balance_room_bytes(const BalanceModel& model, uint32_t dir);

struct DrainPlan {
  std::vector<PlannedMove> moves;
  uint64_t bytes = 0;       // every byte on the drained dir that has to move
  uint64_t room_bytes = 0;  // what the other eligible dirs can take, moves in flight counted, each
                            // filesystem once
  uint64_t shortfall_bytes = 0;  // bytes that found no destination; 0 when the drain can run
  std::vector<TopicPartition> unplaced;  // the partitions that found no destination
  std::string problem;                   // the refusal sentence, empty when the drain can run
};

// "12.3": a fill percentage or a spread in points, with one decimal, as the plan's summary and
// the balancer's log lines write it.
std::string percent_text(double v);

// Plans moving every replica off model.dirs[dir] to the other online, uncordoned dirs, largest
// first, each to the best-ranked destination it fits in, counting what moves in flight and the
// moves planned before it will take.
DrainPlan plan_drain(const BalanceModel& model, uint32_t dir, const RankDestinations& rank);

}  // namespace lds
