// simulator.cpp: trace reading, the replay of a trace through LogManager and a loaded plugin, and
// the CSV, summary and chart outputs.
#include "sim/simulator.h"

#include <toml++/toml.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <sstream>

#include "core/abi_rules.h"
#include "core/disk_probe.h"
#include "core/errors.h"
#include "core/log_layout.h"
#include "core/log_manager.h"
#include "core/strategy_plugin.h"
#include "core/strategy_slot.h"

namespace lds::sim {
namespace {

// --- Reading a trace ----------------------------------------------------------------------------

std::string position(const fs::path& file, const toml::source_region& where) {
  return file.string() + ":" + std::to_string(where.begin.line) + ":" +
         std::to_string(where.begin.column) + ": ";
}

[[noreturn]] void fail(const fs::path& file, const toml::source_region& where,
                       const std::string& key, const std::string& reason) {
  throw ConfigError(position(file, where) + key + ": " + reason + ".");
}

// One TOML table of the trace with the checks every table gets: unknown keys are errors, so a
// typo in a trace is reported rather than silently ignored.
class TableReader {
 public:
  TableReader(const fs::path& file, const toml::table& table, std::string prefix,
              std::initializer_list<std::string_view> known)
      : file_(file), table_(table), prefix_(std::move(prefix)) {
    for (auto&& [key, node] : table) {
      if (std::find(known.begin(), known.end(), key.str()) == known.end()) {
        std::string list;
        for (std::string_view k : known) {
          if (!list.empty()) list += ", ";
          list += k;
        }
        fail(file_, key.source(), name(key.str()), "unknown key (known keys: " + list + ")");
      }
    }
  }

  std::string name(std::string_view key) const { return prefix_ + std::string(key); }
  const toml::node* node(std::string_view key) const { return table_.get(key); }
  [[noreturn]] void fail_at(std::string_view key, const std::string& reason) const {
    const toml::node* n = node(key);
    fail(file_, n ? n->source() : table_.source(), name(key), reason);
  }

  std::optional<std::string> text(std::string_view key) const {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_string()) fail_at(key, "must be a string");
    return n->as_string()->get();
  }

  std::optional<int64_t> integer(std::string_view key, int64_t min, int64_t max) const {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (!n->is_integer()) fail_at(key, "must be an integer");
    const int64_t v = n->as_integer()->get();
    if (v < min || v > max) {
      fail_at(key, "must be from " + std::to_string(min) + " to " + std::to_string(max) + ", not " +
                       std::to_string(v));
    }
    return v;
  }

  std::optional<double> number(std::string_view key, double min, double max) const {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    double v = 0;
    if (n->is_integer()) {
      v = static_cast<double>(n->as_integer()->get());
    } else if (n->is_floating_point()) {
      v = n->as_floating_point()->get();
    } else {
      fail_at(key, "must be a number");
    }
    if (!(v >= min && v <= max)) {
      fail_at(key, "must be from " + std::to_string(min) + " to " + std::to_string(max));
    }
    return v;
  }

  // An integer count of bytes, or a string such as "64MiB".
  std::optional<uint64_t> bytes(std::string_view key) const {
    const toml::node* n = node(key);
    if (!n) return std::nullopt;
    if (n->is_integer()) {
      const int64_t v = n->as_integer()->get();
      if (v < 0) fail_at(key, "must not be negative");
      return static_cast<uint64_t>(v);
    }
    if (n->is_string()) {
      if (auto v = parse_bytes(n->as_string()->get())) return v;
    }
    fail_at(key, "must be a byte count such as 1073741824 or \"64MiB\"");
  }

  std::vector<std::string> strings(std::string_view key) const {
    const toml::node* n = node(key);
    std::vector<std::string> out;
    if (!n) return out;
    const toml::array* a = n->as_array();
    if (!a) fail_at(key, "must be an array of strings");
    for (const toml::node& e : *a) {
      if (!e.is_string()) fail(file_, e.source(), name(key), "must be an array of strings");
      out.push_back(e.as_string()->get());
    }
    return out;
  }

  template <typename T>
  T required(std::optional<T> value, std::string_view key) const {
    if (!value) fail(file_, table_.source(), name(key), "is required");
    return *value;
  }

