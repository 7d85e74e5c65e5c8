// balance_plan_bench.cpp: the cost of planning one balance round at 100k partitions on 12 log
// directories (the bound: 10 ms), with destinations ranked through the size strategy
// loaded from its plugin, as the broker ranks them.
//
//   plan/D/P      plan_balance() on a model of D dirs (4 TiB each) and P partitions of skewed
//                 sizes, one dir 30 points over the others: the whole plan, every move ranked.
//   snapshot/D/P  balance_snapshot(): the model read from an in-memory LogManager hosting the P
//                 partitions (DescribeLogDirs' bookkeeping), the other half of a round's cost.
//
// Needs LDS_PLUGIN_DIR. tools/bench.sh runs it.
#include <benchmark/benchmark.h>

#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "balance/balance_model.h"
#include "balance/balance_planner.h"
#include "io/disk_probe.h"
#include "storage/log_manager.h"
#include "strategy/strategy_plugin.h"
#include "strategy/strategy_slot.h"
#include "util/logging.h"
#include "util/splitmix.h"

namespace {

namespace fs = std::filesystem;
constexpr uint64_t kDiskBytes = 4ull << 40;

// The topic of partition p, 20 partitions a topic. Appended: GCC 12 at -O3 reports a false
// -Wrestrict on `"t" + std::to_string(n)`.
std::string topic_of(int p) {
  std::string topic = "t";
  topic += std::to_string(p / 20);
  return topic;
}

class FixedDisks final : public lds::DiskProbe {
 public:
  lds::DiskSpace read(const fs::path&) const override { return {true, kDiskBytes, kDiskBytes / 2}; }
};

struct Fixture {
  lds::StrategySlot slot;
  std::unique_ptr<lds::LogManager> logs;
  lds::BalanceModel model;

  Fixture(int dirs, int partitions) {
    lds::set_log_level("off");
    lds::LogManager::Options o;
    o.in_memory = true;
    for (int i = 0; i < dirs; ++i) o.log_dirs.push_back("/bench/d" + std::to_string(i));
    logs = std::make_unique<lds::LogManager>(o, std::make_shared<FixedDisks>(), slot);
    logs->startup();
    lds::StrategyLoadSpec spec;
    const char* dir = std::getenv("LDS_PLUGIN_DIR");
    spec.plugin_dir = dir ? dir : "plugins";
    spec.name = "size";
    slot.publish(logs->load_strategy(spec));

    // Sizes from 1 MiB to about 2 GiB, log-uniform; dir 0 gets a sixteenth more of them.
    lds::SplitMix64 random(20261201);
    for (int i = 0; i < dirs; ++i) {
      model.dirs.push_back(
          {o.log_dirs[static_cast<size_t>(i)].string(), kDiskBytes, 0, 0, true, false});
    }
    for (int p = 0; p < partitions; ++p) {
      lds::BalancePartition bp;
      bp.tp = {topic_of(p), p % 20};
      const uint64_t r = random.next();
      bp.dir = (r % 16 == 0) ? 0 : static_cast<uint32_t>((r >> 8) % static_cast<uint64_t>(dirs));
      bp.size = (1ull << 20) << ((r >> 20) % 11);
      bp.size += (r >> 32) % bp.size;
      model.dirs[bp.dir].used_bytes += bp.size;
      model.partitions.push_back(bp);
    }
  }
};

void plan(benchmark::State& state) {
  Fixture f(static_cast<int>(state.range(0)), static_cast<int>(state.range(1)));
  const lds::RankDestinations rank = lds::strategy_ranker(*f.logs, f.slot);
  lds::BalanceSettings s;
  size_t moves = 0;
  double spread = 0;
  for (auto _ : state) {
    lds::BalancePlan p = lds::plan_balance(f.model, s, rank);
    moves = p.moves.size();
    spread = p.spread_before_percent;
    benchmark::DoNotOptimize(p);
  }
  state.counters["moves"] = static_cast<double>(moves);
  state.counters["spread"] = spread;
}

void snapshot(benchmark::State& state) {
  const int partitions = static_cast<int>(state.range(1));
  Fixture f(static_cast<int>(state.range(0)), 0);
  for (int p = 0; p < partitions; ++p) {
    f.logs->create_partition(topic_of(p), p % 20);
  }
  const std::unordered_map<lds::TopicPartition, int64_t, lds::TopicPartitionHash> none;
  for (auto _ : state) {
    lds::BalanceSnapshot snap = lds::balance_snapshot(*f.logs, none, nullptr);
    benchmark::DoNotOptimize(snap);
  }
}

}  // namespace

BENCHMARK(plan)->Args({12, 100000})->Unit(benchmark::kMillisecond)->Name("plan");
BENCHMARK(snapshot)->Args({12, 100000})->Unit(benchmark::kMillisecond)->Name("snapshot");

BENCHMARK_MAIN();
