// spread.h: every variant's spread over time (the fill of its fullest attached disk minus that of
// its emptiest, in percentage points, after each step), and the trace's events that explain it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/replay.h"
#include "sim/trace.h"

namespace lds::sim {

// Reads the <out>/<variant>.csv of every result in lockstep, row by row (nothing per step is kept
// in memory), and writes <out>/spread.csv: "step,<variant>..." and each variant's spread after
// each step, with 3 decimals; empty while fewer than one disk is attached. Throws
// std::runtime_error naming the file that cannot be read or written, or whose rows disagree.
void write_spread_csv(const std::filesystem::path& out, const std::vector<RunResult>& results);

// The spread of one row of a <variant>.csv ("step,<fill>..." with `disks` fill columns, empty for
// a disk not attached yet); false when no disk is attached.
bool row_spread(const std::string& row, size_t disks, double* spread);

// What happens in the trace at a step, for the chart's markers: "disk new added",
// "topic burst (500 partitions)" or "3 topics (40 partitions)", "cordon d1, d2" or "uncordon".
struct TraceEvent {
  uint32_t step = 0;
  std::string label;
};
// The trace's disk, topic and cordon events in step order, one per kind and step; disks present
// from the start and topics created at step 0 are not events.
std::vector<TraceEvent> trace_events(const Trace& trace);

}  // namespace lds::sim
