// cli_simulate.h: the `lds-host simulate` subcommand: options, and running the simulator from them.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace lds::cli {

struct SimulateArgs {
  std::string trace;
  std::string strategies;  // comma-separated variant names; empty = the trace's default set
  std::string out;         // empty = sim-out/<trace name>
  std::vector<std::string> plugin_dirs;
  std::string log_level = "off";
};

// Registers the subcommand on `app`, filling `args` when it is parsed.
CLI::App* add_simulate_command(CLI::App& app, SimulateArgs& args);

// Runs every chosen strategy over the trace, writes the outputs and prints the summary table.
// Returns 0, or 2 (with one sentence on stderr) when the trace or a plugin is wrong.
int run_simulate(const SimulateArgs& args);

}  // namespace lds::cli
