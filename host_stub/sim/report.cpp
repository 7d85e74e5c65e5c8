// report.cpp: the summary table and CSV comparing the strategies run over one trace.
#include "sim/report.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "sim/text.h"

namespace lds::sim {
namespace {

std::string human_bytes(uint64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 5) {
    v /= 1024;
    ++u;
  }
  std::string s = fixed(v, v == std::floor(v) ? 0 : 1);
  return s + " " + units[u];
}

}  // namespace

std::string summary_table(const Trace& trace, const std::vector<RunResult>& results) {
  std::ostringstream out;
  out << "Trace " << trace.name;
  if (!trace.description.empty()) out << ": " << trace.description;
  out << "\nDisks:";
  for (size_t i = 0; i < trace.disks.size(); ++i) {
    const DiskSpec& d = trace.disks[i];
    out << (i ? ", " : " ") << d.name << " " << human_bytes(d.capacity);
    if (d.attach_at > 0) out << " (added at step " << d.attach_at << ")";
  }
  out << "; " << trace.steps << " steps; seed " << trace.seed << ".\n\n";
  out << "| strategy | final spread (pp) | highest fill | out-of-space events | of those with >10% "
         "free | failed placements | final fill per disk (%) | partitions per disk |\n";
  out << "|---|--:|--:|--:|--:|--:|---|---|\n";
  for (const RunResult& r : results) {
    std::string fills, counts;
    for (const DiskResult& d : r.disks) {
      append_item(fills, d.attached ? fixed(d.fill_pct, 1) : std::string("-"), " / ");
      append_item(counts, std::to_string(d.partitions), " / ");
    }
    out << "| " << r.variant.name << (r.variant.baseline ? " (baseline)" : "") << " | "
        << fixed(r.final_spread_pp, 1) << " | " << fixed(r.max_fill_pct, 1) << "% | "
        << r.out_of_space << " | " << r.out_of_space_with_free_space << " | " << r.failed_placements
        << " | " << fills << " | " << counts << " |\n";
  }
  if (std::any_of(results.begin(), results.end(),
                  [](const RunResult& r) { return r.variant.baseline; })) {
    out << "\n(baseline): a comparison strategy (HDFS's or Elasticsearch's rule) built only for "
           "the simulator; it is not shipped.\n";
  }
  bool header = false;
  for (const RunResult& r : results) {
    if (!r.variant.balance && r.moves == 0) continue;
    if (!header)
      out << "\nBalancer (moves finished, bytes moved, and the sum of each round's lower bound):\n";
    header = true;
    out << "- " << r.variant.name << ": " << r.moves << " moves, " << human_bytes(r.bytes_moved)
        << " moved, lower bound " << human_bytes(r.bytes_lower_bound) << "\n";
  }
  return out.str();
}

std::string summary_csv(const std::vector<RunResult>& results) {
  std::ostringstream out;
  out << "strategy,plugin,baseline,final_spread_pp,max_fill_pct,out_of_space_events,"
         "out_of_space_events_with_free_space,failed_placements,final_fill_pct,partitions,moves,"
         "bytes_moved,bytes_lower_bound\n";
  for (const RunResult& r : results) {
    std::string fills, counts;
    for (const DiskResult& d : r.disks) {
      if (!fills.empty()) fills += ';';
      if (d.attached) fills += fixed(d.fill_pct, 3);
      append_item(counts, std::to_string(d.partitions), ";");
    }
    out << r.variant.name << ',' << r.variant.plugin << ',' << (r.variant.baseline ? 1 : 0) << ','
        << fixed(r.final_spread_pp, 3) << ',' << fixed(r.max_fill_pct, 3) << ',' << r.out_of_space
        << ',' << r.out_of_space_with_free_space << ',' << r.failed_placements << ',' << fills
        << ',' << counts << ',' << r.moves << ',' << r.bytes_moved << ',' << r.bytes_lower_bound
        << '\n';
  }
  return out.str();
}

}  // namespace lds::sim
