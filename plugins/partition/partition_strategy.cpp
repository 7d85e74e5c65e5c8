// The partition strategy (KIP-178's default, Kafka's rule): fewest partitions first.
#include <lds/logdir_strategy.h>

#include "dir_ranking.h"
#include "hard_filters.h"
#include "option_table.h"
#include "strategy_skeleton.h"

namespace {

using lds::plugin::AddCandidatesPassing;
using lds::plugin::BooleanField;
using lds::plugin::CandidateList;
using lds::plugin::Option;
using lds::plugin::SortByPartitionCount;
using lds::plugin::SortByTopicThenPartitionCount;
using lds::plugin::StrategySpec;
using lds::plugin::WriteOrder;

struct PartitionOptions {
  // Rank by the request topic's partitions first, keeping one topic spread across disks
  // (KAFKA-8465).
  bool spread_topic;
};

constexpr Option<PartitionOptions> kOptions[] = {
    {"spread.topic", "false", BooleanField<&PartitionOptions::spread_topic>},
};

// Every directory is eligible; the order is the whole rule.
lds_status RankByPartitions(const PartitionOptions& options, lds_rank_args& args) {
  CandidateList candidates(args.dir_count);
  AddCandidatesPassing(args, candidates);
  if (options.spread_topic) {
    SortByTopicThenPartitionCount(candidates);
  } else {
    SortByPartitionCount(candidates);
  }
  return WriteOrder(candidates, &args);
}

constexpr StrategySpec<PartitionOptions> kPartitionStrategy = {
    .name = "partition",
    .version = "1.0.0",
    .description =
        "Places a new partition in the log directory with the fewest partitions, "
        "optionally counting the partition's own topic first.",
    .capabilities = 0,
    .options = kOptions,
    .rank = RankByPartitions,
};

}  // namespace

LDS_PLUGIN_STRATEGY(kPartitionStrategy)
