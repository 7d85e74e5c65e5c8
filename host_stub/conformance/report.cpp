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

size_t ConformanceReport::passed_count() const {
  return static_cast<size_t>(
      std::count_if(checks.begin(), checks.end(),
                    [](const ConformanceCheck& c) { return c.passed && !c.skipped; }));
}

size_t ConformanceReport::skipped_count() const {
  return static_cast<size_t>(std::count_if(checks.begin(), checks.end(),
                                           [](const ConformanceCheck& c) { return c.skipped; }));
}

size_t ConformanceReport::failed_count() const {
  return checks.size() - passed_count() - skipped_count();
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
  std::ostringstream out;
  out << "Conformance of " << report.file << ": " << report.passed_count() << " passed, "
      << report.failed_count() << " failed, " << report.skipped_count() << " skipped\n";
  out << "ABI: the plugin was built for "
      << (report.plugin_abi.empty() ? std::string("an unknown version") : report.plugin_abi)
      << ", and tested by a host of ABI " << report.host_abi << "\n";
  for (const ConformanceCheck& check : report.checks) {
    out << (check.skipped ? "SKIP  " : check.passed ? "PASS  " : "FAIL  ") << check.name;
    if (!check.detail.empty()) out << ": " << check.detail;
    out << '\n';
  }
  out << "Result: " << (report.all_passed() ? "PASS" : "FAIL") << '\n';
  return out.str();
}

}  // namespace lds
