// size_limits.cpp: the two measures of a simulation's size, and the sentence refusing one past
// its limit.
#include "sim/size_limits.h"

#include <limits>

#include "sim/text.h"

namespace lds::sim {
namespace {

uint64_t saturating_product(uint64_t a, uint64_t b) {
  if (a != 0 && b > std::numeric_limits<uint64_t>::max() / a) {
    return std::numeric_limits<uint64_t>::max();
  }
  return a * b;
}

}  // namespace

SimulationSize simulation_size(const Trace& trace, size_t strategies) {
  uint64_t partitions = 0;
  // At most 100,000 partitions a topic: no trace holds enough topics to overflow this sum.
  for (const TopicSpec& topic : trace.topics) partitions += topic.partitions;
  SimulationSize size;
  size.csv_cells = saturating_product(saturating_product(trace.disks.size(), trace.steps),
                                      static_cast<uint64_t>(strategies));
  size.partition_steps = saturating_product(partitions, trace.steps);
  return size;
}

std::string size_refusal(const Trace& trace, const SimulationSize& size) {
  const std::string name = "Trace " + trace.file.filename().string();
  const std::string force = "; pass --force to run it anyway.";
  if (size.csv_cells > kMaxCsvCells) {
    return name + " would write " + grouped(size.csv_cells) +
           " per-step CSV cells (disks x steps x strategies), more than the limit of " +
           grouped(kMaxCsvCells) + force;
  }
  if (size.partition_steps > kMaxPartitionSteps) {
    return name + " would replay " + grouped(size.partition_steps) +
           " partition-steps (partitions x steps) per strategy, more than the limit of " +
           grouped(kMaxPartitionSteps) + force;
  }
  return "";
}

}  // namespace lds::sim
