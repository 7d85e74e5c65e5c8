// simulator.h: replays a workload trace against virtual disks through the host's own placement
// path, once per strategy variant, and writes what each did: the entry point of `lds-host
// simulate`.
//
// load_trace() reads the trace (sim/trace.h); find_variant() names what to compare
// (sim/variants.h); simulation_size() and size_refusal() tell whether it is too big to start
// without being asked (sim/size_limits.h); simulate() replays the trace with each variant
// (sim/replay.h), loading its plugin from plugin_search_path() (sim/plugin_search.h), and writes
// the report (sim/report.h) and the charts (sim/charts.h).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/plugin_search.h"
#include "sim/replay.h"
#include "sim/report.h"
#include "sim/size_limits.h"
#include "sim/spread.h"
#include "sim/trace.h"
#include "sim/variants.h"

namespace lds::sim {

struct Simulation {
  std::vector<RunResult> results;  // one per variant, in order
  bool charts = false;             // whether the .svg charts were drawn
  std::string why_no_charts;
};

// Called after each step of each replay: the variant's index, and how many of its steps are done.
using SimulationProgress = std::function<void(size_t variant, uint32_t steps_done)>;

// Replays the trace once per variant, writing <out>/<variant>.csv row by row as the replay goes,
// then <out>/summary.md, <out>/summary.csv and <out>/spread.csv (sim/spread.h), and, when gnuplot
// is on the PATH, <out>/<variant>.svg (each disk's fill over time) and <out>/spread.svg (every
// variant's spread over time) from <out>/plot.gp (written either way). Every plugin is
// found before the folder is created. Throws PluginError when a plugin cannot be found or loaded,
// and std::runtime_error when a file cannot be written.
Simulation simulate(const std::filesystem::path& out, const Trace& trace,
                    const std::vector<StrategyVariant>& variants,
                    const std::vector<std::filesystem::path>& plugin_search_path,
                    const SimulationProgress& progress = {});

}  // namespace lds::sim
