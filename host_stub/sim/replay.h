// replay.h: runs a trace through the host's own placement path. Each strategy variant is run on a
// fresh in-memory LogManager whose DiskProbe is the set of virtual disks, with the strategy loaded
// from its plugin exactly as the broker loads it: nothing here re-implements a ranking.
//
// One step of simulated time, in order: disks attached at this step come online, cordon events
// apply, topics created at this step are placed (partition 0 first), then every placed partition
// appends its bytes for the step. The clock the LogManager measures append rates by is trace time:
// a step lasts step_seconds, the step's appends are counted at its end, and the rate window is
// kRateWindowSteps steps, so strategies see each disk's rate as the replay produced it. A partition
// stops growing at its retention (old segments are deleted as fast as new ones are written). An
// append that does not fit on its disk writes what fits and counts one out-of-space event.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "sim/trace.h"

namespace lds::sim {

// The append rates' time constant, in steps: long enough that the once-per-step appends of a
// replay read as a steady rate.
inline constexpr uint32_t kRateWindowSteps = 6;

struct DiskResult {
  std::string name;
  uint64_t capacity = 0;
  uint64_t used = 0;        // at the end
  double fill_pct = 0;      // at the end
  double max_fill_pct = 0;  // over the whole run
  uint32_t partitions = 0;  // at the end
  bool attached = false;
};

struct RunResult {
  StrategyVariant variant;
  std::vector<DiskResult> disks;
  double final_spread_pp = 0;                 // max - min fill of the attached disks at the end
  double max_fill_pct = 0;                    // the highest fill any disk reached
  uint64_t out_of_space = 0;                  // appends that did not fit
  uint64_t out_of_space_with_free_space = 0;  // of those, while > 10% of all capacity was free
  uint64_t failed_placements = 0;             // creations no directory would take
  // With the balancer (the "+balance" variants): its finished moves, their bytes, and the sum over
  // its rounds of each round's lower bound; and every move it finished, in simulated time.
  uint64_t moves = 0;
  uint64_t bytes_moved = 0;
  uint64_t bytes_lower_bound = 0;
  struct Move {
    std::string partition;  // "topic-0"
    uint32_t started_step = 0;
    uint32_t finished_step = 0;
  };
  std::vector<Move> move_log;
};

// What a replay writes as it goes, so that nothing per step is kept in memory.
struct ReplayOutput {
  // "step,<disk>..." and then each disk's fill in percent after each step (empty while the disk is
  // not attached), one row written as each step ends; with the balancer, a last column
  // "moves_in_flight"; null = no CSV.
  std::ostream* csv = nullptr;
  // Called after each step with the number of steps done; empty = not called.
  std::function<void(uint32_t steps_done)> progress;
};

// Runs one variant over the trace. Throws PluginError when the plugin cannot be found or loaded;
// a write to `output.csv` that fails throws whatever that stream's exceptions() make it throw.
RunResult run(const Trace& trace, const StrategyVariant& variant,
              const std::vector<std::filesystem::path>& plugin_search_path,
              const ReplayOutput& output = {});

}  // namespace lds::sim
