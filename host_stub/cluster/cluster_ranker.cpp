// cluster_ranker.cpp: the strategy's rank over a broker's dirs as DescribeLogDirs showed them.
#include "cluster/cluster_ranker.h"

#include <algorithm>
#include <map>
#include <memory>

#include "balance/balance_model.h"

namespace lds::cluster {

std::shared_ptr<const LoadedStrategy> load_cluster_strategy(
    const std::filesystem::path& plugin_dir, const std::string& name,
    const std::vector<std::pair<std::string, std::string>>& options) {
  // The dry-run rank sees two empty dirs of 1 GiB: a broker's dirs are read only later, and any
  // strategy must rank those.
  static constexpr uint64_t kDryRunBytes = 1ull << 30;
  const lds_dir blank{sizeof(lds_dir), 0, nullptr, kDryRunBytes, kDryRunBytes, 0, 0, 0, 0};
  lds_dir dirs[2] = {blank, blank};
  dirs[0].path = "/lds-dry-run/a";
  dirs[1].path = "/lds-dry-run/b";
  StrategyLoadSpec spec;
  spec.plugin_dir = plugin_dir;
  spec.name = name;
  spec.options = options;
  spec.generation = 1;
  spec.dry_run_dirs = dirs;
  return LoadedStrategy::load(spec);
}

RankDestinations cluster_ranker(StrategySlot& slot, const BalanceModel& model) {
  // Partition counts per dir, current and future replicas, and per (dir, topic).
  auto counts = std::make_shared<std::vector<uint32_t>>(model.dirs.size());
  auto topic_counts = std::make_shared<std::map<std::pair<uint32_t, std::string>, uint32_t>>();
  for (const BalancePartition& p : model.partitions) {
    ++(*counts)[p.dir];
    ++(*topic_counts)[{p.dir, p.tp.topic}];
    if (p.moving) {
      ++(*counts)[p.moving_to];
      ++(*topic_counts)[{p.moving_to, p.tp.topic}];
    }
  }
  return [&slot, &model, counts, topic_counts](
             const BalancePartition& p,
             std::span<const DestinationCandidate> cands) -> std::vector<uint32_t> {
    std::vector<lds_dir> dirs;
    std::vector<uint32_t> dir_of;
    for (const DestinationCandidate& c : cands) {
      const BalanceDir& d = model.dirs[c.dir];
      lds_dir x{};
      x.struct_size = sizeof(lds_dir);
      // Kafka reports no append rate per dir.
      x.flags = LDS_DIR_RATE_UNKNOWN | (d.cordoned ? LDS_DIR_CORDONED : 0u);
      x.path = d.path.c_str();
      x.total_bytes = c.total_bytes;
      x.usable_bytes = c.total_bytes - std::min(c.used_bytes, c.total_bytes);
      x.partition_count = (*counts)[c.dir];
      const auto t = topic_counts->find({c.dir, p.tp.topic});
      x.topic_partition_count = t == topic_counts->end() ? 0 : t->second;
      dirs.push_back(x);
      dir_of.push_back(c.dir);
    }
    return rank_move_destinations(slot, p, dirs, dir_of);
  };
}

}  // namespace lds::cluster
