// report.cpp: the check names every report lists, the report's queries, and its text for people.
#include <algorithm>
#include <sstream>

#include "conformance/check_list.h"
#include "conformance/conformance.h"

namespace lds {

bool ConformanceReport::all_passed() const {
  return !checks.empty() && std::all_of(checks.begin(), checks.end(),
                                        [](const ConformanceCheck& c) { return c.passed; });
}

const ConformanceCheck* ConformanceReport::find(std::string_view name) const {
  for (const ConformanceCheck& check : checks) {
    if (check.name == name) return &check;
  }
  return nullptr;
}

const std::vector<std::string>& conformance_check_names() {
  using conformance_detail::kCheckNames;
  static const std::vector<std::string> kNames(kCheckNames.begin(), kCheckNames.end());
  return kNames;
}

std::string format_report(const ConformanceReport& report) {
  const auto passed =
      static_cast<size_t>(std::count_if(report.checks.begin(), report.checks.end(),
                                        [](const ConformanceCheck& c) { return c.passed; }));
  std::ostringstream out;
  out << "Conformance of " << report.file << ": " << passed << " of " << report.checks.size()
      << " checks passed\n";
  out << "ABI: the plugin was built for "
      << (report.plugin_abi.empty() ? std::string("an unknown version") : report.plugin_abi)
      << ", and tested by a host of ABI " << report.host_abi << "\n";
  for (const ConformanceCheck& check : report.checks) {
    out << (check.passed ? "PASS  " : "FAIL  ") << check.name;
    if (!check.passed && !check.detail.empty()) out << ": " << check.detail;
    out << '\n';
  }
  out << "Result: " << (report.all_passed() ? "PASS" : "FAIL") << '\n';
  return out.str();
}

}  // namespace lds
