// describe.cpp: `lds-host describe`: the broker's log directories (DescribeLogDirs), as a table or,
// with --json, exactly as kafka-log-dirs.sh --describe prints them.
#include <cstdio>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"
#include "util/errors.h"

namespace lds::cli {

namespace {

using nlohmann::json;
using nlohmann::ordered_json;

// One log dir in kafka-log-dirs.sh's keys and order (partitions, error, logDir), the error as the
// exception class Kafka's clients raise; then this broker's extra keys.
ordered_json kafka_log_dir(const json& d) {
  ordered_json partitions = ordered_json::array();
  for (const auto& p : d["partitions"]) {
    partitions.push_back({{"partition", p["partition"]},
                          {"size", p["size"]},
                          {"offsetLag", p["offsetLag"]},
                          {"isFuture", p["isFuture"]}});
  }
  const bool offline = !d["error"].is_null();
  const char* exception =
      offline ? exception_class_name(error_code_named(d["error"].get<std::string>())) : nullptr;
  ordered_json out;
  out["partitions"] = std::move(partitions);
  out["error"] = exception != nullptr ? ordered_json(exception) : ordered_json(nullptr);
  out["logDir"] = d["logDir"];
  out["errorName"] = d["error"];
  out["errorMessage"] = offline ? ordered_json(d.value("errorMessage", "")) : ordered_json(nullptr);
  out["directoryId"] = d.value("directoryId", "");
  // Kafka's DescribeLogDirs (v4+) gives -1 for the space of a dir it cannot read.
  out["totalBytes"] = offline ? ordered_json(-1) : ordered_json(d["totalBytes"]);
  out["usableBytes"] = offline ? ordered_json(-1) : ordered_json(d["usableBytes"]);
  out["reservedBytes"] = d.value("reservedBytes", 0ull);
  out["isCordoned"] = d.value("isCordoned", false);
  out["unreadablePartitions"] = d.value("unreadablePartitions", json::array());
  out["failedMoves"] = d.value("failedMoves", json::array());
  out["projectedFillPercent"] = d.value("projectedFillPercent", json());
  return out;
}

// kafka-log-dirs.sh's output: its two progress lines, on stderr so that stdout is the JSON alone
// (`| jq` reads it whole; Kafka prints them on stdout), then the document as one compact JSON
// line, which a script written for Kafka's (tail -1, grep '^{') still finds. Keys Kafka does not
// print follow its own, and the API's other top-level keys (strategy, ...) follow "version".
int print_kafka_log_dirs(const json& r) {
  ordered_json brokers = ordered_json::array();
  std::string ids;
  for (const auto& broker : r["brokers"]) {
    ordered_json dirs = ordered_json::array();
    for (const auto& d : broker["logDirs"]) dirs.push_back(kafka_log_dir(d));
    brokers.push_back({{"broker", broker["broker"]}, {"logDirs", std::move(dirs)}});
    if (!ids.empty()) ids += ",";
    ids += std::to_string(broker["broker"].get<int64_t>());
  }
  ordered_json doc;
  doc["brokers"] = std::move(brokers);
  doc["version"] = 1;
  for (const auto& [key, value] : r.items()) {
    if (key != "brokers" && key != "version" && key != "error") doc[key] = value;
  }
  std::fprintf(stderr, "Querying brokers for log directories information\n");
  std::fprintf(stderr, "Received log directory information from brokers %s\n", ids.c_str());
  std::printf("%s\n", doc.dump().c_str());
  return 0;
}

}  // namespace

Command add_describe_command(CLI::App& app) {
  auto target = std::make_shared<Target>();
  auto addressing = std::make_shared<KafkaAddressing>();
  auto* cmd = app.add_subcommand("describe", "Show log directories (DescribeLogDirs)");
  add_target_options(cmd, *target);
  add_kafka_addressing_options(cmd, *addressing);
  cmd->get_option("--json")->description(
      "Print kafka-log-dirs.sh --describe's JSON on stdout, alone on one line (its two progress "
      "lines go to stderr)");
  return {cmd, [target, addressing] {
            if (auto refused = refuse_kafka_addressing("describe", *addressing, *target)) {
              return *refused;
            }
            const json request = {{"api", "DescribeLogDirs"}};
            if (target->json) {
              Target kafka_style = *target;
              kafka_style.json = false;  // printed by print_kafka_log_dirs, not as the API's JSON
              return call(kafka_style, request, print_kafka_log_dirs);
            }
            const int rc = call(*target, request, print_log_dirs);
            if (rc == kExitUsage) return rc;
            // One line for the balancer; a broker without one leaves it out.
            const int balancer = call(*target, {{"api", "DescribeBalance"}}, print_balancer_line);
            return rc != kExitOk ? rc : balancer;
          }};
}

}  // namespace lds::cli