 private:
  const fs::path& file_;
  const toml::table& table_;
  std::string prefix_;
};

// The [[disk]], [[topic]], ... arrays of tables.
std::vector<const toml::table*> tables(const fs::path& file, const toml::table& root,
                                       std::string_view key) {
  std::vector<const toml::table*> out;
  const toml::node* n = root.get(key);
  if (!n) return out;
  const toml::array* a = n->as_array();
  if (!a)
    fail(file, n->source(), std::string(key),
         "must be an array of tables ([[" + std::string(key) + "]])");
  for (const toml::node& e : *a) {
    if (!e.is_table()) fail(file, e.source(), std::string(key), "must be an array of tables");
    out.push_back(e.as_table());
  }
  return out;
}

bool valid_disk_name(const std::string& s) {
  return !s.empty() && s.size() <= 64 && std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-';
  });
}

std::string option_text(const toml::node& n) {
  if (n.is_string()) return n.as_string()->get();
  if (n.is_boolean()) return n.as_boolean()->get() ? "true" : "false";
  if (n.is_integer()) return std::to_string(n.as_integer()->get());
  if (n.is_floating_point()) {
    std::ostringstream s;
    s << n.as_floating_point()->get();
    return s.str();
  }
  return {};
}

// --- Virtual disks ------------------------------------------------------------------------------

fs::path disk_path(const std::string& name) { return fs::path("/sim") / name; }

// The disks of one run: fixed capacities, used space that the replay changes. read() may be called
// from any thread, as the DiskProbe contract asks.
class VirtualDisks final : public DiskProbe {
 public:
  explicit VirtualDisks(const std::vector<DiskSpec>& disks)
      : used_(std::make_unique<std::atomic<uint64_t>[]>(disks.size())) {
    for (const DiskSpec& d : disks) {
      paths_.push_back(disk_path(d.name));
      capacity_.push_back(d.capacity);
    }
  }

  DiskSpace read(const fs::path& dir) const override {
    for (size_t i = 0; i < paths_.size(); ++i) {
      if (paths_[i].native() == dir.native()) {
        const uint64_t used = used_[i].load(std::memory_order_relaxed);
        return {true, capacity_[i], capacity_[i] - std::min(used, capacity_[i])};
      }
    }
    return {};
  }

  const std::vector<fs::path>& paths() const { return paths_; }
  uint64_t capacity(size_t i) const { return capacity_[i]; }
  uint64_t used(size_t i) const { return used_[i].load(std::memory_order_relaxed); }
  uint64_t free(size_t i) const { return capacity_[i] - std::min(used(i), capacity_[i]); }
  void add(size_t i, uint64_t bytes) { used_[i].fetch_add(bytes, std::memory_order_relaxed); }

 private:
  std::vector<fs::path> paths_;
  std::vector<uint64_t> capacity_;
  std::unique_ptr<std::atomic<uint64_t>[]> used_;
};

// --- Replay -------------------------------------------------------------------------------------

// splitmix64: a small, fully specified generator, so a seed gives the same trace on any platform.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// Each partition's bytes per step: the topic's rate shared with Zipf weights 1/rank^s, the ranks
// a seeded shuffle of the partitions (which partitions are hot is random, not always the first).
std::vector<uint64_t> partition_rates(const TopicSpec& topic, uint64_t seed, size_t topic_index) {
  const uint32_t n = topic.partitions;
  std::vector<uint32_t> rank(n);
  for (uint32_t i = 0; i < n; ++i) rank[i] = i;
  uint64_t state = seed ^ (0xD1B54A32D192ED03ull * (topic_index + 1));
  for (uint32_t i = n; i > 1; --i) {
    const uint32_t j = static_cast<uint32_t>(splitmix64(state) % i);
    std::swap(rank[i - 1], rank[j]);
  }
  std::vector<double> weight(n);
  double sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    weight[i] = 1.0 / std::pow(static_cast<double>(rank[i]) + 1.0, topic.zipf);
    sum += weight[i];
  }
  std::vector<uint64_t> rates(n);
  for (uint32_t i = 0; i < n; ++i) {
    rates[i] = static_cast<uint64_t>(
        std::floor(static_cast<double>(topic.write_bytes_per_step) * weight[i] / sum));
  }
  return rates;
}

