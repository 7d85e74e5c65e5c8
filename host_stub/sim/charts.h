// charts.h: a chart of each disk's fill over time per strategy, and one of every strategy's spread
// over time, with the trace's events marked; drawn by gnuplot when installed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sim/replay.h"
#include "sim/trace.h"

namespace lds::sim {

// The gnuplot script that draws <out>/<variant>.svg from each <out>/<variant>.csv and
// <out>/spread.svg from <out>/spread.csv, with a dashed line and a label at each trace event
// (trace_events() in sim/spread.h). `out` must be absolute: the script names files by full path.
std::string chart_script(const std::filesystem::path& out, const Trace& trace,
                         const std::vector<RunResult>& results);

// Writes chart_script() to <out>/plot.gp, then runs gnuplot on it. Returns false with `why` set
// when gnuplot is missing or fails (the script is kept, to be run later).
bool draw_charts(const std::filesystem::path& out, const Trace& trace,
                 const std::vector<RunResult>& results, std::string* why);

}  // namespace lds::sim
