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
  std::string kind;                 // liblds_fault_<kind>.so
  std::string first_failing_check;  // every check before it must pass
  std::string phrase;  // must appear in that check's detail; ending in '.', it is all of it
  std::vector<std::string> also_failing;    // later checks that must fail too; all others pass
  uint32_t host_abi_minor = LDS_ABI_MINOR;  // the host the checker plays
};

void PrintTo(const FaultCase& fault, std::ostream* out) { *out << fault.kind; }

// "ranks_cordoned", or "trusts_purpose_on_1_1" for a case on an older host.
std::string fault_case_name(const FaultCase& fault) {
  if (fault.host_abi_minor == LDS_ABI_MINOR) return fault.kind;
  return fault.kind + "_on_1_" + std::to_string(fault.host_abi_minor);
}

class FaultyPlugin : public testing::TestWithParam<FaultCase> {};

TEST_P(FaultyPlugin, FailsTheCheckForItsFault) {
  const FaultCase& fault = GetParam();
  lds::ConformanceOptions options;
  options.host_abi_minor = fault.host_abi_minor;
  const lds::ConformanceReport report =
      lds::run_conformance(faulty_plugin(fault.kind), options, nullptr);
  lds::test::expect_fails_at(report, fault.kind, fault.first_failing_check, fault.phrase);
  if (fault.phrase.ends_with('.') && report.find(fault.first_failing_check) != nullptr) {
    EXPECT_EQ(report.find(fault.first_failing_check)->detail,
              "liblds_fault_" + fault.kind + ".so: " + fault.phrase);
  }
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
             "placed", "rank_valid_orders", "rank_deterministic", "rank_reserved_flags_ignored",
             "rank_larger_host_dir", "rank_concurrent", "rank_scores", "rank_honors_cordon",
             "rank_purpose_keeps_state", "destroy"}},
        FaultCase{"any_major", "version_handshake", "must return NULL", {}},
        FaultCase{
            "no_abi_major",
            "descriptor_fields",
            "abi_major is 0, not 1",
            {"create_without_options", "create_with_given_options", "create_rejects_unknown_key",
             "create_error_truncation", "rank_empty_no_eligible_dir", "rank_error_truncation",
             "placed", "rank_valid_orders", "rank_deterministic", "rank_reserved_flags_ignored",
             "rank_larger_host_dir", "rank_concurrent", "rank_scores", "rank_honors_cordon",
             "rank_purpose_keeps_state", "destroy"}},
        FaultCase{"wrong_name", "name_matches_file", "\"not_fault_wrong_name\"", {}},
        // Built for 1.2 with the 1.1 size: the host never sees score_name, so its scores are
        // nameless too.
        FaultCase{"short_descriptor",
                  "descriptor_fields",
                  "descriptor struct_size 64 is below the ABI 1.2 size 80 though abi_minor is 2, "
                  "so a host would read neither placed nor score_name; set .struct_size = "
                  "sizeof(lds_strategy) in your lds_strategy.",
                  {"rank_scores"}},
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
        FaultCase{"shared_scratch", "rank_concurrent", "threads ranking at once", {}},
        // ABI 1.2's checks, each with the whole sentence it must say.
        FaultCase{"infinite_score",
                  "rank_scores",
                  "rank wrote +inf into scores[0] on candidate set 0 (1 directory) with purpose "
                  "LDS_RANK_PLACE; a score must be finite, or NaN for none.",
                  {}},
        FaultCase{"scores_without_name",
                  "rank_scores",
                  "rank writes scores (813 into scores[0] on candidate set 0 (1 directory) with "
                  "purpose LDS_RANK_PLACE) but the descriptor's score_name is NULL; set "
                  ".score_name in your lds_strategy to what they measure, for example \"projected "
                  "fill\".",
                  {}},
        FaultCase{"ranks_cordoned",
                  "rank_honors_cordon",
                  "rank ranked directory 1, which is cordoned (LDS_DIR_CORDONED), in its answer "
                  "order [1,2,0] on candidate set 2 (3 directories) with purpose LDS_RANK_PLACE; "
                  "the plugin declares LDS_CAP_HONORS_CORDON, so it must leave cordoned "
                  "directories out.",
                  {}},
        // The host's own minor does not matter to a promise about cordons.
        FaultCase{"ranks_cordoned",
                  "rank_honors_cordon",
                  "rank ranked directory 1, which is cordoned (LDS_DIR_CORDONED), in its answer "
                  "order [1,2,0] on candidate set 2 (3 directories); the plugin declares "
                  "LDS_CAP_HONORS_CORDON, so it must leave cordoned directories out.",
                  {},
                  0},
        // A 1.1-style counter advanced by every rank call: three validations shift the first
        // placement by three directories.
        FaultCase{"counts_every_call",
                  "rank_purpose_keeps_state",
                  "the answer to LDS_RANK_PLACE call 1 of 12, on candidate set 4 (5 directories), "
                  "changed from order [1,4,2,0,3] to order [0,3,1,4,2] when calls with purpose "
                  "LDS_RANK_VALIDATE came before it; a strategy changes its state only on "
                  "LDS_RANK_PLACE or in placed.",
                  {}},
        // Reads purpose whenever LDS_HAS_FIELD says the struct holds it, and refuses values it
        // does not know. A 1.2 host's reserved value finds the second fault...
        FaultCase{"trusts_purpose",
                  "rank_purpose_keeps_state",
                  "rank returned status 4 with error \"rank was called with an unknown purpose\" "
                  "for well-formed arguments on candidate set 7 (8 directories) with the reserved "
                  "purpose 4 (read as LDS_RANK_VALIDATE).",
                  {}},
        // ...and a 1.1 or 1.0 host the first: LDS_HAS_FIELD holds for purpose there too, but the
        // bytes are the old struct's padding, which the host never wrote.
        FaultCase{"trusts_purpose",
                  "rank_empty_no_eligible_dir",
                  "rank returned status 4 with error \"rank was called with an unknown purpose\" "
                  "for well-formed arguments on an empty candidate list.",
                  {"rank_error_truncation", "rank_valid_orders", "rank_deterministic",
                   "rank_reserved_flags_ignored", "rank_larger_host_dir", "rank_concurrent",
                   "rank_purpose_keeps_state"},
                  1},
        FaultCase{"trusts_purpose",
                  "rank_empty_no_eligible_dir",
                  "rank returned status 4 with error \"rank was called with an unknown purpose\" "
                  "for well-formed arguments on an empty candidate list.",
                  {"rank_error_truncation", "rank_valid_orders", "rank_deterministic",
                   "rank_reserved_flags_ignored", "rank_larger_host_dir", "rank_concurrent",
                   "rank_purpose_keeps_state"},
                  0},
        // Compares struct_size with its own sizeof(lds_rank_args): fine on a 1.2 host, and the
        // failure on an older one says what to accept.
        FaultCase{"refuses_older_args",
                  "rank_empty_no_eligible_dir",
                  "rank returned status 1 with error \"lds_rank_args is too small\" for "
                  "well-formed arguments (a host of ABI 1.1 passes lds_rank_args at the 64 bytes "
                  "of 1.1, which a plugin must accept: it reads purpose and scores only when "
                  "LDS_RANK_ARGS_HAVE_PURPOSE holds) on an empty candidate list.",
                  {"rank_error_truncation", "rank_valid_orders", "rank_deterministic",
                   "rank_reserved_flags_ignored", "rank_larger_host_dir", "rank_concurrent",
                   "rank_purpose_keeps_state"},
                  1}),
    [](const testing::TestParamInfo<FaultCase>& p) { return fault_case_name(p.param); });

