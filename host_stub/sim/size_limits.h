// size_limits.h: how big a simulation is, and the limits past which `lds-host simulate` refuses
// to start without --force, since one trace can otherwise write gigabytes of CSV or run for hours.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/trace.h"

namespace lds::sim {

struct SimulationSize {
  // disks x steps x strategies: the fill values the per-step CSVs hold, one for each disk after
  // each step of each strategy (6 to 8 bytes each), so the size of the output.
  uint64_t csv_cells = 0;
  // partitions x steps: the appends one strategy's replay makes at most, so the work of each run.
  uint64_t partition_steps = 0;
};

// About 300 MB of CSV and 5 seconds of formatting on one core. The largest shipped trace
// (skewed_unequal.toml) needs 8,064 with all eight built-in variants.
inline constexpr uint64_t kMaxCsvCells = 50'000'000;
// About 20 seconds of replay per strategy on one core (some 40 ns a partition-step), 2 minutes for
// the six default ones. The largest shipped trace (new_disk.toml) needs 271,152.
inline constexpr uint64_t kMaxPartitionSteps = 500'000'000;

// The size of running `strategies` variants over `trace`; a product too large for 64 bits is
// UINT64_MAX.
SimulationSize simulation_size(const Trace& trace, size_t strategies);

// One sentence refusing to run a simulation of `size` over `trace`, naming the first limit it
// passes, or "" when it passes none.
std::string size_refusal(const Trace& trace, const SimulationSize& size);

}  // namespace lds::sim
