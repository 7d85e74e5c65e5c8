// cli_output.cpp: prints admin API responses as tables a person can read.
#include "cli/output.h"

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <vector>

#include "cli/client.h"
#include "util/byte_size.h"

namespace lds::cli {

using nlohmann::json;

std::string human_bytes(uint64_t bytes) { return format_byte_size(bytes); }

std::string percent_column(const json& percent) {
  if (!percent.is_number()) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.1f%%", percent.get<double>());
  return text;
}

namespace {

// Percent of a dir's space in use, or a negative number when its space is not known.
double fill_percent(const json& d) {
  if (!d["error"].is_null()) return -1;
  const double total = d.value("totalBytes", 0.0);
  if (total <= 0) return -1;
  return 100.0 * (total - d.value("usableBytes", 0.0)) / total;
}

std::string option_of(const json& strategy, const char* key, const char* default_value) {
  const json options = strategy.value("options", json::object());
  auto it = options.find(key);
  return it != options.end() && it->is_string() ? it->get<std::string>() : default_value;
}

}  // namespace

bool ranks_by_projected_fill(const json& strategy) {
  if (!strategy.is_object()) return false;
  const std::string name = strategy.value("name", "");
  if (name == "size") return option_of(strategy, "balance", "fill") == "fill";
  if (name == "cordon") return option_of(strategy, "order", "partition") == "size";
  return false;
}

namespace {

// "Strategy: size 1.0 (generation 3, 1 swaps, 0 fallbacks; balance=fill)", the table's title.
void print_strategy_line(const json& s) {
  std::string options;
  if (auto it = s.find("options"); it != s.end() && it->is_object()) {
    for (const auto& [key, value] : it->items()) {
      options += options.empty() ? "; " : ", ";
      options += key + "=" + value.get<std::string>();
    }
  }
  std::printf("Strategy: %s %s (generation %llu, %llu swaps, %llu fallbacks%s)\n",
              s.value("name", "?").c_str(), s.value("version", "?").c_str(),
              static_cast<unsigned long long>(s.value("generation", 0ull)),
              static_cast<unsigned long long>(s.value("swaps", 0ull)),
              static_cast<unsigned long long>(s.value("fallbacks", 0ull)), options.c_str());
}

// A broker's dir with the highest fill, and that fill (-1 and no dir when no fill is known).
struct FullestDir {
  double fill = -1;
  const json* dir = nullptr;
};

FullestDir fullest_dir_of(const json& broker) {
  // The first dir with the highest fill; dirs sharing one filesystem all have the same.
  FullestDir fullest;
  for (const auto& d : broker["logDirs"]) {
    if (fill_percent(d) > fullest.fill) {
      fullest.fill = fill_percent(d);
      fullest.dir = &d;
    }
  }
  return fullest;
}

// One log dir's row of the table; `fullest` marks its FILL with a star.
void print_log_dir_row(const json& d, bool projected, bool fullest) {
  uint64_t data = 0;
  for (const auto& p : d["partitions"]) data += p["size"].get<uint64_t>();
  const bool online = d["error"].is_null();
  // An offline dir lists no partition; it still holds its replicas, unreadable: they are its
  // PARTS and DATA (their sizes when it went offline).
  const size_t unreadable = d.value("unreadablePartitions", json::array()).size();
  const size_t parts = online ? d["partitions"].size() : unreadable;
  if (!online) data = d.value("unreadableBytes", 0ull);
  const double fill = fill_percent(d);
  char fill_text[16] = "-";
  if (fill >= 0) {
    // The fullest dir is marked, so it stands out at a glance.
    std::snprintf(fill_text, sizeof fill_text, "%.1f%%%s", fill, fullest ? "*" : "");
  }
  char projected_text[32] = "";
  if (projected) {
    std::snprintf(projected_text, sizeof projected_text, "%9s  ",
                  percent_column(d.value("projectedFillPercent", json())).c_str());
  }
  std::printf("%-40s %-8s %-9s %11s %11s %7s %s%11s %6zu %11s\n",
              d["logDir"].get<std::string>().c_str(), online ? "online" : "OFFLINE",
              d["isCordoned"].get<bool>() ? "yes" : "no",
              online ? human_bytes(d["totalBytes"].get<uint64_t>()).c_str() : "-",
              online ? human_bytes(d["usableBytes"].get<uint64_t>()).c_str() : "-", fill_text,
              projected_text, human_bytes(d.value("reservedBytes", 0ull)).c_str(), parts,
              human_bytes(data).c_str());
  if (!online) std::printf("    error: %s\n", d.value("errorMessage", "").c_str());
}

// The replicas an offline dir holds but cannot read, four to a line; nothing when it has none.
void print_unreadable_replicas(const json& d) {
  const json unreadable = d.value("unreadablePartitions", json::array());
  if (unreadable.empty()) return;
  std::printf("  %s (OFFLINE): %zu unreadable %s (%s):", d["logDir"].get<std::string>().c_str(),
              unreadable.size(), unreadable.size() == 1 ? "replica" : "replicas",
              human_bytes(d.value("unreadableBytes", 0ull)).c_str());
  int n = 0;
  for (const auto& name : unreadable) {
    std::printf("%s %s", n % 4 == 0 ? "\n   " : ",", name.get<std::string>().c_str());
    ++n;
  }
  std::printf("\n");
}

// A dir's partitions with their sizes, four to a line; nothing when it has none.
void print_partitions_by_size(const json& d) {
  if (d["partitions"].empty()) return;
  // Largest first: what to move when a dir fills up.
  std::vector<json> partitions(d["partitions"].begin(), d["partitions"].end());
  std::stable_sort(partitions.begin(), partitions.end(), [](const json& a, const json& b) {
    return a["size"].get<uint64_t>() > b["size"].get<uint64_t>();
  });
  std::printf("  %s:", d["logDir"].get<std::string>().c_str());
  int n = 0;
  for (const auto& p : partitions) {
    std::printf(
        "%s %s (%s)%s", n % 4 == 0 ? "\n   " : ",", p["partition"].get<std::string>().c_str(),
        human_bytes(p["size"].get<uint64_t>()).c_str(), p["isFuture"].get<bool>() ? " future" : "");
    ++n;
  }
  std::printf("\n");
}

// One broker of DescribeLogDirs: the table of its dirs, its footnotes, then each dir's replicas.
void print_broker_log_dirs(const json& r, const json& broker) {
  const json& s = r["strategy"];
  const FullestDir fullest = fullest_dir_of(broker);
  const bool projected = ranks_by_projected_fill(s);
  std::printf("%-40s %-8s %-9s %11s %11s %7s %s%11s %6s %11s\n", "LOG DIR", "STATE", "CORDONED",
              "TOTAL", "USABLE", "FILL", projected ? "PROJECTED  " : "", "RESERVED", "PARTS",
              "DATA");
  for (const auto& d : broker["logDirs"]) {
    print_log_dir_row(d, projected, &d == fullest.dir && broker["logDirs"].size() > 1);
  }
  if (fullest.fill >= 0 && broker["logDirs"].size() > 1) std::printf("(* the fullest log dir)\n");
  if (projected) {
    std::printf(
        "(PROJECTED: (used + reserved + %s expected of a new partition) / total, what %s ranks "
        "on, lowest first; FILL counts only what is written.)\n",
        human_bytes(r.value("newPartitionExpectedBytes", 0ull)).c_str(),
        s.value("name", "?").c_str());
  }
  for (const auto& d : broker["logDirs"]) {
    print_unreadable_replicas(d);
    print_partitions_by_size(d);
  }
}

}  // namespace

int print_log_dirs(const json& r) {
  print_strategy_line(r["strategy"]);
  for (const auto& broker : r["brokers"]) print_broker_log_dirs(r, broker);
  return 0;
}

bool any_partition_failed(const json& r) {
  for (const auto& p : r.value("partitions", json::array())) {
    if (p.value("error", kNone) != kNone) return true;
  }
  return false;
}

int print_created(const json& r) {
  std::map<std::string, int> per_dir;
  for (const auto& p : r["partitions"]) {
    if (p["error"] == kNone) {
      // "t-0 -> /d1 (strategy size)", the topic-partition as kafka-log-dirs.sh names it.
      std::printf("%s-%d -> %s%s (strategy %s)\n", r.value("topic", "?").c_str(),
                  p["partition"].get<int>(), p["logDir"].get<std::string>().c_str(),
                  p["created"].get<bool>() ? "" : " (already there)",
                  p.value("strategy", "").c_str());
    } else {
      std::fprintf(stderr, "lds-host: %s-%d: %s: %s\n", r.value("topic", "?").c_str(),
                   p["partition"].get<int>(), p["error"].get<std::string>().c_str(),
                   p["message"].get<std::string>().c_str());
    }
  }
  return any_partition_failed(r) ? 1 : 0;
}

int print_configs(const json& r) {
  // Columns as wide as their longest entry, so long keys (strategy options) keep them aligned.
  int name_width = 4, source_width = 6;
  for (const auto& c : r["configs"]) {
    name_width = std::max(name_width, static_cast<int>(c["name"].get<std::string>().size()));
    source_width = std::max(source_width, static_cast<int>(c["source"].get<std::string>().size()));
  }
  std::printf("%-*s  %-*s  %-7s  %s\n", name_width, "NAME", source_width, "SOURCE", "DYNAMIC",
              "VALUE");
  for (const auto& c : r["configs"]) {
    std::printf("%-*s  %-*s  %-7s  %s\n", name_width, c["name"].get<std::string>().c_str(),
                source_width, c["source"].get<std::string>().c_str(),
                c["dynamic"].get<bool>() ? "yes" : "no", c["value"].get<std::string>().c_str());
  }
  return 0;
}

namespace {

// The broker id kafka-configs.sh names the entity by: broker.id as DescribeConfigs lists it.
std::string broker_id_of(const json& r) {
  for (const auto& c : r["configs"]) {
    if (c["name"] == "broker.id") return c["value"].get<std::string>();
  }
  return "?";
}

const json* find_config(const json& r, const std::string& name) {
  for (const auto& c : r["configs"]) {
    if (c["name"] == name) return &c;
  }
  return nullptr;
}

// ConfigCommand.describeResourceConfig: a header, then the entries sorted by name, each
// "  name=value sensitive=false synonyms={SOURCE:name=value, ...}".
int print_kafka_configs(const json& r, bool all) {
  std::vector<const json*> rows;
  for (const auto& c : r["configs"]) {
    if (all || c["source"] == "DYNAMIC") rows.push_back(&c);
  }
  std::sort(rows.begin(), rows.end(), [](const json* a, const json* b) {
    return (*a)["name"].get<std::string>() < (*b)["name"].get<std::string>();
  });
  std::printf("%s configs for broker %s are:\n", all ? "All" : "Dynamic", broker_id_of(r).c_str());
  for (const json* c : rows) {
    const std::string name = (*c)["name"].get<std::string>();
    std::string synonyms;
    for (const auto& s : c->value("synonyms", json::array())) {
      synonyms += (synonyms.empty() ? "" : ", ") + s["source"].get<std::string>() + ":" + name +
                  "=" + s["value"].get<std::string>();
    }
    std::printf("  %s=%s sensitive=%s synonyms={%s}\n", name.c_str(),
                (*c)["value"].get<std::string>().c_str(),
                c->value("sensitive", false) ? "true" : "false", synonyms.c_str());
  }
  return 0;
}

}  // namespace

int print_dynamic_configs(const json& r) { return print_kafka_configs(r, false); }

int print_all_configs(const json& r) { return print_kafka_configs(r, true); }

int print_altered(const json& before, const json& after, const std::vector<std::string>& names) {
  // ConfigCommand.alterConfig's line, then what changed, so a replaced list is visible.
  std::printf("Completed updating config for broker %s.\n", broker_id_of(after).c_str());
  auto shown = [](const json* c) {
    if (c == nullptr) return std::string("(unknown)");
    const std::string v = (*c)["value"].get<std::string>();
    return v.empty() ? std::string("\"\"") : v;
  };
  for (const auto& name : names) {
    const std::string old_value = shown(find_config(before, name));
    const std::string new_value = shown(find_config(after, name));
    std::printf("%s: %s → %s%s\n", name.c_str(), old_value.c_str(), new_value.c_str(),
                old_value == new_value ? " (unchanged)" : "");
  }
  return 0;
}

int print_balancer_line(const json& r) {
  std::printf(
      "Balancer: %s, spread %.1f points (threshold %.1f), %zu moves in flight, %s moved "
      "since start\n",
      r.value("state", "?").c_str(), r.value("spreadPercent", 0.0),
      r.value("thresholdPercent", 0.0), r["inFlight"].size(),
      human_bytes(r.value("bytesMoved", 0ull)).c_str());
  return 0;
}

}  // namespace lds::cli
