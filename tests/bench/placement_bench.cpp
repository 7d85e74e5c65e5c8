// placement_bench.cpp: the cost of one placement decision, through the real host path, against a
// port of Kafka's nextLogDirs and against the same ranking called directly, for D log directories
// and P hosted partitions.
//
// Every benchmark of one (D, P) pair runs on one fixture: an in-memory LogManager (no filesystem
// access; the DiskProbe returns fixed sizes) holding P partitions in topics of 20, with a strategy
// plugin loaded from the build's plugin folder and published through a StrategySlot, exactly as
// the broker does; and a Kafka port holding the same P logs.
//
//   project/<strategy>/D/P         LogManager::choose(): snapshot of the directories, rank through
//                                  the loaded .so, the per-call validation; no disk I/O.
//   project_create/<strategy>/D/P  LogManager::create_partition() in memory: choose() plus the
//                                  bookkeeping of the new partition (counts, reservation, maps).
//                                  Every batch of new partitions is deleted again, untimed, so P
//                                  stays within 10% (at most 10,000) of its nominal value.
//   project_metrics/<strategy>/D/P project/ with the metrics on (metrics.listener set): each
//                                  decision also timed into the placement latency histogram.
//   direct/<strategy>/D/P          the strategy's ranking code (plugins/common), compiled into this
//                                  program and called on a ready lds_dir array: no ABI, no host.
//   kafka/D/P                      the port of nextLogDirs, O(P) per call.
//   kafka_create/D/P               nextLogDirs plus adding the log, batched like project_create.
//
// Needs LDS_PLUGIN_DIR. tools/bench.sh runs it and turns the JSON output into the summary table.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "dir_ranking.h"
#include "hard_filters.h"
#include "io/disk_probe.h"
#include "kafka_next_log_dirs.h"
#include "storage/log_manager.h"
#include "strategy/strategy_plugin.h"
#include "strategy/strategy_slot.h"
#include "util/logging.h"

namespace {

namespace fs = std::filesystem;
using lds::bench::KafkaNextLogDirsPort;

constexpr int32_t kPartitionsPerTopic = 20;

// Every directory a 4 TiB disk, each a little fuller than the one before.
class FixedDisks final : public lds::DiskProbe {
 public:
  lds::DiskSpace read(const fs::path& dir) const override {
    const uint64_t n = static_cast<uint64_t>(dir.native().back() % 16);
    return {true, 4ull << 40, (3ull << 40) - (n << 32)};
  }
};

std::string topic_name(int64_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "t%06lld", static_cast<long long>(i));
  return buf;
}

struct Fixture {
  int dirs = 0;
  int64_t partitions = 0;
  std::string strategy;
  lds::StrategySlot slot;
  std::unique_ptr<lds::LogManager> logs;
  std::unique_ptr<KafkaNextLogDirsPort> kafka;
  std::vector<lds_dir> snapshot;  // what the direct ranking ranks
  std::vector<std::string> paths;
};

fs::path plugin_dir() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  if (dir == nullptr) {
    std::fprintf(stderr, "placement_bench: set LDS_PLUGIN_DIR to the build's plugin folder.\n");
    std::exit(2);
  }
  return fs::canonical(dir);
}

// Loads <plugin>/liblds_<strategy>.so and publishes it, as a broker's strategy change does, and
// takes the snapshot the direct ranking ranks: the directories as the host path sees them now (a
// snapshot taken before the fixture's partitions existed would rank empty directories, all tied).
void use_strategy(Fixture& f, const std::string& strategy) {
  if (f.strategy != strategy) {
    lds::StrategyLoadSpec spec;
    spec.plugin_dir = plugin_dir();
    spec.name = strategy;
    f.slot.publish(f.logs->load_strategy(spec));
    f.strategy = strategy;
  }
  const bool read_space = strategy == "size";
  f.snapshot = f.logs->candidates(topic_name(0), read_space, nullptr);
}

// One fixture at a time: the benchmarks are registered grouped by (D, P).
Fixture& fixture(int dirs, int64_t partitions, const std::string& strategy) {
  static std::unique_ptr<Fixture> current;
  if (!current || current->dirs != dirs || current->partitions != partitions) {
    current.reset();
    auto f = std::make_unique<Fixture>();
    f->dirs = dirs;
    f->partitions = partitions;
    lds::LogManager::Options options;
    for (int d = 0; d < dirs; ++d) {
      f->paths.push_back("/bench/d" + std::to_string(d));
      options.log_dirs.push_back(f->paths.back());
    }
    options.in_memory = true;
    f->logs = std::make_unique<lds::LogManager>(options, std::make_shared<FixedDisks>(), f->slot);
    f->logs->startup();
    use_strategy(*f, "partition");
    f->kafka = std::make_unique<KafkaNextLogDirsPort>(f->paths);
    for (int64_t i = 0; i < partitions; ++i) {
      const std::string topic = topic_name(i / kPartitionsPerTopic);
      const int32_t partition = static_cast<int32_t>(i % kPartitionsPerTopic);
      lds::PlacementResult r = f->logs->create_partition(topic, partition, 1ull << 30);
      f->logs->append(topic, partition, static_cast<uint64_t>(i % 7) << 20);
      f->kafka->add_log(topic, partition, static_cast<size_t>(f->logs->dir_index(r.log_dir)));
    }
    current = std::move(f);
  }
  use_strategy(*current, strategy);
  return *current;
}

