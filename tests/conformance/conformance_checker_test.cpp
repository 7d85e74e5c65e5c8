// conformance_checker_test.cpp: the conformance checker itself: each deliberately faulty plugin
// fails exactly the check for its fault, and files that are not plugins fail cleanly.
#include <elf.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "conformance/conformance.h"
#include "faulty_plugins.h"

namespace {

using lds::test::check_index;
using lds::test::faulty_plugin;

namespace fs = std::filesystem;

// Where the last loadable segment of a 64-bit ELF file ends: cutting the file before it truncates
// what dlopen maps, wherever the linker put the debug sections (GNU ld before them, lld after).
uintmax_t end_of_loadable_segments(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  Elf64_Ehdr header{};
  in.read(reinterpret_cast<char*>(&header), sizeof header);
  uintmax_t end = 0;
  for (int i = 0; in && i < header.e_phnum; ++i) {
    Elf64_Phdr segment{};
    in.seekg(static_cast<std::streamoff>(header.e_phoff + i * sizeof segment));
    in.read(reinterpret_cast<char*>(&segment), sizeof segment);
    if (in && segment.p_type == PT_LOAD)
      end = std::max<uintmax_t>(end, segment.p_offset + segment.p_filesz);
  }
  return end;
}

struct FaultCase {
  std::string kind;                       // liblds_fault_<kind>.so
  std::string first_failing_check;        // every check before it must pass
  std::string phrase;                     // must appear in that check's detail
  std::vector<std::string> also_failing;  // later checks that must fail too; all others pass
};

void PrintTo(const FaultCase& fault, std::ostream* out) { *out << fault.kind; }

class FaultyPlugin : public testing::TestWithParam<FaultCase> {};

TEST_P(FaultyPlugin, FailsTheCheckForItsFault) {
  const FaultCase& fault = GetParam();
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin(fault.kind));
  lds::test::expect_fails_at(report, fault.kind, fault.first_failing_check, fault.phrase);
  const size_t failing = check_index(fault.first_failing_check);
  for (size_t i = failing + 1; i < report.checks.size(); ++i) {
    const lds::ConformanceCheck& other = report.checks[i];
    const bool must_fail = std::find(fault.also_failing.begin(), fault.also_failing.end(),
                                     other.name) != fault.also_failing.end();
    EXPECT_EQ(other.passed, !must_fail) << other.name << ": " << other.detail;
  }
}

INSTANTIATE_TEST_SUITE_P(
    Faults, FaultyPlugin,
    testing::Values(
        FaultCase{
            "no_entry_point",
            "exports_entry_point",
            "does not export lds_strategy_get",
            {"version_handshake", "descriptor_fields", "name_matches_file",
             "create_without_options", "create_with_given_options", "create_rejects_unknown_key",
             "create_error_truncation", "rank_empty_no_eligible_dir", "rank_error_truncation",
             "rank_valid_orders", "rank_deterministic", "rank_reserved_flags_ignored",
             "rank_larger_host_dir", "rank_concurrent", "destroy"}},
        FaultCase{"any_major", "version_handshake", "must return NULL", {}},
        FaultCase{
            "no_abi_major",
            "descriptor_fields",
            "abi_major is 0, not 1",
            {"create_without_options", "create_with_given_options", "create_rejects_unknown_key",
             "create_error_truncation", "rank_empty_no_eligible_dir", "rank_error_truncation",
             "rank_valid_orders", "rank_deterministic", "rank_reserved_flags_ignored",
             "rank_larger_host_dir", "rank_concurrent", "destroy"}},
        FaultCase{"wrong_name", "name_matches_file", "\"not_fault_wrong_name\"", {}},
        FaultCase{"accepts_unknown_key",
                  "create_rejects_unknown_key",
                  "accepted the unknown key lds.conformance.unknown.key",
                  {"create_error_truncation"}},
        FaultCase{"duplicate_index", "rank_valid_orders", "twice", {}},
        // A stateful plugin that declares determinism is told exactly that, first: not that the
        // flags, the stride or the threads are at fault.
        FaultCase{"not_deterministic",
                  "rank_deterministic",
                  "rank gave different answers to identical inputs",
                  {}},
        FaultCase{"reads_reserved_flags", "rank_reserved_flags_ignored", "reserved", {}},
        FaultCase{"ignores_stride", "rank_larger_host_dir", "LDS_DIR_AT", {}},
        FaultCase{"shared_scratch", "rank_concurrent", "threads ranking at once", {}}),
    [](const testing::TestParamInfo<FaultCase>& p) { return p.param.kind; });

TEST(ConformanceChecker, PassesTheFaultlessBuildOfTheFaultyPlugin) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("none"));
  EXPECT_TRUE(report.all_passed()) << lds::format_report(report);
}

TEST(ConformanceChecker, SkipsEverythingAfterTheEntryPointIsMissing) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("no_entry_point"));
  ASSERT_TRUE(report.find("loads") && report.find("loads")->passed);
  for (size_t i = check_index("version_handshake"); i < report.checks.size(); ++i) {
    const lds::ConformanceCheck& check = report.checks[i];
    if (check.name == "unloads") {
      EXPECT_TRUE(check.passed) << check.detail;
    } else {
      EXPECT_FALSE(check.passed) << check.name;
      EXPECT_TRUE(check.skipped) << check.name << ": " << check.detail;
    }
  }
  EXPECT_EQ(report.passed_count(), 2u);
  EXPECT_EQ(report.failed_count(), 1u);
  EXPECT_EQ(report.skipped_count(), report.checks.size() - 3);
}

