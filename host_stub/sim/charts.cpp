// charts.cpp: the gnuplot script for the fill charts, and running it.
#include "sim/charts.h"

#include <cstdlib>
#include <sstream>

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

bool draw_charts(const fs::path& out, const Trace& trace, const std::vector<RunResult>& results,
                 std::string* why) {
  if (std::system("command -v gnuplot >/dev/null 2>&1") != 0) {
    if (why) *why = "gnuplot is not installed (LDS_WITH_PLOTS=1 tools/install-deps.sh adds it)";
    return false;
  }
  std::ostringstream gp;
  gp << "set terminal svg size 900,480 noenhanced font 'sans,12' background rgb 'white'\n"
        "set datafile separator ','\nset key outside right top\nset grid\n"
        "set xlabel 'step'\nset ylabel 'disk fill (%)'\nset yrange [0:105]\n";
  const size_t columns = trace.disks.size() + 1;
  for (const RunResult& r : results) {
    gp << "set output " << gnuplot_quote((out / (r.variant.name + ".svg")).string()) << "\n"
       << "set title " << gnuplot_quote(trace.name + ": " + r.variant.name) << "\n"
       << "plot for [i=2:" << columns << "] "
       << gnuplot_quote((out / (r.variant.name + ".csv")).string())
       << " using 1:i with lines linewidth 2 title columnhead(i)\n";
  }
  write_file(out / "plot.gp", gp.str());
  const std::string command =
      "gnuplot " + shell_quote((out / "plot.gp").string()) + " >/dev/null 2>&1";
  if (std::system(command.c_str()) != 0) {
    if (why) *why = "gnuplot failed on " + (out / "plot.gp").string();
    return false;
  }
  return true;
}

}  // namespace lds::sim