struct Placed {
  const TopicSpec* topic;
  int32_t partition;
  uint32_t disk;
  uint64_t size;
  uint64_t rate;
};

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

// Appends `item` to a `separator`-separated list.
void append_item(std::string& list, const std::string& item, const char* separator) {
  if (!list.empty()) list += separator;
  list += item;
}

std::string human_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  std::string s = fixed(v, v == std::floor(v) ? 0 : 1);
  return s + " " + units[u];
}

fs::path find_plugin_dir(const std::string& plugin, const std::vector<fs::path>& search) {
  std::string tried;
  for (const fs::path& dir : search) {
    std::error_code ec;
    if (fs::is_regular_file(dir / abi_rules::plugin_file_name(plugin), ec)) return dir;
    append_item(tried, dir.string(), ", ");
  }
  throw PluginError("Strategy plugin liblds_" + plugin + ".so was not found in " +
                    (tried.empty() ? std::string("any plugin folder") : tried) +
                    "; name its folder with --plugin-dir.");
}

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

void write_file(const fs::path& path, const std::string& content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  out.close();
  if (!out) throw std::runtime_error("Cannot write " + path.string() + ".");
}

}  // namespace

std::optional<uint64_t> parse_bytes(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size() &&
         (std::isdigit(static_cast<unsigned char>(text[pos])) || text[pos] == '.')) {
    ++pos;
  }
  if (pos == 0) return std::nullopt;
  const std::string number = text.substr(0, pos);
  if (std::count(number.begin(), number.end(), '.') > 1 || number.front() == '.' ||
      number.back() == '.') {
    return std::nullopt;
  }
  std::string unit = text.substr(pos);
  while (!unit.empty() && unit.front() == ' ') unit.erase(0, 1);
  static const std::map<std::string, uint64_t> kUnits = {
      {"", 1},
      {"B", 1},
      {"K", 1ull << 10},
      {"KiB", 1ull << 10},
      {"KB", 1ull << 10},
      {"M", 1ull << 20},
      {"MiB", 1ull << 20},
      {"MB", 1ull << 20},
      {"G", 1ull << 30},
      {"GiB", 1ull << 30},
      {"GB", 1ull << 30},
      {"T", 1ull << 40},
      {"TiB", 1ull << 40},
      {"TB", 1ull << 40},
  };
  auto u = kUnits.find(unit);
  if (u == kUnits.end()) return std::nullopt;
  const long double value = std::strtold(number.c_str(), nullptr) * u->second;
  if (value > 1.8e19L) return std::nullopt;
  return static_cast<uint64_t>(value);
}

