// simulate.cpp: `lds-host simulate`: replays a trace for each strategy and prints the summary.
#include "cli/simulate.h"

#include <iostream>
#include <memory>
#include <sstream>

#include "cli/command.h"
#include "cli/progress_bar.h"
#include "sim/simulator.h"
#include "sim/text.h"
#include "util/errors.h"
#include "util/logging.h"

namespace lds::cli {

Command add_simulate_command(CLI::App& app) {
  auto args = std::make_shared<SimulateArgs>();
  auto* cmd = app.add_subcommand(
      "simulate", "Replay a workload trace on virtual disks with each strategy and compare them");
  cmd->add_option("--trace", args->trace, "Trace file (TOML), e.g. conf/sim/burst_500.toml")
      ->required();
  cmd->add_option("--strategies", args->strategies,
                  "Comma-separated strategy variants (default: the trace's list, else partition,"
                  "partition_spread,size_fill,size_free,hdfs,elasticsearch)");
  cmd->add_option("--out", args->out, "Output folder (default: sim-out/<trace name>)");
  cmd->add_option("--plugin-dir", args->plugin_dirs,
                  "Folder of liblds_<name>.so files to search first (repeatable)");
  cmd->add_option("--log-level", args->log_level, "Host log level while simulating (default off)");
  cmd->add_flag("--force", args->force, "Run a trace past the size limits (below)");
  cmd->add_flag("--balance", args->balance,
                "Run every strategy with the intra-broker balancer (the trace's [balancer] "
                "settings); the variants are named <strategy>+balance");
  cmd->footer("Size limits: a trace that would write more than " + sim::grouped(sim::kMaxCsvCells) +
              " per-step CSV cells (disks x steps x strategies, 6 to 8 bytes each) or replay "
              "more than " +
              sim::grouped(sim::kMaxPartitionSteps) +
              " partition-steps (partitions x steps, the work of each strategy) is refused before "
              "anything runs, unless --force is given.\nProgress: on a terminal, a run that lasts "
              "more than a second shows each strategy's share of steps done on stderr.");
  return {cmd, [args] { return run_simulate(*args); }};
}

int run_simulate(const SimulateArgs& args) {
  try {
    if (!set_log_level(args.log_level)) {
      std::cerr << "lds-host: --log-level '" << args.log_level
                << "' is not one of trace, debug, info, warn, error, off.\n";
      return 2;
    }
    const sim::Trace trace = sim::load_trace(args.trace);
    std::vector<std::string> names = trace.strategies;
    if (!args.strategies.empty()) {
      names.clear();
      std::istringstream list(args.strategies);
      std::string name;
      while (std::getline(list, name, ',')) {
        if (!name.empty()) names.push_back(name);
      }
    }
    if (names.empty()) names = sim::default_strategy_names();
    if (args.balance || trace.balancer.enable) {
      for (std::string& name : names) {
        if (!name.ends_with(sim::kBalanceSuffix)) name += sim::kBalanceSuffix;
      }
    }
    std::vector<sim::StrategyVariant> variants;
    variants.reserve(names.size());
    for (const std::string& name : names) variants.push_back(sim::find_variant(trace, name));
    if (!args.force) {
      const std::string refusal =
          sim::size_refusal(trace, sim::simulation_size(trace, variants.size()));
      if (!refusal.empty()) {
        std::cerr << "lds-host: " << refusal << "\n";
        return 2;
      }
    }

    std::vector<std::filesystem::path> extra(args.plugin_dirs.begin(), args.plugin_dirs.end());
    const auto search = sim::plugin_search_path(extra);
    const std::filesystem::path out = args.out.empty()
                                          ? std::filesystem::path("sim-out") / trace.name
                                          : std::filesystem::path(args.out);
    ProgressBar bar(ProgressBar::stderr_is_terminal());
    size_t shown = variants.size();
    const sim::Simulation simulation =
        sim::simulate(out, trace, variants, search, [&](size_t variant, uint32_t done) {
          if (variant != shown) {
            shown = variant;
            bar.start(variants[variant].name + " (" + std::to_string(variant + 1) + "/" +
                          std::to_string(variants.size()) + ")",
                      trace.steps);
          }
          bar.update(done);
        });
    bar.finish();
    std::cout << sim::summary_table(trace, simulation.results) << "\n"
              << "Per-strategy fill over time: " << out.string() << "/<strategy>.csv"
              << (simulation.charts ? " and .svg" : "")
              << "; every strategy's spread over time: " << out.string() << "/spread.csv"
              << (simulation.charts ? " and .svg" : "") << "; summary: " << out.string()
              << "/summary.md\n";
    if (!simulation.charts) std::cout << "No charts: " << simulation.why_no_charts << ".\n";
    return 0;
  } catch (const ConfigError& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
  } catch (const PluginError& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
  }
  return 2;
}

}  // namespace lds::cli
