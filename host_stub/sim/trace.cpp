// trace.cpp: reads a trace, checking every key, so a typo or a wrong value is reported with its
// file, line and column rather than simulated.
#include "sim/trace.h"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <set>
#include <sstream>

#include "io/log_layout.h"
#include "sim/variants.h"
#include "strategy/abi_rules.h"
#include "util/byte_size.h"
#include "util/errors.h"

namespace lds::sim {

namespace fs = std::filesystem;
namespace {

std::string position(const fs::path& file, const toml::source_region& where) {
  return file_position(file, where.begin.line, where.begin.column);
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
      if (auto v = parse_byte_size(n->as_string()->get())) return v;
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

// The trace file as TOML; ConfigError with its position when it cannot be read or parsed.
toml::table parse_trace_file(const fs::path& file) {
  try {
    return toml::parse_file(file.string());
  } catch (const toml::parse_error& e) {
    std::string what(e.description());
    if (e.source().begin.line == 0)
      throw ConfigError("Cannot read the trace " + file.string() + ": " + what + ".");
    throw ConfigError(position(file, e.source()) + what + ".");
  }
}

// The [simulation] table, which every trace has.
void read_simulation(const fs::path& file, const toml::table& root, Trace& t) {
  const toml::table* sim = root["simulation"].as_table();
  if (!sim) throw ConfigError(file.string() + ": simulation: the [simulation] table is required.");
  TableReader s(file, *sim, "simulation.",
                {"name", "description", "seed", "steps", "step_seconds", "partition_expected_bytes",
                 "strategies"});
  t.name = s.text("name").value_or(file.stem().string());
  t.description = s.text("description").value_or("");
  t.seed = static_cast<uint64_t>(s.integer("seed", 0, INT64_MAX).value_or(1));
  t.steps = static_cast<uint32_t>(s.required(s.integer("steps", 1, 1000000), "steps"));
  t.step_seconds = static_cast<uint32_t>(s.integer("step_seconds", 1, 31'536'000).value_or(3600));
  t.partition_expected_bytes = s.bytes("partition_expected_bytes").value_or(0);
  t.strategies = s.strings("strategies");
}

// The [[disk]] tables: at least one, and one attached at step 0.
void read_disks(const fs::path& file, const toml::table& root, Trace& t) {
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
}

// The [[topic]] tables; a topic's disk must be one of the trace's, attached by the topic's step.
void read_topics(const fs::path& file, const toml::table& root, Trace& t) {
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
}

// The [[cordon]] tables, each naming disks of the trace.
void read_cordons(const fs::path& file, const toml::table& root, Trace& t) {
  std::set<std::string> disk_names;
  for (const DiskSpec& d : t.disks) disk_names.insert(d.name);
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
}

// A [[strategy]] table's options: each value a string, number or boolean, kept as its text.
void read_variant_options(const fs::path& file, const TableReader& r, StrategyVariant& variant) {
  const toml::node* o = r.node("options");
  if (!o) return;
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

// The [[strategy]] tables: the trace's own variants, each of a plugin by its name.
void read_variants(const fs::path& file, const toml::table& root, Trace& t) {
  std::set<std::string> variant_names;
  for (const toml::table* v : tables(file, root, "strategy")) {
    TableReader r(file, *v, "strategy.", {"name", "plugin", "options", "description"});
    StrategyVariant variant;
    variant.name = r.required(r.text("name"), "name");
    variant.plugin = r.required(r.text("plugin"), "plugin");
    if (!abi_rules::valid_strategy_name(variant.plugin))
      r.fail_at("plugin", "must match [a-z0-9_]+");
    if (!variant_names.insert(variant.name).second)
      r.fail_at("name", "\"" + variant.name + "\" repeats");
    variant.description = r.text("description").value_or("");
    read_variant_options(file, r, variant);
    variant.baseline = is_baseline_plugin(variant.plugin);
    t.variants.push_back(variant);
  }
}

// The [balancer] table, when there is one.
void read_balancer(const fs::path& file, const toml::table& root, Trace& t) {
  const toml::node* b = root.get("balancer");
  if (!b) return;
  if (!b->is_table()) fail(file, b->source(), "balancer", "must be a table ([balancer])");
  TableReader r(
      file, *b->as_table(), "balancer.",
      {"enable", "threshold_percent", "bytes_per_step", "max_concurrent_moves", "interval_steps"});
  if (const toml::node* e = r.node("enable")) {
    if (!e->is_boolean()) r.fail_at("enable", "must be true or false");
    t.balancer.enable = e->as_boolean()->get();
  }
  t.balancer.threshold_percent = r.number("threshold_percent", 1, 100).value_or(10);
  t.balancer.bytes_per_step = r.bytes("bytes_per_step").value_or(t.balancer.bytes_per_step);
  if (t.balancer.bytes_per_step == 0) r.fail_at("bytes_per_step", "must be more than 0");
  t.balancer.max_concurrent_moves =
      static_cast<uint32_t>(r.integer("max_concurrent_moves", 1, 1024).value_or(2));
  t.balancer.interval_steps =
      static_cast<uint32_t>(r.integer("interval_steps", 1, 1000000).value_or(1));
}

}  // namespace

Trace load_trace(const fs::path& file) {
  const toml::table root = parse_trace_file(file);
  Trace t;
  t.file = file;
  TableReader top(file, root, "",
                  {"simulation", "disk", "topic", "cordon", "strategy", "balancer"});
  read_simulation(file, root, t);
  read_disks(file, root, t);
  read_topics(file, root, t);
  read_cordons(file, root, t);
  read_variants(file, root, t);
  read_balancer(file, root, t);
  for (const std::string& name : t.strategies) find_variant(t, name);
  return t;
}

}  // namespace lds::sim