Trace load_trace(const fs::path& file) {
  toml::table root;
  try {
    root = toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    std::string what(e.description());
    if (e.source().begin.line == 0)
      throw ConfigError("Cannot read the trace " + file.string() + ": " + what + ".");
    throw ConfigError(position(file, e.source()) + what + ".");
  }
  Trace t;
  t.file = file;
  TableReader top(file, root, "", {"simulation", "disk", "topic", "cordon", "strategy"});
  const toml::table* sim = root["simulation"].as_table();
  if (!sim) throw ConfigError(file.string() + ": simulation: the [simulation] table is required.");
  TableReader s(file, *sim, "simulation.",
                {"name", "description", "seed", "steps", "partition_expected_bytes", "strategies"});
  t.name = s.text("name").value_or(file.stem().string());
  t.description = s.text("description").value_or("");
  t.seed = static_cast<uint64_t>(s.integer("seed", 0, INT64_MAX).value_or(1));
  t.steps = static_cast<uint32_t>(s.required(s.integer("steps", 1, 1000000), "steps"));
  t.partition_expected_bytes = s.bytes("partition_expected_bytes").value_or(0);
  t.strategies = s.strings("strategies");

  std::set<std::string> disk_names;
  for (const toml::table* d : tables(file, root, "disk")) {
    TableReader r(file, *d, "disk.", {"name", "capacity", "attach_at"});
    DiskSpec disk;
    disk.name = r.required(r.text("name"), "name");
    if (!valid_disk_name(disk.name)) r.fail_at("name", "must match [a-zA-Z0-9._-]{1,64}");
    if (!disk_names.insert(disk.name).second) r.fail_at("name", "\"" + disk.name + "\" repeats");
    disk.capacity = r.required(r.bytes("capacity"), "capacity");
    if (disk.capacity == 0) r.fail_at("capacity", "must be more than 0");
    disk.attach_at = static_cast<uint32_t>(r.integer("attach_at", 0, t.steps - 1).value_or(0));
    t.disks.push_back(disk);
  }
  if (t.disks.empty())
    throw ConfigError(file.string() + ": disk: at least one [[disk]] is required.");
  if (std::none_of(t.disks.begin(), t.disks.end(),
                   [](const DiskSpec& d) { return d.attach_at == 0; })) {
    throw ConfigError(file.string() + ": disk: at least one disk must be attached at step 0.");
  }

  std::set<std::string> topic_names;
  for (const toml::table* tt : tables(file, root, "topic")) {
    TableReader r(file, *tt, "topic.",
                  {"name", "at", "partitions", "expected_bytes", "write_bytes_per_step", "zipf",
                   "retention_bytes", "initial_bytes", "disk"});
    TopicSpec topic;
    topic.name = r.required(r.text("name"), "name");
    if (std::string why = layout::topic_name_problem(topic.name); !why.empty())
      r.fail_at("name", why);
    if (!topic_names.insert(topic.name).second) r.fail_at("name", "\"" + topic.name + "\" repeats");
    topic.at = static_cast<uint32_t>(r.integer("at", 0, t.steps - 1).value_or(0));
    topic.partitions =
        static_cast<uint32_t>(r.required(r.integer("partitions", 1, 100000), "partitions"));
    topic.expected_bytes = r.bytes("expected_bytes");
    topic.write_bytes_per_step = r.bytes("write_bytes_per_step").value_or(0);
    topic.zipf = r.number("zipf", 0, 10).value_or(0);
    topic.retention_bytes = r.bytes("retention_bytes");
    topic.initial_bytes = r.bytes("initial_bytes").value_or(0);
    if (topic.retention_bytes && topic.initial_bytes > *topic.retention_bytes) {
      r.fail_at("initial_bytes", "must not exceed retention_bytes");
    }
    topic.disk = r.text("disk").value_or("");
    if (!topic.disk.empty()) {
      auto d = std::find_if(t.disks.begin(), t.disks.end(),
                            [&](const DiskSpec& x) { return x.name == topic.disk; });
      if (d == t.disks.end()) r.fail_at("disk", "\"" + topic.disk + "\" is not a [[disk]] name");
      if (d->attach_at > topic.at) {
        r.fail_at("disk", "\"" + topic.disk + "\" is attached only at step " +
                              std::to_string(d->attach_at));
      }
    }
    t.topics.push_back(topic);
  }

  for (const toml::table* c : tables(file, root, "cordon")) {
    TableReader r(file, *c, "cordon.", {"at", "disks"});
    CordonEvent e;
    e.at = static_cast<uint32_t>(r.required(r.integer("at", 0, t.steps - 1), "at"));
    e.disks = r.strings("disks");
    for (const std::string& name : e.disks) {
      if (!disk_names.count(name)) r.fail_at("disks", "\"" + name + "\" is not a [[disk]] name");
    }
    t.cordons.push_back(e);
  }

  std::set<std::string> variant_names;
  for (const toml::table* v : tables(file, root, "strategy")) {
    TableReader r(file, *v, "strategy.", {"name", "plugin", "options", "description"});
    StrategyVariant variant;
    variant.name = r.required(r.text("name"), "name");
    variant.plugin = r.required(r.text("plugin"), "plugin");
    if (!abi_rules::valid_strategy_name(variant.plugin)) r.fail_at("plugin", "must match [a-z0-9_]+");
    if (!variant_names.insert(variant.name).second)
      r.fail_at("name", "\"" + variant.name + "\" repeats");
    variant.description = r.text("description").value_or("");
    if (const toml::node* o = r.node("options")) {
      const toml::table* opts = o->as_table();
      if (!opts) r.fail_at("options", "must be a table such as { balance = \"free\" }");
      for (auto&& [key, value] : *opts) {
        std::string text = option_text(value);
        if (text.empty() && !value.is_string()) {
          fail(file, value.source(), "strategy.options." + std::string(key.str()),
               "must be a string, number or boolean");
        }
        variant.options.emplace_back(std::string(key.str()), text);
      }
    }
    t.variants.push_back(variant);
  }
  for (const std::string& name : t.strategies) find_variant(t, name);
  return t;
}

