// charts.cpp: the gnuplot script for the fill and spread charts, and running it.
#include "sim/charts.h"

#include <cstdlib>
#include <sstream>

#include "sim/spread.h"
#include "sim/text.h"

namespace lds::sim {

namespace fs = std::filesystem;
namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string gnuplot_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
  return out + "'";
}

}  // namespace

std::string chart_script(const fs::path& out, const Trace& trace,
                         const std::vector<RunResult>& results) {
  std::ostringstream gp;
  gp << "set terminal svg size 900,480 noenhanced font 'sans,12' background rgb 'white'\n"
        "set datafile separator ','\nset key outside right top\nset grid\nset xlabel 'step'\n";
  // Each event of the trace: a dashed vertical line, labelled along it from the top.
  int tag = 1;
  for (const TraceEvent& e : trace_events(trace)) {
    gp << "set arrow " << tag << " from " << e.step << ", graph 0 to " << e.step
       << ", graph 1 nohead dashtype 2 linecolor rgb 'gray50'\n"
       << "set label " << tag << " " << gnuplot_quote(e.label) << " at " << e.step
       << ", graph 0.98 rotate by 90 right offset 1,0 font ',9' textcolor rgb 'gray30'\n";
    ++tag;
  }
  gp << "set ylabel 'disk fill (%)'\nset yrange [0:105]\n";
  const size_t columns = trace.disks.size() + 1;
  for (const RunResult& r : results) {
    gp << "set output " << gnuplot_quote((out / (r.variant.name + ".svg")).string()) << "\n"
       << "set title " << gnuplot_quote(trace.name + ": " + r.variant.name) << "\n"
       << "plot for [i=2:" << columns << "] "
       << gnuplot_quote((out / (r.variant.name + ".csv")).string())
       << " using 1:i with lines linewidth 2 title columnhead(i)\n";
  }
  gp << "set output " << gnuplot_quote((out / "spread.svg").string()) << "\n"
     << "set title " << gnuplot_quote(trace.name + ": spread of every variant") << "\n"
     << "set ylabel 'spread (fullest minus emptiest disk, points)'\nset yrange [0:*]\n"
     << "plot for [i=2:" << results.size() + 1 << "] "
     << gnuplot_quote((out / "spread.csv").string())
     << " using 1:i with lines linewidth 2 title columnhead(i)\n";
  return gp.str();
}

bool draw_charts(const fs::path& out, const Trace& trace, const std::vector<RunResult>& results,
                 std::string* why) {
  write_file(out / "plot.gp", chart_script(out, trace, results));
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    if (why) *why = "gnuplot is not installed (LDS_WITH_PLOTS=1 tools/install-deps.sh adds it)";
    return false;
  }
  const std::string command =
      "gnuplot " + shell_quote((out / "plot.gp").string()) + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) {
    if (why) *why = "gnuplot failed on " + (out / "plot.gp").string();
    return false;
  }
  return true;
}

}  // namespace lds::sim
