// trace.h: a workload trace (TOML, see conf/sim/): disks with capacities and the step each is
// attached at, topics created over time with their partition counts, expected sizes, write rates
// (Zipf-skewed across partitions) and retention, cordon events, and the trace's own strategy
// variants.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lds::sim {

struct DiskSpec {
  std::string name;        // also the last component of its virtual path /sim/<name>
  uint64_t capacity = 0;   // bytes
  uint32_t attach_at = 0;  // the step it is added at; 0 = present from the start
};

struct TopicSpec {
  std::string name;
  uint32_t at = 0;  // the step it is created at
  uint32_t partitions = 1;
  std::optional<uint64_t> expected_bytes;   // sent with the creation; unset = the host estimates
  uint64_t write_bytes_per_step = 0;        // the topic's total, shared by its partitions
  double zipf = 0;                          // skew of that share; 0 = equal
  std::optional<uint64_t> retention_bytes;  // per partition; unset = grows without limit
  uint64_t initial_bytes = 0;               // each partition's size when created (existing data)
  std::string disk;  // non-empty: placed on this disk (data from before the trace), not ranked
};

struct CordonEvent {
  uint32_t at = 0;
  std::vector<std::string> disks;  // the cordoned set from this step on; empty uncordons all
};

// A named strategy configuration: which plugin, with which options.
struct StrategyVariant {
  std::string name;    // e.g. "size_free"
  std::string plugin;  // liblds_<plugin>.so
  std::vector<std::pair<std::string, std::string>> options;
  std::string description;
  bool balance = false;  // the intra-broker balancer runs too (the "+balance" variants)
  // A comparison strategy built only for the simulator (HDFS's and Elasticsearch's rules, in
  // build/baseline_plugins/), never shipped nor installed; see is_baseline_plugin().
  bool baseline = false;
};

// A step of simulated time is one hour, as every shipped trace reads it.
inline constexpr int64_t kStepMillis = int64_t{3600} * 1000;

// The trace's [balancer] table: the intra-broker balancer of the "+balance" variants.
struct BalancerSpec {
  bool enable = false;  // every variant of the trace runs with the balancer
  double threshold_percent = 10;
  uint64_t bytes_per_step = 10ull * 1024 * 1024 * 3600;  // 10 MiB/s over a one-hour step
  uint32_t max_concurrent_moves = 2;
  uint32_t interval_steps = 1;
};

struct Trace {
  std::filesystem::path file;
  std::string name;  // [simulation] name, default the file's stem
  std::string description;
  uint64_t seed = 1;
  uint32_t steps = 0;
  uint32_t step_seconds = 3600;           // trace time per step: the clock of the append rates
  uint64_t partition_expected_bytes = 0;  // log.partition.expected.bytes
  std::vector<std::string> strategies;    // the default run set; empty = default_strategy_names()
  std::vector<DiskSpec> disks;
  std::vector<TopicSpec> topics;
  std::vector<CordonEvent> cordons;
  std::vector<StrategyVariant> variants;  // [[strategy]] entries, beside the built-in ones
  BalancerSpec balancer;                  // [balancer]
};

// Reads and validates a trace. Throws ConfigError naming the file, line and column, and the key.
Trace load_trace(const std::filesystem::path& file);

}  // namespace lds::sim