std::vector<StrategyVariant> builtin_variants(uint64_t seed) {
  return {
      {"partition", "partition", {}, "fewest partitions (Kafka's rule)"},
      {"partition_spread",
       "partition",
       {{"spread.topic", "true"}},
       "fewest partitions of the topic, then fewest partitions"},
      {"size_fill", "size", {{"balance", "fill"}}, "lowest projected fill fraction"},
      {"size_free", "size", {{"balance", "free"}}, "most projected free bytes (KIP-178's rule)"},
      {"cordon", "cordon", {}, "cordoned disks excluded, then fewest partitions"},
      {"cordon_size", "cordon", {{"order", "size"}}, "cordoned disks excluded, then fill"},
      {"hdfs",
       "hdfs_available_space",
       {{"seed", std::to_string(seed)}},
       "HDFS AvailableSpaceVolumeChoosingPolicy (10 GiB, 0.75)"},
      {"elasticsearch", "elasticsearch_path", {}, "Elasticsearch's shard path choice"},
  };
}

std::vector<std::string> default_strategy_names() {
  return {"partition", "partition_spread", "size_fill", "size_free", "hdfs", "elasticsearch"};
}

StrategyVariant find_variant(const Trace& trace, const std::string& name) {
  for (const StrategyVariant& v : trace.variants) {
    if (v.name == name) return v;
  }
  std::string known;
  for (const StrategyVariant& v : builtin_variants(trace.seed)) {
    if (v.name == name) return v;
    append_item(known, v.name, ", ");
  }
  for (const StrategyVariant& v : trace.variants) append_item(known, v.name, ", ");
  throw ConfigError(trace.file.string() + ": strategy \"" + name +
                    "\" is neither built in nor a [[strategy]] of the trace (known: " + known +
                    ").");
}

std::vector<fs::path> plugin_search_path(const std::vector<fs::path>& extra) {
  std::vector<fs::path> out;
  auto add = [&](const fs::path& p) {
    std::error_code ec;
    fs::path c = fs::canonical(p, ec);
    if (!ec && fs::is_directory(c, ec) && std::find(out.begin(), out.end(), c) == out.end()) {
      out.push_back(c);
    }
  };
  for (const fs::path& p : extra) add(p);
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (!ec) {
    const fs::path bin = exe.parent_path();
    add(bin / ".." / "plugins");
    add(bin / ".." / "baseline_plugins");
    add(bin / ".." / "lib" / "lds" / "plugins");
  }
  return out;
}

