// placement_output.cpp: `lds-host create --dry-run`'s table: each partition's ranking with the
// figures the strategy read, and every log dir left out with its reason (DescribePlacement).
#include <algorithm>
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

std::string score_text(const json& v) {
  if (!v.is_number()) return "-";
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", v.get<double>());
  return text;
}

std::string upper(std::string text) {
  for (char& c : text) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  }
  return text;
}

std::string score_name_of(const json& p) {
  return p.contains("scoreName") && p["scoreName"].is_string() ? p["scoreName"].get<std::string>()
                                                               : std::string();
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
  print_ranking(p);
}

}  // namespace

void print_ranking(const json& placement) {
  const json& dirs = placement["dirs"];
  const std::string score_name = score_name_of(placement);
  // The score column is as wide as its heading, and at least 9.
  const int width = std::max(9, static_cast<int>(score_name.size()));
  const std::string heading = score_name.empty() ? "" : upper(score_name);
  std::printf("  %-4s %-40s %7s %*s%s%11s %11s %11s %6s %6s  %s\n", "RANK", "LOG DIR", "FILL",
              score_name.empty() ? 0 : width, heading.c_str(), score_name.empty() ? "" : " ",
              "TOTAL", "FREE", "RESERVED", "PARTS", "TOPIC", "LEFT OUT BECAUSE");
  for (const auto& d : dirs) {
    const std::string score = score_name.empty() ? "" : score_text(d.value("score", json()));
    std::printf("  %-4s %-40s %7s %*s%s%11s %11s %11s %6s %6s  %s\n",
                d["rank"].is_number() ? std::to_string(d["rank"].get<int>()).c_str() : "-",
                d["logDir"].get<std::string>().c_str(), percent_column(d["fillPercent"]).c_str(),
                score_name.empty() ? 0 : width, score.c_str(), score_name.empty() ? "" : " ",
                bytes_or_dash(d["totalBytes"]).c_str(), bytes_or_dash(d["usableBytes"]).c_str(),
                bytes_or_dash(d["reservedBytes"]).c_str(),
                count_or_dash(d["partitionCount"]).c_str(),
                count_or_dash(d["topicPartitionCount"]).c_str(),
                d["leftOut"].is_string() ? d["leftOut"].get<std::string>().c_str() : "");
  }
  if (!score_name.empty()) {
    std::printf(
        "(%s: what strategy %s ranked each dir on, as it reported it. FILL counts only "
        "what is written.)\n",
        upper(score_name).c_str(), placement.value("strategy", "-").c_str());
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