TEST(ConformanceChecker, PassesTheFaultlessBuildOfTheFaultyPlugin) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("none"));
  EXPECT_TRUE(report.all_passed()) << lds::format_report(report);
}

TEST(ConformanceChecker, PassesAPluginThatNeedsTheWhole12ArgsOnA12Host) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("refuses_older_args"));
  EXPECT_TRUE(report.all_passed()) << lds::format_report(report);
}

TEST(ConformanceChecker, PlaysAHostOfItsOwnAbiByDefault) {
  EXPECT_EQ(lds::ConformanceOptions{}.host_abi_minor, static_cast<uint32_t>(LDS_ABI_MINOR));
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("none"));
  EXPECT_EQ(report.host_abi, "1." + std::to_string(LDS_ABI_MINOR));
  EXPECT_EQ(report.plugin_abi, "1." + std::to_string(LDS_ABI_MINOR));
}

// A check that cannot apply to an older host is skipped with its reason, and the plugin still
// passes: the report says so line by line.
TEST(ConformanceChecker, ChecksThatDoNotApplyToTheHostKeepTheResultAPass) {
  lds::ConformanceOptions options;
  options.host_abi_minor = 1;
  const lds::ConformanceReport report =
      lds::run_conformance(faulty_plugin("none"), options, nullptr);
  EXPECT_TRUE(report.all_passed()) << lds::format_report(report);
  for (const char* name : {"placed", "rank_scores", "rank_purpose_keeps_state"}) {
    ASSERT_NE(report.find(name), nullptr) << name;
    EXPECT_TRUE(report.find(name)->passed) << name;
    EXPECT_TRUE(report.find(name)->skipped) << name;
  }
  const std::string text = lds::format_report(report);
  for (const char* line :
       {": 19 passed, 0 failed, 3 skipped\n",
        "ABI: the plugin was built for 1.2, and tested by a host of ABI 1.1\n",
        "SKIP  placed: a host of ABI 1.1 never calls placed.\n",
        "SKIP  rank_scores: a host of ABI 1.1 passes no scores.\n",
        "SKIP  rank_purpose_keeps_state: a host of ABI 1.1 does not say why it ranks.\n",
        "Result: PASS\n"}) {
    EXPECT_NE(text.find(line), std::string::npos) << line << " is not in\n" << text;
  }
}