int64_t batch_size(int64_t partitions) { return std::clamp<int64_t>(partitions / 10, 100, 10000); }

void bm_project(benchmark::State& state, int dirs, int64_t partitions, std::string strategy,
                bool metrics) {
  Fixture& f = fixture(dirs, partitions, strategy);
  f.logs->set_placement_timing(metrics);
  const std::string topic = topic_name(0);
  int32_t next = kPartitionsPerTopic;
  for (auto _ : state) {
    lds::PlacementDecision d = f.logs->choose(topic, next, std::nullopt);
    benchmark::DoNotOptimize(d.dirs.data());
    if (++next == 1 << 30) next = kPartitionsPerTopic;
  }
  f.logs->set_placement_timing(false);
}

void bm_project_create(benchmark::State& state, int dirs, int64_t partitions,
                       std::string strategy) {
  Fixture& f = fixture(dirs, partitions, strategy);
  const int64_t batch = batch_size(partitions);
  int64_t in_batch = 0, batches = 0;
  std::string topic = "new0";
  for (auto _ : state) {
    lds::PlacementResult r = f.logs->create_partition(topic, static_cast<int32_t>(in_batch));
    benchmark::DoNotOptimize(r.log_dir.data());
    if (++in_batch == batch) {
      state.PauseTiming();
      f.logs->delete_topic(topic);
      topic = "new";
      topic += std::to_string(++batches);
      in_batch = 0;
      state.ResumeTiming();
    }
  }
  if (in_batch > 0) f.logs->delete_topic(topic);
}

// The ranking the plugin runs, minus the ABI: the same hard filters, candidate keys and orders.
void rank_directly(const std::string& strategy, const std::vector<lds_dir>& dirs, uint64_t expected,
                   std::vector<uint32_t>& order) {
  using namespace lds::plugin;
  const lds_request request{sizeof(lds_request), 0, "bench", expected, 0};
  lds_rank_args args{};
  args.struct_size = sizeof args;
  args.dir_count = static_cast<uint32_t>(dirs.size());
  args.dir_stride = sizeof(lds_dir);
  args.request = &request;
  args.dirs = dirs.data();
  CandidateList candidates(dirs.size());
  if (strategy == "size") {
    for (const lds_dir& d : dirs) {
      if (!space_known(d)) std::abort();
    }
    add_candidates_passing(args, candidates, keeps_free_bytes(0));
    sort_by_fill(candidates);
  } else {
    add_candidates_passing(args, candidates);
    sort_by_partition_count(candidates);
  }
  uint32_t n = 0;
  for (const Candidate& c : candidates) order[n++] = c.index;
}

void bm_direct(benchmark::State& state, int dirs, int64_t partitions, std::string strategy) {
  Fixture& f = fixture(dirs, partitions, strategy);
  std::vector<uint32_t> order(f.snapshot.size());
  for (auto _ : state) {
    rank_directly(strategy, f.snapshot, 1ull << 30, order);
    benchmark::DoNotOptimize(order.data());
    benchmark::ClobberMemory();
  }
}

void bm_kafka(benchmark::State& state, int dirs, int64_t partitions) {
  Fixture& f = fixture(dirs, partitions, "partition");
  for (auto _ : state) {
    std::vector<const std::string*> order = f.kafka->next_log_dirs();
    benchmark::DoNotOptimize(order.data());
  }
}

void bm_kafka_create(benchmark::State& state, int dirs, int64_t partitions) {
  Fixture& f = fixture(dirs, partitions, "partition");
  const int64_t batch = batch_size(partitions);
  int64_t in_batch = 0;
  const std::string topic = "new";
  auto remove_batch = [&] {
    for (int64_t p = 0; p < in_batch; ++p) f.kafka->remove_log(topic, static_cast<int32_t>(p));
    in_batch = 0;
  };
  for (auto _ : state) {
    std::vector<const std::string*> order = f.kafka->next_log_dirs();
    f.kafka->add_log(topic, static_cast<int32_t>(in_batch), f.kafka->dir_index(order[0]));
    if (++in_batch == batch) {
      state.PauseTiming();
      remove_batch();
      state.ResumeTiming();
    }
  }
  remove_batch();
}

}  // namespace

int main(int argc, char** argv) {
  lds::set_log_level("warn");
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  for (int64_t p : {1000, 10000, 100000, 1000000}) {
    for (int d : {4, 12, 64}) {
      std::string suffix = "/";
      suffix += std::to_string(d);
      suffix += '/';
      suffix += std::to_string(p);
      benchmark::RegisterBenchmark(("kafka" + suffix).c_str(), bm_kafka, d, p);
      benchmark::RegisterBenchmark(("kafka_create" + suffix).c_str(), bm_kafka_create, d, p);
      for (const char* strategy : {"partition", "size"}) {
        const std::string s = strategy;
        benchmark::RegisterBenchmark(("project/" + s + suffix).c_str(), bm_project, d, p, s, false);
        benchmark::RegisterBenchmark(("project_metrics/" + s + suffix).c_str(), bm_project, d, p, s,
                                     true);
        benchmark::RegisterBenchmark(("direct/" + s + suffix).c_str(), bm_direct, d, p, s);
        benchmark::RegisterBenchmark(("project_create/" + s + suffix).c_str(), bm_project_create, d,
                                     p, s);
      }
    }
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
