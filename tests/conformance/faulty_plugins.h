// faulty_plugins.h: what the checker's own suites share: where the faulty plugins are, the check
// order, and the expectation that a report fails at one check after every earlier one passed.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "conformance/conformance.h"

namespace lds::test {

inline std::filesystem::path faulty_plugin(const std::string& kind) {
  return std::filesystem::path(LDS_FAULTY_PLUGIN_DIR) / ("liblds_fault_" + kind + ".so");
}

// Position of `name` in the fixed check order.
inline size_t check_index(const std::string& name) {
  const auto& names = conformance_check_names();
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return i;
  }
  ADD_FAILURE() << "no check named " << name;
  return names.size();
}

// `report` (of liblds_fault_<kind>.so) lists every check, passes each one before `check`, and
// fails `check` with a detail that names the file and contains `phrase`.
inline void expect_fails_at(const ConformanceReport& report, const std::string& kind,
                            const std::string& check, const std::string& phrase) {
  ASSERT_EQ(report.checks.size(), conformance_check_names().size());
  EXPECT_FALSE(report.all_passed());
  const size_t at = check_index(check);
  for (size_t i = 0; i < at && i < report.checks.size(); ++i) {
    EXPECT_TRUE(report.checks[i].passed)
        << report.checks[i].name << ": " << report.checks[i].detail;
  }
  const ConformanceCheck* failed = report.find(check);
  ASSERT_NE(failed, nullptr);
  EXPECT_FALSE(failed->passed);
  EXPECT_TRUE(failed->detail.starts_with("liblds_fault_" + kind + ".so: ")) << failed->detail;
  EXPECT_NE(failed->detail.find(phrase), std::string::npos) << failed->detail;
}

}  // namespace lds::test
