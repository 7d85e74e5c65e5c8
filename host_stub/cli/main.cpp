// main.cpp: the lds-host command line: serve, the admin client subcommands, and check-plugin.
#include <signal.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "cli/output.h"
#include "cli/reassign.h"
#include "cli/simulate.h"
#include "admin/admin_api.h"
#include "admin/admin_server.h"
#include "core/broker.h"
#include "conformance/conformance.h"
#include "conformance/isolated_run.h"
#include "core/config.h"
#include "core/errors.h"
#include "core/logging.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

constexpr int kExitOk = 0;
constexpr int kExitRefused = 1;
constexpr int kExitUsage = 2;

struct Target {
  std::string config;
  std::string socket;
  bool json = false;
};

void add_target_options(CLI::App* cmd, Target& t) {
  cmd->add_option("--config", t.config, "Broker config file; its admin.socket is used");
  cmd->add_option("--socket", t.socket, "Admin socket path (instead of --config)");
  cmd->add_flag("--json", t.json, "Print the API's JSON response instead of a table");
}

fs::path socket_of(const Target& t) {
  if (!t.socket.empty()) return t.socket;
  if (t.config.empty()) throw CLI::ValidationError("--config or --socket", "one of them is required");
  lds::ConfigStore store(t.config);
  return store.current().admin_socket;
}

