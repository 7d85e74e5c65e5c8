// spread.cpp: spread.csv from the variants' fill CSVs, and the trace's events for the chart.
#include "sim/spread.h"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <memory>
#include <stdexcept>

#include "sim/text.h"

namespace lds::sim {

namespace fs = std::filesystem;

bool row_spread(const std::string& row, size_t disks, double* spread) {
  double lo = 0, hi = 0;
  bool any = false;
  size_t pos = row.find(',');  // after the step
  for (size_t i = 0; i < disks && pos != std::string::npos; ++i) {
    const size_t begin = pos + 1;
    pos = row.find(',', begin);
    const size_t end = pos == std::string::npos ? row.size() : pos;
    if (end == begin) continue;  // not attached
    double fill = 0;
    const auto [ptr, ec] = std::from_chars(row.data() + begin, row.data() + end, fill);
    if (ec != std::errc() || ptr != row.data() + end) return false;
    lo = any ? std::min(lo, fill) : fill;
    hi = any ? std::max(hi, fill) : fill;
    any = true;
  }
  if (any) *spread = hi - lo;
  return any;
}

void write_spread_csv(const fs::path& out, const std::vector<RunResult>& results) {
  std::vector<std::unique_ptr<std::ifstream>> in;
  std::string header = "step";
  for (const RunResult& r : results) {
    const fs::path file = out / (r.variant.name + ".csv");
    in.push_back(std::make_unique<std::ifstream>(file, std::ios::binary));
    std::string first;
    if (!*in.back() || !std::getline(*in.back(), first)) {
      throw std::runtime_error("Cannot read " + file.string() + ".");
    }
    header += ',' + r.variant.name;
  }
  const fs::path target = out / "spread.csv";
  std::ofstream csv(target, std::ios::binary | std::ios::trunc);
  if (!csv) throw std::runtime_error("Cannot write " + target.string() + ".");
  csv << header << '\n';
  for (;;) {
    std::string line, step;
    std::string row;
    size_t ended = 0;
    for (size_t i = 0; i < in.size(); ++i) {
      if (!std::getline(*in[i], line)) {
        ++ended;
        continue;
      }
      const std::string this_step = line.substr(0, line.find(','));
      if (i == 0) step = this_step;
      if (this_step != step) {
        throw std::runtime_error((out / (results[i].variant.name + ".csv")).string() +
                                 " has step " + this_step + " where the others have " + step + ".");
      }
      double spread = 0;
      row += ',';
      if (row_spread(line, results[i].disks.size(), &spread)) row += fixed(spread, 3);
    }
    if (ended == in.size()) break;
    if (ended != 0)
      throw std::runtime_error("The fill CSVs in " + out.string() + " differ in length.");
    csv << step << row << '\n';
  }
  csv.close();
  if (!csv) throw std::runtime_error("Cannot write " + target.string() + ".");
}

std::vector<TraceEvent> trace_events(const Trace& trace) {
  std::map<uint32_t, std::vector<std::string>> disks;
  std::map<uint32_t, std::pair<std::vector<std::string>, uint64_t>> topics;
  std::map<uint32_t, std::string> cordons;
  for (const DiskSpec& d : trace.disks) {
    if (d.attach_at > 0) disks[d.attach_at].push_back(d.name);
  }
  for (const TopicSpec& t : trace.topics) {
    if (t.at == 0) continue;
    auto& [names, partitions] = topics[t.at];
    names.push_back(t.name);
    partitions += t.partitions;
  }
  for (const CordonEvent& c : trace.cordons) {
    std::string list;
    for (const std::string& d : c.disks) append_item(list, d, ", ");
    cordons[c.at] = list.empty() ? "uncordon" : "cordon " + list;
  }
  std::vector<TraceEvent> events;
  for (const auto& [step, names] : disks) {
    std::string list;
    for (const std::string& n : names) append_item(list, n, ", ");
    events.push_back({step, (names.size() == 1 ? "disk " : "disks ") + list + " added"});
  }
  for (const auto& [step, topic] : topics) {
    const auto& [names, partitions] = topic;
    const std::string count =
        std::to_string(partitions) + " partition" + (partitions == 1 ? "" : "s");
    events.push_back({step, names.size() == 1
                                ? "topic " + names.front() + " (" + count + ")"
                                : std::to_string(names.size()) + " topics (" + count + ")"});
  }
  for (const auto& [step, label] : cordons) events.push_back({step, label});
  std::stable_sort(events.begin(), events.end(),
                   [](const TraceEvent& a, const TraceEvent& b) { return a.step < b.step; });
  return events;
}

}  // namespace lds::sim