// A descriptor without .abi_major: one failure that says which field to set, and every check it
// makes impossible reported as skipped, not as 12 more failures.
TEST(ConformanceChecker, NamesTheFieldToSetAndSkipsWhatAMissingAbiMajorPrevents) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("no_abi_major"));
  const lds::ConformanceCheck* fields = report.find("descriptor_fields");
  ASSERT_NE(fields, nullptr);
  EXPECT_FALSE(fields->skipped);
  EXPECT_EQ(fields->detail,
            "liblds_fault_no_abi_major.so: descriptor abi_major is 0, not 1; set .abi_major = "
            "LDS_ABI_MAJOR in your lds_strategy.");

  const std::string text = lds::format_report(report);
  EXPECT_NE(text.find("Conformance of " + faulty_plugin("no_abi_major").string() +
                      ": 5 passed, 1 failed, 12 skipped\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("FAIL  descriptor_fields: liblds_fault_no_abi_major.so: descriptor "
                      "abi_major is 0, not 1; set .abi_major = LDS_ABI_MAJOR in your "
                      "lds_strategy.\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SKIP  create_without_options: the descriptor is unusable (see "
                      "descriptor_fields).\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SKIP  destroy: the descriptor is unusable (see descriptor_fields).\n"),
            std::string::npos)
      << text;
  size_t fail_lines = 0;
  for (size_t at = text.find("\nFAIL  "); at != std::string::npos;
       at = text.find("\nFAIL  ", at + 1)) {
    ++fail_lines;
  }
  EXPECT_EQ(fail_lines, 1u) << text;
  // The descriptor was read, so the report says what it declares, even when that is wrong.
  EXPECT_NE(text.find("ABI: the plugin was built for 0.1, and tested by a host of ABI 1.1\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Result: FAIL\n"), std::string::npos) << text;
}

// Each field left out of the initialiser gets its own fix, in field order, in one sentence.
TEST(ConformanceChecker, NamesEveryFieldToSetInOneSentence) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("null_fields"));
  const lds::ConformanceCheck* fields = report.find("descriptor_fields");
  ASSERT_NE(fields, nullptr);
  EXPECT_EQ(fields->detail,
            "liblds_fault_null_fields.so: descriptor abi_major is 0, not 1; name is NULL; "
            "version is NULL; set .abi_major = LDS_ABI_MAJOR, .name = \"fault_null_fields\" and "
            ".version = \"...\" in your lds_strategy.");
}

TEST(ConformanceChecker, RejectsAFileThatIsNotASharedObject) {
  const fs::path dir =
      fs::temp_directory_path() / ("lds-conformance-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "liblds_garbage.so";
  std::ofstream(file) << "not an ELF file\n";
  const lds::ConformanceReport report = lds::run_conformance(file);
  fs::remove_all(dir);

  ASSERT_EQ(report.checks.size(), lds::conformance_check_names().size());
  EXPECT_EQ(report.file, file.string());
  EXPECT_FALSE(report.checks[0].passed);
  EXPECT_TRUE(report.checks[0].detail.starts_with("liblds_garbage.so: does not load"))
      << report.checks[0].detail;
  for (size_t i = 1; i < report.checks.size(); ++i) {
    EXPECT_FALSE(report.checks[i].passed) << report.checks[i].name;
    EXPECT_TRUE(report.checks[i].skipped) << report.checks[i].detail;
  }
}

TEST(ConformanceChecker, RejectsATruncatedPluginWithoutCrashing) {
  const uintmax_t loaded = end_of_loadable_segments(faulty_plugin("none"));
  ASSERT_GT(loaded, 0u) << faulty_plugin("none");
  const fs::path dir =
      fs::temp_directory_path() / ("lds-conformance-trunc-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "liblds_fault_none.so";
  fs::copy_file(faulty_plugin("none"), file);
  fs::resize_file(file, loaded / 2);  // dlopen would fault mapping past the end
  const lds::ConformanceReport report = lds::run_conformance(file);
  fs::remove_all(dir);

  ASSERT_FALSE(report.checks.empty());
  EXPECT_FALSE(report.checks[0].passed);
  EXPECT_NE(report.checks[0].detail.find("it is truncated"), std::string::npos)
      << report.checks[0].detail;
  EXPECT_FALSE(report.all_passed());
}

TEST(ConformanceChecker, RejectsAMissingFile) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("does_not_exist"));
  EXPECT_FALSE(report.all_passed());
  EXPECT_FALSE(report.checks.at(0).passed);
}

TEST(ConformanceChecker, FormatsOneLinePerCheckAndAResult) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("no_entry_point"));
  const std::string text = lds::format_report(report);
  EXPECT_NE(text.find("PASS  loads\n"), std::string::npos) << text;
  EXPECT_NE(text.find("FAIL  exports_entry_point: liblds_fault_no_entry_point.so: does not export "
                      "lds_strategy_get"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("SKIP  rank_valid_orders: lds_strategy_get is not exported.\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Conformance of " + faulty_plugin("no_entry_point").string() +
                      ": 2 passed, 1 failed, 15 skipped\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Result: FAIL\n"), std::string::npos) << text;
  // Without an entry point there is no descriptor to say which ABI the plugin was built for.
  EXPECT_NE(text.find("ABI: the plugin was built for an unknown version, and tested by a host of "
                      "ABI 1.1\n"),
            std::string::npos)
      << text;
  EXPECT_EQ(static_cast<size_t>(std::count(text.begin(), text.end(), '\n')),
            report.checks.size() + 3);
}

TEST(ConformanceChecker, EmptyReportIsNotAPass) {
  const lds::ConformanceReport empty;
  EXPECT_FALSE(empty.all_passed());
}

}  // namespace
