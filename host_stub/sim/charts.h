// charts.h: a chart of each disk's fill over time per strategy, drawn by gnuplot when installed.
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "sim/replay.h"
#include "sim/trace.h"

namespace lds::sim {

// Writes <out>/plot.gp, which draws <out>/<variant>.svg from the <out>/<variant>.csv already
// written, and runs gnuplot on it. `out` must be absolute: the script names its files by full path.
// Returns false with `why` set when gnuplot is missing or fails.
bool draw_charts(const std::filesystem::path& out, const Trace& trace,
                 const std::vector<RunResult>& results, std::string* why);

}  // namespace lds::sim