// Sends one request; prints the response; returns the exit code.
int call(const Target& t, const json& request, int (*print)(const json&)) {
  json response;
  try {
    lds::AdminClient client(socket_of(t));
    response = json::parse(client.call(request.dump()));
  } catch (const lds::ConfigError& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  const std::string error = response.value("error", "UNKNOWN_SERVER_ERROR");
  if (error != "NONE") {
    if (t.json) std::cout << response.dump(2) << "\n";
    std::cerr << "lds-host: " << error << ": " << response.value("message", "") << "\n";
    return kExitRefused;
  }
  if (t.json) {
    std::cout << response.dump(2) << "\n";
    return lds::cli::any_partition_failed(response) ? kExitRefused : kExitOk;
  }
  return print(response) == 0 ? kExitOk : kExitRefused;
}

int serve(const std::string& config_file) {
  // Signals are taken synchronously by this thread; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto log = lds::logger("lds.server");
  try {
    lds::Broker broker(config_file);
    broker.start();
    lds::AdminApi api(broker);
    lds::AdminServer server(broker.config().admin_socket,
                            [&api](std::string_view line) { return api.handle_line(line); });
    const lds::StrategyInfo s = broker.strategy_info();
    log->info("Broker {} serving {} log directories with strategy {} {}.",
              broker.config().broker_id, broker.config().log_dirs.size(), s.name, s.version);
    for (;;) {
      int sig = 0;
      if (sigwait(&signals, &sig) != 0) continue;
      if (sig == SIGHUP) {
        log->info("SIGHUP: re-reading {}.", broker.config().file.string());
        broker.reload_file();
        continue;
      }
      if (sig == SIGPIPE) continue;
      log->info("Signal {} received; shutting down.", sig == SIGINT ? "SIGINT" : "SIGTERM");
      break;
    }
  } catch (const lds::ConfigError& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  } catch (const lds::PluginError& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  log->info("Stopped cleanly.");
  return kExitOk;
}

// "10", "64KiB", "5MiB", "2GiB" (and K, M, G as binary multiples).
uint64_t parse_bytes(const std::string& text) {
  size_t pos = 0;
  unsigned long long value = 0;
  try {
    value = std::stoull(text, &pos);
  } catch (const std::exception&) {
    throw CLI::ValidationError("bytes", "'" + text + "' is not a byte count such as 1048576 or 1MiB");
  }
  const std::string unit = text.substr(pos);
  uint64_t scale = 1;
  if (unit == "K" || unit == "KiB") scale = 1ull << 10;
  else if (unit == "M" || unit == "MiB") scale = 1ull << 20;
  else if (unit == "G" || unit == "GiB") scale = 1ull << 30;
  else if (!unit.empty() && unit != "B")
    throw CLI::ValidationError("bytes", "'" + text + "' has an unknown unit; use B, KiB, MiB or GiB");
  return static_cast<uint64_t>(value) * scale;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"lds-host: a Kafka-style broker LogManager with pluggable log-directory selection"};
  app.require_subcommand(1);

  std::string serve_config;
  auto* serve_cmd = app.add_subcommand("serve", "Run the broker and its admin API until SIGTERM");
  serve_cmd->add_option("--config", serve_config, "Broker config file (TOML)")->required();

  Target describe_target;
  auto* describe_cmd = app.add_subcommand("describe", "Show log directories (DescribeLogDirs)");
  add_target_options(describe_cmd, describe_target);

  Target create_target;
  std::string create_topic, create_expected;
  std::vector<int32_t> create_partitions;
  int32_t create_count = 0;
  auto* create_cmd = app.add_subcommand("create", "Create partitions (CreatePartitions)");
  add_target_options(create_cmd, create_target);
  create_cmd->add_option("--topic", create_topic, "Topic name")->required();
  auto* partitions_opt = create_cmd->add_option("--partitions", create_partitions,
                                                "Partition numbers, e.g. 0,1,2")
                             ->delimiter(',');
  auto* count_opt = create_cmd->add_option("--partition-count", create_count,
                                           "Create partitions 0..N-1")
                        ->check(CLI::Range(1, 100000));
  partitions_opt->excludes(count_opt);
  create_cmd->add_option("--expected-bytes", create_expected,
                         "Expected size of each partition, e.g. 64MiB (reserved until written)");

  Target produce_target;
  std::string produce_topic, produce_bytes;
  int32_t produce_partition = 0;
  auto* produce_cmd = app.add_subcommand("produce", "Append bytes to a partition (Produce)");
  add_target_options(produce_cmd, produce_target);
  produce_cmd->add_option("--topic", produce_topic, "Topic name")->required();
  produce_cmd->add_option("--partition", produce_partition, "Partition number")->required();
  produce_cmd->add_option("--bytes", produce_bytes, "How many bytes, e.g. 1048576 or 8MiB")->required();

  Target delete_target;
  std::string delete_topic;
  auto* delete_cmd = app.add_subcommand("delete", "Delete a topic's partitions (DeleteTopic)");
  add_target_options(delete_cmd, delete_target);
  delete_cmd->add_option("--topic", delete_topic, "Topic name")->required();

  Target configs_target;
  bool configs_describe = false, configs_alter = false;
  std::vector<std::string> add_configs, delete_configs;
  auto* configs_cmd = app.add_subcommand(
      "configs", "Describe or alter configs (DescribeConfigs, IncrementalAlterConfigs)");
  add_target_options(configs_cmd, configs_target);
  auto* d_flag = configs_cmd->add_flag("--describe", configs_describe, "List every config");
  auto* a_flag = configs_cmd->add_flag("--alter", configs_alter, "Change dynamic configs");
  d_flag->excludes(a_flag);
  configs_cmd->add_option("--add-config", add_configs, "name=value to set (repeatable)");
  configs_cmd->add_option("--delete-config", delete_configs, "name to reset (repeatable)");

  Target reassign_target;
  lds::cli::ReassignOptions reassign;
  std::string reassign_file;
  auto* reassign_cmd = app.add_subcommand(
      "reassign", "Apply or verify the log_dirs of a Kafka reassignment file on this broker");
  add_target_options(reassign_cmd, reassign_target);
  reassign_cmd->add_option("--reassignment-json-file", reassign_file,
                           "Kafka's reassignment JSON ({\"version\":1,\"partitions\":[...]})")
      ->required();
  reassign_cmd->add_option("--timeout", reassign.timeout_ms,
                           "How long to retry moves of replicas not here yet, in ms (default 10000)");
  reassign_cmd->add_flag("--verify", reassign.verify, "Report each move's state instead of starting it");
  reassign_cmd->add_flag("--wait", reassign.wait, "Show progress until every started move finishes");

  std::string plugin_file;
  double check_timeout_s = std::chrono::duration<double>(lds::kDefaultCheckTimeout).count();
  auto* check_cmd = app.add_subcommand(
      "check-plugin",
      "Run the conformance checks on a strategy .so in a child process; a plugin that ends that "
      "process, or spends longer than --timeout seconds in one check, fails");
  check_cmd->add_option("file", plugin_file, "Path to liblds_<name>.so")->required();
  check_cmd->add_option("--timeout", check_timeout_s, "Seconds each check may take before it fails")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));

  lds::cli::SimulateArgs simulate_args;
  auto* simulate_cmd = lds::cli::add_simulate_command(app, simulate_args);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  try {
    if (*serve_cmd) return serve(serve_config);
    if (*describe_cmd) {
      return call(describe_target, {{"api", "DescribeLogDirs"}}, lds::cli::print_log_dirs);
    }
    if (*create_cmd) {
      json partitions = json::array();
      if (create_count > 0) {
        for (int32_t p = 0; p < create_count; ++p) partitions.push_back(p);
      } else {
        for (int32_t p : create_partitions) partitions.push_back(p);
      }
      if (partitions.empty()) {
        std::cerr << "lds-host: create needs --partitions or --partition-count.\n";
        return kExitUsage;
      }
      json request{{"api", "CreatePartitions"}, {"topic", create_topic}, {"partitions", partitions}};
      if (!create_expected.empty()) request["expectedBytes"] = parse_bytes(create_expected);
      int rc = call(create_target, request, lds::cli::print_created);
      return rc;
    }
    if (*produce_cmd) {
      return call(produce_target,
                  {{"api", "Produce"},
                   {"topic", produce_topic},
                   {"partition", produce_partition},
                   {"bytes", parse_bytes(produce_bytes)}},
                  lds::cli::print_produced);
    }
    if (*delete_cmd) {
      return call(delete_target, {{"api", "DeleteTopic"}, {"topic", delete_topic}},
                  lds::cli::print_deleted);
    }
    if (*configs_cmd) {
      if (configs_alter) {
        json configs = json::array();
        for (const auto& kv : add_configs) {
          auto eq = kv.find('=');
          if (eq == std::string::npos) {
            std::cerr << "lds-host: --add-config '" << kv << "' must be name=value.\n";
            return kExitUsage;
          }
          configs.push_back({{"name", kv.substr(0, eq)}, {"op", "SET"}, {"value", kv.substr(eq + 1)}});
        }
        for (const auto& k : delete_configs) configs.push_back({{"name", k}, {"op", "DELETE"}});
        if (configs.empty()) {
          std::cerr << "lds-host: configs --alter needs --add-config or --delete-config.\n";
          return kExitUsage;
        }
        return call(configs_target, {{"api", "IncrementalAlterConfigs"}, {"configs", configs}},
                    lds::cli::print_altered);
      }
      return call(configs_target, {{"api", "DescribeConfigs"}}, lds::cli::print_configs);
    }
    if (*reassign_cmd) {
      reassign.socket = socket_of(reassign_target);
      reassign.file = reassign_file;
      return lds::cli::run_reassign(reassign);
    }
    if (*simulate_cmd) return lds::cli::run_simulate(simulate_args);
    if (*check_cmd) {
      const auto timeout = std::chrono::milliseconds(std::llround(check_timeout_s * 1000));
      lds::ConformanceReport report = lds::run_conformance_isolated(plugin_file, timeout);
      std::cout << lds::format_report(report);
      return report.all_passed() ? kExitOk : kExitRefused;
    }
  } catch (const CLI::ValidationError& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitUsage;
}
