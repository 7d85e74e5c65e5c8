// report.h: the summary of several runs of one trace, as a Markdown table and as CSV.
#pragma once

#include <string>
#include <vector>

#include "sim/replay.h"
#include "sim/trace.h"

namespace lds::sim {

// The summary of several runs of one trace as a Markdown table, and the same as CSV.
std::string summary_table(const Trace& trace, const std::vector<RunResult>& results);
std::string summary_csv(const std::vector<RunResult>& results);

}  // namespace lds::sim