RunResult run(const Trace& trace, const StrategyVariant& variant,
              const std::vector<fs::path>& search) {
  const size_t disk_count = trace.disks.size();
  auto disks = std::make_shared<VirtualDisks>(trace.disks);
  StrategySlot slot;
  LogManager::Options options;
  options.log_dirs = disks->paths();
  options.in_memory = true;
  LogManager logs(options, disks, slot);
  logs.startup();
  std::vector<bool> attached(disk_count);
  for (size_t i = 0; i < disk_count; ++i) {
    attached[i] = trace.disks[i].attach_at == 0;
    if (!attached[i]) {
      logs.mark_offline(static_cast<uint32_t>(i),
                        "not attached until step " + std::to_string(trace.disks[i].attach_at));
    }
  }
  logs.set_partition_expected_bytes(trace.partition_expected_bytes);

  StrategyLoadSpec spec;
  spec.plugin_dir = find_plugin_dir(variant.plugin, search);
  spec.name = variant.plugin;
  spec.options = variant.options;
  slot.publish(logs.load_strategy(spec));

  RunResult result;
  result.variant = variant;
  result.disks.resize(disk_count);
  std::vector<uint32_t> partitions(disk_count);
  std::vector<Placed> placed;
  std::ostringstream csv;
  csv << "step";
  for (const DiskSpec& d : trace.disks) csv << ',' << d.name;
  csv << '\n';

  auto fill_pct = [&](size_t i) {
    return 100.0 * static_cast<double>(disks->used(i)) / static_cast<double>(disks->capacity(i));
  };
  bool plenty_free = true;  // more than 10% of the attached capacity free at the start of the step
  auto write = [&](Placed& p, uint64_t bytes) {
    const uint64_t fits = std::min(bytes, disks->free(p.disk));
    if (fits < bytes) {
      ++result.out_of_space;
      if (plenty_free) ++result.out_of_space_with_free_space;
    }
    if (fits == 0) return;
    logs.append(p.topic->name, p.partition, fits);
    disks->add(p.disk, fits);
    p.size += fits;
  };

  for (uint32_t step = 0; step < trace.steps; ++step) {
    for (size_t i = 0; i < disk_count; ++i) {
      if (!attached[i] && trace.disks[i].attach_at == step) {
        logs.mark_online(static_cast<uint32_t>(i));
        attached[i] = true;
      }
    }
    for (const CordonEvent& e : trace.cordons) {
      if (e.at != step) continue;
      std::set<std::string> cordoned;
      for (const std::string& name : e.disks) cordoned.insert(disk_path(name).string());
      logs.set_cordoned([&](const fs::path& dir) { return cordoned.count(dir.string()) > 0; });
    }
    for (size_t t = 0; t < trace.topics.size(); ++t) {
      const TopicSpec& topic = trace.topics[t];
      if (topic.at != step) continue;
      const std::vector<uint64_t> rates = partition_rates(topic, trace.seed, t);
      for (uint32_t k = 0; k < topic.partitions; ++k) {
        const int32_t partition = static_cast<int32_t>(k);
        if (!topic.disk.empty()) {
          logs.remember_preferred_dir({topic.name, partition}, disk_path(topic.disk));
        }
        PlacementResult r;
        try {
          r = logs.create_partition(topic.name, partition, topic.expected_bytes);
        } catch (const KafkaError&) {
          ++result.failed_placements;
          continue;
        }
        const uint32_t disk = static_cast<uint32_t>(logs.dir_index(r.log_dir));
        ++partitions[disk];
        placed.push_back({&topic, partition, disk, 0, rates[k]});
        if (topic.initial_bytes > 0) write(placed.back(), topic.initial_bytes);
      }
    }
    uint64_t capacity = 0, free = 0;
    for (size_t i = 0; i < disk_count; ++i) {
      if (!attached[i]) continue;
      capacity += disks->capacity(i);
      free += disks->free(i);
    }
    plenty_free = static_cast<double>(free) > 0.1 * static_cast<double>(capacity);
    for (Placed& p : placed) {
      uint64_t bytes = p.rate;
      if (p.topic->retention_bytes) {
        bytes = std::min(bytes,
                         *p.topic->retention_bytes - std::min(p.size, *p.topic->retention_bytes));
      }
      if (bytes > 0) write(p, bytes);
    }
    csv << step;
    for (size_t i = 0; i < disk_count; ++i) {
      csv << ',';
      if (!attached[i]) continue;
      const double f = fill_pct(i);
      result.disks[i].max_fill_pct = std::max(result.disks[i].max_fill_pct, f);
      csv << fixed(f, 3);
    }
    csv << '\n';
  }

  double lo = 100, hi = 0;
  for (size_t i = 0; i < disk_count; ++i) {
    DiskResult& d = result.disks[i];
    d.name = trace.disks[i].name;
    d.capacity = disks->capacity(i);
    d.used = disks->used(i);
    d.fill_pct = fill_pct(i);
    d.partitions = partitions[i];
    d.attached = attached[i];
    if (!d.attached) continue;
    lo = std::min(lo, d.fill_pct);
    hi = std::max(hi, d.fill_pct);
    result.max_fill_pct = std::max(result.max_fill_pct, d.max_fill_pct);
  }
  result.final_spread_pp = hi - lo;
  result.csv = csv.str();
  return result;
}

