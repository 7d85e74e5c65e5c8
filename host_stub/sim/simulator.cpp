// simulator.cpp: a simulation's runs and outputs: each variant's fill CSV, streamed as it is
// replayed, then the summaries and the charts.
#include "sim/simulator.h"

#include <fstream>
#include <stdexcept>
#include <system_error>

#include "sim/charts.h"
#include "sim/spread.h"
#include "sim/text.h"

namespace lds::sim {

namespace fs = std::filesystem;

Simulation simulate(const fs::path& out_dir, const Trace& trace,
                    const std::vector<StrategyVariant>& variants,
                    const std::vector<fs::path>& search, const SimulationProgress& progress) {
  // A plugin that is not there fails the command before anything is written.
  for (const StrategyVariant& v : variants) find_plugin_dir(v.plugin, search);
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("Cannot create " + out_dir.string() + ": " + ec.message() + ".");
  const fs::path out = fs::absolute(out_dir);

  Simulation simulation;
  for (size_t i = 0; i < variants.size(); ++i) {
    const fs::path file = out / (variants[i].name + ".csv");
    std::ofstream csv(file, std::ios::binary | std::ios::trunc);
    if (!csv) throw std::runtime_error("Cannot write " + file.string() + ".");
    // A full disk stops the replay at the first row that does not fit, not at the end of the run.
    csv.exceptions(std::ios::badbit | std::ios::failbit);
    ReplayOutput output;
    output.csv = &csv;
    if (progress) output.progress = [&progress, i](uint32_t done) { progress(i, done); };
    try {
      simulation.results.push_back(run(trace, variants[i], search, output));
      csv.close();
    } catch (const std::ios_base::failure&) {
      throw std::runtime_error("Cannot write " + file.string() + ".");
    }
  }
  write_file(out / "summary.md", summary_table(trace, simulation.results));
  write_file(out / "summary.csv", summary_csv(simulation.results));
  write_spread_csv(out, simulation.results);
  simulation.charts = draw_charts(out, trace, simulation.results, &simulation.why_no_charts);
  return simulation;
}

}  // namespace lds::sim
