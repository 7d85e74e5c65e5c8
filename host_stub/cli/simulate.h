// simulate.h: `lds-host simulate`: its options, and running the simulator from them.
#pragma once

#include <string>
#include <vector>

namespace lds::cli {

struct SimulateArgs {
  std::string trace;
  std::string strategies;  // comma-separated variant names; empty = the trace's default set
  std::string out;         // empty = sim-out/<trace name>
  std::vector<std::string> plugin_dirs;
  std::string log_level = "off";
  bool force = false;    // run a trace past the size limits of sim/size_limits.h
  bool balance = false;  // every variant runs with the balancer ("<name>+balance")
};

// Runs every chosen strategy over the trace, writes the outputs and prints the summary table, with
// a progress bar on stderr when it is a terminal and the run takes more than a second. Returns 0,
// or 2 (with one sentence on stderr) when the trace or a plugin is wrong, or, writing nothing, when
// the trace passes a size limit without `force`.
int run_simulate(const SimulateArgs& args);

}  // namespace lds::cli
