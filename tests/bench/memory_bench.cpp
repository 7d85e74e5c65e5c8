// memory_bench.cpp: heap bytes of host bookkeeping per hosted partition, measured with mallinfo2.
//
// Builds an in-memory LogManager (12 log directories, the partition strategy loaded from its .so),
// takes mallinfo2().uordblks, creates P partitions in topics of 20 (topic names of 7 characters,
// which std::string keeps inline, so no byte of the figure is a topic name), and takes it again.
// The difference over P is the bookkeeping per partition: the partition record, the maps that
// find it, per-directory and per-topic counts, and the allocator's own overhead.
//
// Usage: memory_bench [partitions=1000000]. Prints one JSON object. Needs LDS_PLUGIN_DIR.
#include <malloc.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "io/disk_probe.h"
#include "storage/log_manager.h"
#include "strategy/strategy_plugin.h"
#include "strategy/strategy_slot.h"
#include "util/logging.h"

namespace {

namespace fs = std::filesystem;

class FixedDisks final : public lds::DiskProbe {
 public:
  lds::DiskSpace read(const fs::path&) const override { return {true, 4ull << 40, 3ull << 40}; }
};

}  // namespace

int main(int argc, char** argv) {
  const long partitions = argc > 1 ? std::atol(argv[1]) : 1000000;
  constexpr int kDirs = 12, kPerTopic = 20;
  if (std::getenv("LDS_PLUGIN_DIR") == nullptr) {
    std::fprintf(stderr, "memory_bench: set LDS_PLUGIN_DIR to the build's plugin folder.\n");
    return 2;
  }
  lds::set_log_level("warn");
  lds::LogManager::Options options;
  for (int d = 0; d < kDirs; ++d) options.log_dirs.push_back("/bench/d" + std::to_string(d));
  options.in_memory = true;
  lds::StrategySlot slot;
  lds::LogManager logs(options, std::make_shared<FixedDisks>(), slot);
  logs.startup();
  lds::StrategyLoadSpec spec;
  spec.plugin_dir = fs::canonical(std::getenv("LDS_PLUGIN_DIR"));
  spec.name = "partition";
  slot.publish(logs.load_strategy(spec));
  // Warm the per-thread scratch of the placement path before measuring.
  logs.choose("warmup", 0);

  std::vector<std::string> topics;
  topics.reserve(static_cast<size_t>(partitions / kPerTopic + 1));
  for (long t = 0; t * kPerTopic < partitions; ++t) {
    char name[32];
    std::snprintf(name, sizeof name, "t%06ld", t);
    topics.emplace_back(name);
  }
  malloc_trim(0);
  const size_t before = mallinfo2().uordblks;
  for (long i = 0; i < partitions; ++i) {
    logs.create_partition(topics[static_cast<size_t>(i / kPerTopic)],
                          static_cast<int32_t>(i % kPerTopic), 1ull << 30);
  }
  const size_t after = mallinfo2().uordblks;
  const double per = static_cast<double>(after - before) / static_cast<double>(partitions);
  std::printf(
      "{\"partitions\": %ld, \"dirs\": %d, \"partitions_per_topic\": %d, "
      "\"topic_name_chars\": 7, \"heap_bytes\": %zu, \"bytes_per_partition\": %.1f}\n",
      partitions, kDirs, kPerTopic, after - before, per);
  return logs.partition_count() == static_cast<size_t>(partitions) ? 0 : 1;
}
