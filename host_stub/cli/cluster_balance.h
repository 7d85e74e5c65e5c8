// cluster_balance.h: `lds-host balance --bootstrap-server` (--plan, --execute, --daemon) and
// `lds-host drain --bootstrap-server --broker N --dir D`: the cluster balancer's command line.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace lds::cli {

struct ClusterArgs {
  std::string bootstrap_server;
  std::string command_config;
  std::string strategy = "size";
  std::vector<std::string> strategy_options;  // KEY=VALUE
  std::vector<std::string> plugin_dirs;
  double threshold_percent = 10;
  int32_t max_concurrent_moves = 2;
  std::string throttle;  // a byte count per second, e.g. 10MiB; empty: left alone
  int64_t interval_seconds = 60;
  int64_t cooldown_seconds = 3600;
  int64_t poll_ms = 1000;
  int64_t timeout_seconds = 0;  // 0: no limit
  int32_t broker = -1;          // drain only
};

// The options the cluster commands share (balance and drain both take them); drain has its own
// --timeout.
void add_cluster_options(CLI::App* cmd, ClusterArgs& args, bool timeout_option = true);

enum class ClusterAction { kPlan, kExecute, kDaemon, kDrain };

// Runs `action` against the cluster; returns the exit code. `json` prints the plan as JSON.
int run_cluster(const ClusterArgs& args, ClusterAction action, const std::string& drain_dir,
                bool json);

}  // namespace lds::cli
