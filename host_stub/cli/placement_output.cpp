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

void print_one(const std::string& topic, const json& p, bool projected) {
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
  print_placement_table(p["dirs"], projected);
}

}  // namespace

void print_placement_table(const json& dirs, bool projected) {
  std::printf("  %-4s %-40s %7s %s%11s %11s %11s %6s %6s  %s\n", "RANK", "LOG DIR", "FILL",
              projected ? "PROJECTED " : "", "TOTAL", "FREE", "RESERVED", "PARTS", "TOPIC",
              "LEFT OUT BECAUSE");
  for (const auto& d : dirs) {
    char projected_text[32] = "";
    if (projected) {
      std::snprintf(projected_text, sizeof projected_text, "%9s ",
                    percent_column(d.value("projectedFillPercent", json())).c_str());
    }
    std::printf("  %-4s %-40s %7s %s%11s %11s %11s %6s %6s  %s\n",
                d["rank"].is_number() ? std::to_string(d["rank"].get<int>()).c_str() : "-",
                d["logDir"].get<std::string>().c_str(), percent_column(d["fillPercent"]).c_str(),
                projected_text, bytes_or_dash(d["totalBytes"]).c_str(),
                bytes_or_dash(d["usableBytes"]).c_str(), bytes_or_dash(d["reservedBytes"]).c_str(),
                count_or_dash(d["partitionCount"]).c_str(),
                count_or_dash(d["topicPartitionCount"]).c_str(),
                d["leftOut"].is_string() ? d["leftOut"].get<std::string>().c_str() : "");
  }
}

int print_placement(const json& r, bool projected) {
  const std::string topic = r.value("topic", "?");
  const json& partitions = r["partitions"];
  for (size_t i = 0; i < partitions.size(); ++i) {
    if (i > 0) std::printf("\n");
    print_one(topic, partitions[i], projected);
  }
  if (projected) {
    std::printf(
        "(PROJECTED: (used + reserved + expected) / total, the fill once the partition is "
        "placed: what the strategy ranks on, lowest first. FILL counts only what is written.)\n");
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
