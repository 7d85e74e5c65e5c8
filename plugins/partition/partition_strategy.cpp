// The partition strategy (KIP-178's default, Kafka's rule): fewest partitions first.
#include "dir_ranking.h"
#include "hard_filters.h"
#include "option_table.h"
#include "strategy_skeleton.h"
#include <lds/logdir_strategy.h>

namespace {

using lds::plugin::add_candidates_passing;
using lds::plugin::boolean_field;
using lds::plugin::CandidateList;
using lds::plugin::Option;
using lds::plugin::sort_by_partition_count;
using lds::plugin::sort_by_topic_then_partition_count;
using lds::plugin::StrategySpec;
using lds::plugin::write_order;

struct PartitionOptions {
  // Rank by the request topic's partitions first, keeping one topic spread across disks
  // (KAFKA-8465).
  bool spread_topic;
};

constexpr Option<PartitionOptions> kOptions[] = {
    {"spread.topic", "false", boolean_field<&PartitionOptions::spread_topic>},
};

// Every directory is eligible; the order is the whole rule.
lds_status rank_by_partitions(const PartitionOptions& options, lds_rank_args& args) {
  CandidateList candidates(args.dir_count);
  add_candidates_passing(args, candidates);
  if (options.spread_topic) {
    sort_by_topic_then_partition_count(candidates);
  } else {
    sort_by_partition_count(candidates);
  }
  return write_order(candidates, &args);
}

constexpr StrategySpec<PartitionOptions> kPartitionStrategy = {
    .name = "partition",
    .version = "1.0.0",
    .description =
        "Places a new partition in the log directory with the fewest partitions, "
        "optionally counting the partition's own topic first.",
    .capabilities = LDS_CAP_DETERMINISTIC,
    .options = kOptions,
    .rank = rank_by_partitions,
};

}  // namespace

LDS_PLUGIN_STRATEGY(kPartitionStrategy)