std::string summary_table(const Trace& trace, const std::vector<RunResult>& results) {
  std::ostringstream out;
  out << "Trace " << trace.name;
  if (!trace.description.empty()) out << ": " << trace.description;
  out << "\nDisks:";
  for (size_t i = 0; i < trace.disks.size(); ++i) {
    const DiskSpec& d = trace.disks[i];
    out << (i ? ", " : " ") << d.name << " " << human_bytes(d.capacity);
    if (d.attach_at > 0) out << " (added at step " << d.attach_at << ")";
  }
  out << "; " << trace.steps << " steps; seed " << trace.seed << ".\n\n";
  out << "| strategy | final spread (pp) | highest fill | out-of-space events | of those with >10% "
         "free | failed placements | final fill per disk (%) | partitions per disk |\n";
  out << "|---|--:|--:|--:|--:|--:|---|---|\n";
  for (const RunResult& r : results) {
    std::string fills, counts;
    for (const DiskResult& d : r.disks) {
      append_item(fills, d.attached ? fixed(d.fill_pct, 1) : std::string("-"), " / ");
      append_item(counts, std::to_string(d.partitions), " / ");
    }
    out << "| " << r.variant.name << " | " << fixed(r.final_spread_pp, 1) << " | "
        << fixed(r.max_fill_pct, 1) << "% | " << r.out_of_space << " | "
        << r.out_of_space_with_free_space << " | " << r.failed_placements << " | " << fills << " | "
        << counts << " |\n";
  }
  return out.str();
}

std::string summary_csv(const std::vector<RunResult>& results) {
  std::ostringstream out;
  out << "strategy,plugin,final_spread_pp,max_fill_pct,out_of_space_events,"
         "out_of_space_events_with_free_space,failed_placements,final_fill_pct,partitions\n";
  for (const RunResult& r : results) {
    std::string fills, counts;
    for (const DiskResult& d : r.disks) {
      if (!fills.empty()) fills += ';';
      if (d.attached) fills += fixed(d.fill_pct, 3);
      append_item(counts, std::to_string(d.partitions), ";");
    }
    out << r.variant.name << ',' << r.variant.plugin << ',' << fixed(r.final_spread_pp, 3) << ','
        << fixed(r.max_fill_pct, 3) << ',' << r.out_of_space << ','
        << r.out_of_space_with_free_space << ',' << r.failed_placements << ',' << fills << ','
        << counts << '\n';
  }
  return out.str();
}

bool write_outputs(const fs::path& out_dir, const Trace& trace,
                   const std::vector<RunResult>& results, std::string* why) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("Cannot create " + out_dir.string() + ": " + ec.message() + ".");
  const fs::path out = fs::absolute(out_dir);
  for (const RunResult& r : results) write_file(out / (r.variant.name + ".csv"), r.csv);
  write_file(out / "summary.md", summary_table(trace, results));
  write_file(out / "summary.csv", summary_csv(results));

  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    if (why) *why = "gnuplot is not installed (LDS_WITH_PLOTS=1 tools/install-deps.sh adds it)";
    return false;
  }
  std::ostringstream gp;
  gp << "set terminal svg size 900,480 noenhanced font 'sans,12' background rgb 'white'\n"
        "set datafile separator ','\nset key outside right top\nset grid\n"
        "set xlabel 'step'\nset ylabel 'disk fill (%)'\nset yrange [0:105]\n";
  const size_t columns = trace.disks.size() + 1;
  for (const RunResult& r : results) {
    gp << "set output " << gnuplot_quote((out / (r.variant.name + ".svg")).string()) << "\n"
       << "set title " << gnuplot_quote(trace.name + ": " + r.variant.name) << "\n"
       << "plot for [i=2:" << columns << "] "
       << gnuplot_quote((out / (r.variant.name + ".csv")).string())
       << " using 1:i with lines linewidth 2 title columnhead(i)\n";
  }
  write_file(out / "plot.gp", gp.str());
  const std::string command =
      "gnuplot " + shell_quote((out / "plot.gp").string()) + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) {
    if (why) *why = "gnuplot failed on " + (out / "plot.gp").string();
    return false;
  }
  return true;
}

}  // namespace lds::sim
