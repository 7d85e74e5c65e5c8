// simulator.cpp: the outputs of a simulation: each variant's fill CSV, the summaries and the
// charts.
#include "sim/simulator.h"

#include <stdexcept>
#include <system_error>

#include "sim/charts.h"
#include "sim/text.h"

namespace lds::sim {

namespace fs = std::filesystem;

bool write_outputs(const fs::path& out_dir, const Trace& trace,
                   const std::vector<RunResult>& results, std::string* why) {
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) throw std::runtime_error("Cannot create " + out_dir.string() + ": " + ec.message() + ".");
  const fs::path out = fs::absolute(out_dir);
  for (const RunResult& r : results) write_file(out / (r.variant.name + ".csv"), r.csv);
  write_file(out / "summary.md", summary_table(trace, results));
  write_file(out / "summary.csv", summary_csv(results));
  return draw_charts(out, trace, results, why);
}

}  // namespace lds::sim
