// simulator.h: replays a workload trace against virtual disks through the host's own placement
// path, once per strategy variant, and writes what each did: the entry point of `lds-host
// simulate`.
//
// load_trace() reads the trace (sim/trace.h); find_variant() names what to compare
// (sim/variants.h); run() replays the trace with one of them (sim/replay.h), loading its plugin
// from plugin_search_path() (sim/plugin_search.h); write_outputs() writes the report (sim/report.h)
// and the charts (sim/charts.h).
#pragma once

#include <string>
#include <vector>

#include "sim/plugin_search.h"
#include "sim/replay.h"
#include "sim/report.h"
#include "sim/trace.h"
#include "sim/variants.h"

namespace lds::sim {

// Writes <out>/<variant>.csv, <out>/summary.md and <out>/summary.csv, and, when gnuplot is on the
// PATH, <out>/<variant>.svg (a chart of each disk's fill over time) from <out>/plot.gp. Returns
// false with `why` set when the charts were not drawn. Throws std::runtime_error when a file
// cannot be written.
bool write_outputs(const std::filesystem::path& out, const Trace& trace,
                   const std::vector<RunResult>& results, std::string* why);

}  // namespace lds::sim
