// The cordon strategy (KIP-1066): skips cordoned log directories, ranks the rest by partitions or
// fill.
#include "dir_ranking.h"
#include "error_text.h"
#include "hard_filters.h"
#include "host_log.h"
#include "option_table.h"
#include "strategy_skeleton.h"
#include <lds/logdir_strategy.h>

namespace {

using lds::plugin::add_candidates_at_horizon;
using lds::plugin::Candidate;
using lds::plugin::CandidateList;
using lds::plugin::choice_field;
using lds::plugin::dir_at;
using lds::plugin::kProjectedFillScore;
using lds::plugin::Option;
using lds::plugin::rates_known;
using lds::plugin::seconds_field;
using lds::plugin::sort_by_fill;
using lds::plugin::sort_by_partition_count;
using lds::plugin::space_known;
using lds::plugin::StrategySpec;
using lds::plugin::uncordoned;
using lds::plugin::WarnOnce;
using lds::plugin::write_error;
using lds::plugin::write_fill_scores;
using lds::plugin::write_order;

enum class Order { kPartition, kSize };
constexpr const char* kOrderChoices[] = {"partition", "size"};

struct CordonOptions {
  Order order;
  uint64_t horizon_seconds;  // order=size: rank by the fill projected this far ahead; 0 = today
};

constexpr Option<CordonOptions> kOptions[] = {
    {"order", "partition", choice_field<&CordonOptions::order, kOrderChoices>},
    {"horizon.seconds", "0", seconds_field<&CordonOptions::horizon_seconds>},
};

// The order is immutable after create; the warn-once latch is the only state rank changes.
struct CordonStrategy {
  CordonStrategy(const CordonOptions& o, const lds_host_api* h) : options(o), host(h) {}
  const CordonOptions options;
  const lds_host_api* const host;
  WarnOnce space_unknown_warning;
};

// order=size is the size strategy's fill rule, including its fallback: when an uncordoned
// directory's space is unknown, the call ranks by partition count and warns once. The space of
// cordoned directories does not matter, since they are never ranked.
void sort_by_size(CordonStrategy& strategy, lds_rank_args& args, CandidateList& candidates) {
  for (const Candidate& c : candidates) {
    const lds_dir& dir = dir_at(args, c.index);
    if (!space_known(dir)) {
      strategy.space_unknown_warning.warn(
          strategy.host,
          "strategy cordon (order=size): the space of log directory '%s' is unknown (unreadable "
          "or total_bytes 0); ranking by partition count while any directory's space is "
          "unknown. This warning is logged once.",
          dir.path != nullptr ? dir.path : "(null)");
      sort_by_partition_count(candidates);
      return;
    }
  }
  sort_by_fill(candidates);
  write_fill_scores(candidates, &args);
}

lds_status rank_uncordoned(CordonStrategy& strategy, lds_rank_args& args) {
  // order=size with horizon.seconds ranks by projected fill at the horizon when every rate is
  // known, else by today's fill, as the size strategy does.
  const bool at_horizon = strategy.options.order == Order::kSize && rates_known(args);
  const uint64_t horizon = at_horizon ? strategy.options.horizon_seconds : 0;
  CandidateList candidates(args.dir_count);
  add_candidates_at_horizon(args, horizon, candidates, uncordoned());
  if (candidates.empty()) {
    write_error(args.error, args.error_cap, "all log directories are cordoned");
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  if (strategy.options.order == Order::kSize) {
    sort_by_size(strategy, args, candidates);
  } else {
    sort_by_partition_count(candidates);
  }
  return write_order(candidates, &args);
}

// Capabilities are static: USES_SPACE and USES_RESERVATIONS are declared because order=size reads
// them, so a host must always supply space and reservations to this strategy.
constexpr StrategySpec<CordonOptions, CordonStrategy> kCordonStrategy = {
    .name = "cordon",
    .version = "1.0.0",
    .description =
        "Never places a new partition in a cordoned log directory and ranks the others "
        "by partition count or by projected fill.",
    .capabilities = LDS_CAP_HONORS_CORDON | LDS_CAP_USES_SPACE | LDS_CAP_USES_RESERVATIONS |
                    LDS_CAP_DETERMINISTIC,
    .options = kOptions,
    .rank = rank_uncordoned,
    .score_name = kProjectedFillScore,
};

}  // namespace

LDS_PLUGIN_STRATEGY(kCordonStrategy)
