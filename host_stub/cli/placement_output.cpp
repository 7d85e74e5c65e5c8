// placement_output.cpp: `lds-host create --dry-run`'s table: each partition's ranking with the
// figures the strategy read, and every log dir left out with its reason (DescribePlacement).
#include <cstdio>
#include <string>

#include "cli/client.h"
#include "cli/output.h"

namespace lds::cli {

using nlohmann::json;

namespace {

std::string bytes_or_dash(const json& v) {
  return v.is_number_unsigned() ? human_bytes(v.get<uint64_t>()) : std::string("-");
}

std::string count_or_dash(const json& v) {
  return v.is_number() ? std::to_string(v.get<uint64_t>()) : std::string("-");
}

void print_one(const std::string& topic, const json& p) {
  const std::string name = topic + "-" + std::to_string(p["partition"].get<int>());
  if (p.value("exists", false)) {
    std::printf("%s already exists in %s; create would leave it there.\n", name.c_str(),
                p["logDir"].get<std::string>().c_str());
    return;
  }
  const bool refused = p.value("error", kNone) != kNone;
  std::printf("%s (expected %s) by %s, generation %llu: %s\n", name.c_str(),
              human_bytes(p.value("expectedBytes", 0ull)).c_str(),
              p.value("strategy", "").empty() ? "-" : p["strategy"].get<std::string>().c_str(),
              static_cast<unsigned long long>(p.value("generation", 0ull)),
              refused ? ("create would fail: " + p["error"].get<std::string>() + ": " +
                         p["message"].get<std::string>())
                            .c_str()
                      : ("would go to " + p["logDir"].get<std::string>()).c_str());
  print_placement_table(p["dirs"]);
}

}  // namespace

void print_placement_table(const json& dirs) {
  std::printf("  %-4s %-40s %7s %11s %11s %11s %6s %6s  %s\n", "RANK", "LOG DIR", "FILL", "TOTAL",
              "FREE", "RESERVED", "PARTS", "TOPIC", "LEFT OUT BECAUSE");
  for (const auto& d : dirs) {
    char fill[16] = "-";
    if (d["fillPercent"].is_number()) {
      std::snprintf(fill, sizeof fill, "%.1f%%", d["fillPercent"].get<double>());
    }
    std::printf(
        "  %-4s %-40s %7s %11s %11s %11s %6s %6s  %s\n",
        d["rank"].is_number() ? std::to_string(d["rank"].get<int>()).c_str() : "-",
        d["logDir"].get<std::string>().c_str(), fill, bytes_or_dash(d["totalBytes"]).c_str(),
        bytes_or_dash(d["usableBytes"]).c_str(), bytes_or_dash(d["reservedBytes"]).c_str(),
        count_or_dash(d["partitionCount"]).c_str(), count_or_dash(d["topicPartitionCount"]).c_str(),
        d["leftOut"].is_string() ? d["leftOut"].get<std::string>().c_str() : "");
  }
}

int print_placement(const json& r) {
  const std::string topic = r.value("topic", "?");
  const json& partitions = r["partitions"];
  for (size_t i = 0; i < partitions.size(); ++i) {
    if (i > 0) std::printf("\n");
    print_one(topic, partitions[i]);
  }
  if (partitions.size() > 1) {
    std::printf(
        "\n(Dry run: nothing was created. Each partition is ranked on the dirs as they are now; a "
        "real create reserves each partition's expected bytes before ranking the next.)\n");
  } else {
    std::printf("(Dry run: nothing was created.)\n");
  }
  return any_partition_failed(r) ? 1 : 0;
}

}  // namespace lds::cli
