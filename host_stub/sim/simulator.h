// simulator.h: replays a workload trace against virtual disks through the host's own placement
// path.
//
// A trace (TOML, see conf/sim/) names disks with capacities, topics created over time with their
// partition counts, expected sizes, write rates (Zipf-skewed across partitions) and retention,
// cordon events and disks attached later. Each strategy variant is run on a fresh in-memory
// LogManager whose DiskProbe is the set of virtual disks, with the strategy loaded from its plugin
// exactly as the broker loads it: nothing here re-implements a ranking.
//
// One step of simulated time, in order: disks attached at this step come online, cordon events
// apply, topics created at this step are placed (partition 0 first), then every placed partition
// appends its bytes for the step. A partition stops growing at its retention (old segments are
// deleted as fast as new ones are written). An append that does not fit on its disk writes what
// fits and counts one out-of-space event.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lds::sim {

namespace fs = std::filesystem;

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
};

struct Trace {
  fs::path file;
  std::string name;  // [simulation] name, default the file's stem
  std::string description;
  uint64_t seed = 1;
  uint32_t steps = 0;
  uint64_t partition_expected_bytes = 0;  // log.partition.expected.bytes
  std::vector<std::string> strategies;    // the default run set; empty = default_strategy_names()
  std::vector<DiskSpec> disks;
  std::vector<TopicSpec> topics;
  std::vector<CordonEvent> cordons;
  std::vector<StrategyVariant> variants;  // [[strategy]] entries, beside the built-in ones
};

// Reads and validates a trace. Throws ConfigError naming the file, line and column, and the key.
Trace load_trace(const fs::path& file);

// "1073741824", "64MiB", "1.5TiB", "10GB" (binary multiples: K/KiB, M/MiB, G/GiB, T/TiB; B).
// Returns nullopt for anything else.
std::optional<uint64_t> parse_bytes(const std::string& text);

// The variants every trace can name: partition, partition_spread, size_fill, size_free, cordon,
// cordon_size, hdfs (seeded with `seed`), elasticsearch.
std::vector<StrategyVariant> builtin_variants(uint64_t seed);
// partition, partition_spread, size_fill, size_free, hdfs, elasticsearch.
std::vector<std::string> default_strategy_names();
// The trace's own variant of that name, else the built-in one. Throws ConfigError listing the
// known names.
StrategyVariant find_variant(const Trace& trace, const std::string& name);

struct DiskResult {
  std::string name;
  uint64_t capacity = 0;
  uint64_t used = 0;        // at the end
  double fill_pct = 0;      // at the end
  double max_fill_pct = 0;  // over the whole run
  uint32_t partitions = 0;  // at the end
  bool attached = false;
};

struct RunResult {
  StrategyVariant variant;
  std::vector<DiskResult> disks;
  double final_spread_pp = 0;                 // max - min fill of the attached disks at the end
  double max_fill_pct = 0;                    // the highest fill any disk reached
  uint64_t out_of_space = 0;                  // appends that did not fit
  uint64_t out_of_space_with_free_space = 0;  // of those, while > 10% of all capacity was free
  uint64_t failed_placements = 0;             // creations no directory would take
  std::string csv;  // "step,<disk>...": each disk's fill in percent after each step
};

// Where liblds_<plugin>.so files are looked for, in order: `extra` (--plugin-dir), then beside the
// executable: ../plugins and ../baseline_plugins (a build tree) and ../lib/lds/plugins (installed).
std::vector<fs::path> plugin_search_path(const std::vector<fs::path>& extra);

// Runs one variant over the trace. Throws PluginError when the plugin cannot be found or loaded.
RunResult run(const Trace& trace, const StrategyVariant& variant,
              const std::vector<fs::path>& plugin_search_path);

// The summary of several runs of one trace as a Markdown table, and the same as CSV.
std::string summary_table(const Trace& trace, const std::vector<RunResult>& results);
std::string summary_csv(const std::vector<RunResult>& results);

// Writes <out>/<variant>.csv, <out>/summary.md and <out>/summary.csv, and, when gnuplot is on the
// PATH, <out>/<variant>.svg (a chart of each disk's fill over time) from <out>/plot.gp. Returns
// false with `why` set when the charts were not drawn. Throws std::runtime_error when a file
// cannot be written.
bool write_outputs(const fs::path& out, const Trace& trace, const std::vector<RunResult>& results,
                   std::string* why);

}  // namespace lds::sim