// A check that held because nothing was promised says so on its PASS line.
TEST(ConformanceChecker, APassThatHeldTriviallySaysWhy) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("none"));
  EXPECT_TRUE(report.all_passed()) << lds::format_report(report);
  const lds::ConformanceCheck* cordon = report.find("rank_honors_cordon");
  ASSERT_NE(cordon, nullptr);
  EXPECT_FALSE(cordon->skipped);
  EXPECT_EQ(cordon->detail,
            "the plugin does not declare LDS_CAP_HONORS_CORDON, so it may rank cordoned "
            "directories.");
  EXPECT_NE(lds::format_report(report).find(
                "PASS  rank_honors_cordon: the plugin does not declare LDS_CAP_HONORS_CORDON"),
            std::string::npos);
  // Its placed exists and was called: a plain pass.
  EXPECT_EQ(report.find("placed")->detail, "");
  EXPECT_EQ(report.find("rank_purpose_keeps_state")->detail, "");
}

// Two new instances that place differently choose by something the checker cannot hold still, so
// the purposes are not blamed for it.
TEST(ConformanceChecker, DoesNotBlameThePurposesForAnswersThatVaryOnTheirOwn) {
  const lds::ConformanceReport report = lds::run_conformance(faulty_plugin("not_deterministic"));
  const lds::ConformanceCheck* check = report.find("rank_purpose_keeps_state");
  ASSERT_NE(check, nullptr);
  EXPECT_TRUE(check->passed);
  EXPECT_TRUE(check->skipped);
  EXPECT_TRUE(check->detail.starts_with(
      "the plugin's placements vary on their own: two new instances answered LDS_RANK_PLACE call "
      "1 of 12, on candidate set 4 (5 directories), with order ["))
      << check->detail;
  EXPECT_TRUE(
      check->detail.ends_with(", so whether the other purposes change them cannot be told."))
      << check->detail;
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
                      ": 5 passed, 1 failed, 16 skipped\n"),
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
  EXPECT_NE(text.find("ABI: the plugin was built for 0.2, and tested by a host of ABI 1.2\n"),
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
                      ": 2 passed, 1 failed, 19 skipped\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("Result: FAIL\n"), std::string::npos) << text;
  // Without an entry point there is no descriptor to say which ABI the plugin was built for.
  EXPECT_NE(text.find("ABI: the plugin was built for an unknown version, and tested by a host of "
                      "ABI 1.2\n"),
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
