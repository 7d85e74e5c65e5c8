// Baseline for the simulator: Elasticsearch's choice of a data path for a new shard, as a strategy.
//
// Not shipped: it is built only into <build>/baseline_plugins. The behaviour follows
// Elasticsearch's ShardPath.selectNewPathForShard with several data paths (a partition is a shard,
// its topic the index):
//   - the estimated shard size is max(expected_bytes, total usable space of all paths / 20);
//   - a path is eligible when its usable space exceeds that estimate (Elasticsearch reads the
//     filesystem's usable space and knows nothing of space promised to other new shards, so
//     reserved_bytes is ignored);
//   - eligible paths rank by fewest shards of the index (topic_partition_count), then fewest shards
//     (partition_count), then most usable space, then data path order;
//   - when no path is eligible, the one with the most usable space is the only choice.
// Elasticsearch has no cordon; cordon flags are ignored. Stateless, so rank needs no lock.
#include <algorithm>
#include <vector>

#include "dir_ranking.h"
#include "strategy_skeleton.h"
#include <lds/logdir_strategy.h>

namespace {

using lds::plugin::dir_at;
using lds::plugin::StrategySpec;
using lds::plugin::Uint128;

// Elasticsearch's choice has no settings of its own, so every option is refused.
struct NoOptions {};

struct Path {
  uint32_t index;
  uint32_t index_shards;  // shards of the request's index (topic) on this path
  uint32_t shards;        // all shards on this path
  uint64_t usable;
};

lds_status rank_paths(const NoOptions& /*options*/, lds_rank_args& args) {
  std::vector<Path> paths;
  paths.reserve(args.dir_count);
  Uint128 total_usable = 0;
  for (uint32_t i = 0; i < args.dir_count; ++i) {
    const lds_dir& d = dir_at(args, i);
    const uint64_t usable = (d.flags & LDS_DIR_SPACE_UNKNOWN) == 0 ? d.usable_bytes : 0;
    paths.push_back({i, d.topic_partition_count, d.partition_count, usable});
    total_usable += usable;
  }
  const Uint128 estimate = std::max<Uint128>(args.request->expected_bytes, total_usable / 20);
  std::vector<Path> eligible;
  for (const Path& p : paths) {
    if (p.usable > estimate) eligible.push_back(p);
  }
  if (eligible.empty()) {
    // getPathWithMostFreeSpace: the first path with the most usable space.
    const Path* best = &paths[0];
    for (const Path& p : paths) {
      if (p.usable > best->usable) best = &p;
    }
    args.order[0] = best->index;
    args.order_len = 1;
    return LDS_OK;
  }
  std::stable_sort(eligible.begin(), eligible.end(), [](const Path& a, const Path& b) {
    if (a.index_shards != b.index_shards) return a.index_shards < b.index_shards;
    if (a.shards != b.shards) return a.shards < b.shards;
    return a.usable > b.usable;
  });
  uint32_t n = 0;
  for (const Path& p : eligible) args.order[n++] = p.index;
  args.order_len = n;
  return LDS_OK;
}

constexpr StrategySpec<NoOptions> kElasticsearchStrategy = {
    .name = "elasticsearch_path",
    .version = "1.0.0",
    .description =
        "Baseline for comparison: Elasticsearch's shard data path choice (fewest shards of the "
        "index, then fewest shards, then most usable space, among paths with room).",
    .capabilities = LDS_CAP_USES_SPACE,
    .options = {},
    .rank = rank_paths,
};

}  // namespace

LDS_PLUGIN_STRATEGY(kElasticsearchStrategy)
