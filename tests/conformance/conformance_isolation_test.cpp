// conformance_isolation_test.cpp: the checker in a child process: a plugin that exits, aborts,
// crashes or hangs fails the check it was in, within the timeout, and `lds-host check-plugin`
// refuses it; a good plugin gets the same report as in-process.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "conformance/conformance.h"
#include "conformance/isolated_run.h"
#include "faulty_plugins.h"
#include <lds/logdir_strategy.h>

namespace {

using lds::test::check_index;
using lds::test::faulty_plugin;

namespace fs = std::filesystem;
using std::chrono::milliseconds;

// Short, so a hanging plugin costs the suite little; still far above what a check takes here.
constexpr milliseconds kShortTimeout{2000};
// For plugins that finish: only a stalled machine could reach it.
constexpr milliseconds kGenerousTimeout{60000};

// Every child the checker started has been reaped: this process has no children left.
void expect_no_children() {
  errno = 0;
  EXPECT_EQ(::waitpid(-1, nullptr, WNOHANG), -1) << "a child process is left over";
  EXPECT_EQ(errno, ECHILD);
}

struct ProcessFault {
  std::string kind;    // liblds_fault_<kind>.so
  std::string check;   // the check the plugin was in when it ended or stalled the child
  std::string phrase;  // must appear in that check's detail
  bool hangs = false;  // reaches the timeout instead of ending the child
};

void PrintTo(const ProcessFault& fault, std::ostream* out) { *out << fault.kind; }

class ProcessFaultyPlugin : public testing::TestWithParam<ProcessFault> {};

TEST_P(ProcessFaultyPlugin, FailsTheRunningCheckAndSkipsTheRest) {
  const ProcessFault& fault = GetParam();
  const auto start = std::chrono::steady_clock::now();
  const lds::ConformanceReport report =
      lds::run_conformance_isolated(faulty_plugin(fault.kind), kShortTimeout);
  const auto elapsed = std::chrono::steady_clock::now() - start;
  expect_no_children();

  if (fault.hangs) {
    EXPECT_GE(elapsed, kShortTimeout);
    EXPECT_LT(elapsed, kShortTimeout + milliseconds(5000));
  } else {
    EXPECT_LT(elapsed, kShortTimeout) << "an ended child must not wait for the timeout";
  }
  lds::test::expect_fails_at(report, fault.kind, fault.check, fault.phrase);
  const size_t running = check_index(fault.check);
  for (size_t i = running + 1; i < report.checks.size(); ++i) {
    const lds::ConformanceCheck& later = report.checks[i];
    EXPECT_FALSE(later.passed) << later.name;
    EXPECT_TRUE(later.skipped) << later.name << ": " << later.detail;
    EXPECT_NE(later.detail.find(fault.check), std::string::npos) << later.detail;
  }
  EXPECT_EQ(report.failed_count(), 1u) << lds::format_report(report);
  EXPECT_EQ(report.skipped_count(), report.checks.size() - running - 1);
  // The child read the descriptor before the plugin ended it, and said so at once.
  EXPECT_EQ(report.plugin_abi, std::to_string(LDS_ABI_MAJOR) + "." + std::to_string(LDS_ABI_MINOR));
}

INSTANTIATE_TEST_SUITE_P(
    Faults, ProcessFaultyPlugin,
    testing::Values(
        ProcessFault{"exits_in_create", "create_without_options",
                     "the plugin ended the checking process with exit(0) during this check"},
        // The helper process it leaves behind keeps the report pipe open for seconds: the
        // verdict must not wait for the pipe to close.
        ProcessFault{"forks_in_create", "create_without_options",
                     "the plugin ended the checking process with exit(0) during this check"},
        ProcessFault{"aborts_in_create", "create_without_options",
                     "the checking process was killed by signal " + std::to_string(SIGABRT) +
                         " (Aborted) during this check"},
        ProcessFault{"crashes_in_rank", "rank_empty_no_eligible_dir",
                     "the checking process was killed by signal " + std::to_string(SIGSEGV) +
                         " (Segmentation fault) during this check"},
        // The checker's error buffers end at a guard page: a plugin that writes past error_cap
        // faults in the check that called it, which names the overrun, instead of corrupting
        // the checker's heap (`free(): invalid next size` in a later check).
        ProcessFault{"error_overrun", "create_error_truncation",
                     "liblds_fault_error_overrun.so: the plugin wrote past the end of its error "
                     "buffer (error_cap 8) during this check, and the checking process was "
                     "killed by signal " +
                         std::to_string(SIGSEGV) + " (Segmentation fault)."},
        // Three bytes too many, past a buffer of 8.
        ProcessFault{"rank_error_overrun", "rank_error_truncation",
                     "wrote past the end of its error buffer (error_cap 8) during this check"},
        ProcessFault{"hangs_in_rank", "rank_empty_no_eligible_dir",
                     "the check did not return within 2 s, so the checking process was killed",
                     true},
        // ABI 1.2's checks are each one step of the child's report too.
        ProcessFault{"crashes_in_placed", "placed",
                     "the checking process was killed by signal " + std::to_string(SIGSEGV) +
                         " (Segmentation fault) during this check"},
        ProcessFault{"crashes_on_move", "rank_scores",
                     "the checking process was killed by signal " + std::to_string(SIGSEGV) +
                         " (Segmentation fault) during this check"},
        ProcessFault{"hangs_on_reserved_purpose", "rank_purpose_keeps_state",
                     "the check did not return within 2 s, so the checking process was killed",
                     true}),
    [](const testing::TestParamInfo<ProcessFault>& p) { return p.param.kind; });

TEST(IsolatedConformance, NamesTheCheckItSkipsFor) {
  const lds::ConformanceReport report =
      lds::run_conformance_isolated(faulty_plugin("hangs_in_rank"), milliseconds(500));
  expect_no_children();
  const lds::ConformanceCheck* next = report.find("rank_error_truncation");
  ASSERT_NE(next, nullptr);
  EXPECT_TRUE(next->skipped);
  EXPECT_EQ(next->detail, "rank_empty_no_eligible_dir did not return within 500 ms.");
}

// Plugins that keep to the contract, or break it without ending the process, get exactly the
// in-process report: every check, its verdict and its detail cross the pipe unchanged.
class SameReportAsInProcess : public testing::TestWithParam<std::string> {};

TEST_P(SameReportAsInProcess, ReportsEveryCheckAsRunConformanceDoes) {
  const fs::path file = GetParam();
  const lds::ConformanceReport isolated = lds::run_conformance_isolated(file, kGenerousTimeout);
  expect_no_children();
  const lds::ConformanceReport in_process = lds::run_conformance(file);
  EXPECT_EQ(isolated.file, in_process.file);
  ASSERT_EQ(isolated.checks.size(), in_process.checks.size());
  for (size_t i = 0; i < isolated.checks.size(); ++i) {
    EXPECT_EQ(isolated.checks[i].name, in_process.checks[i].name);
    EXPECT_EQ(isolated.checks[i].passed, in_process.checks[i].passed) << isolated.checks[i].name;
    EXPECT_EQ(isolated.checks[i].skipped, in_process.checks[i].skipped) << isolated.checks[i].name;
    EXPECT_EQ(isolated.checks[i].detail, in_process.checks[i].detail) << isolated.checks[i].name;
  }
  EXPECT_EQ(lds::format_report(isolated), lds::format_report(in_process));
}

INSTANTIATE_TEST_SUITE_P(Plugins, SameReportAsInProcess,
                         testing::Values(std::string(LDS_PARTITION_PLUGIN_FILE),
                                         std::string(LDS_C_PLUGIN_FILE),
                                         faulty_plugin("none").string(),
                                         faulty_plugin("no_entry_point").string(),
                                         faulty_plugin("duplicate_index").string(),
                                         faulty_plugin("does_not_exist").string()),
                         [](const testing::TestParamInfo<std::string>& p) {
                           std::string label = fs::path(p.param).stem().string();
                           for (char& c : label) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return label;
                         });

// A pass with a note (no LDS_CAP_HONORS_CORDON) and a check that does not apply to an older host
// cross the pipe as they are: the same verdicts, details and result as in-process.
class SameReportOnEachHost : public testing::TestWithParam<uint32_t> {};

TEST_P(SameReportOnEachHost, KeepsNotesAndChecksThatDoNotApply) {
  lds::ConformanceOptions options;
  options.host_abi_minor = GetParam();
  const fs::path file = faulty_plugin("none");
  const lds::ConformanceReport isolated =
      lds::run_conformance_isolated(file, kGenerousTimeout, options);
  expect_no_children();
  const lds::ConformanceReport in_process = lds::run_conformance(file, options, nullptr);
  ASSERT_EQ(isolated.checks.size(), in_process.checks.size());
  for (size_t i = 0; i < isolated.checks.size(); ++i) {
    EXPECT_EQ(isolated.checks[i].passed, in_process.checks[i].passed) << isolated.checks[i].name;
    EXPECT_EQ(isolated.checks[i].skipped, in_process.checks[i].skipped) << isolated.checks[i].name;
    EXPECT_EQ(isolated.checks[i].detail, in_process.checks[i].detail) << isolated.checks[i].name;
  }
  EXPECT_TRUE(isolated.all_passed()) << lds::format_report(isolated);
  EXPECT_EQ(isolated.host_abi, "1." + std::to_string(GetParam()));
  EXPECT_EQ(lds::format_report(isolated), lds::format_report(in_process));
}

INSTANTIATE_TEST_SUITE_P(Hosts, SameReportOnEachHost, testing::Values(0u, 1u, 2u),
                         [](const testing::TestParamInfo<uint32_t>& p) {
                           return "abi_1_" + std::to_string(p.param);
                         });

TEST(IsolatedConformance, KeepsNewlinesAndBackslashesInDetails) {
  // The file name is part of every failure's detail; these characters must survive the line
  // protocol between the child and the parent.
  const fs::path dir =
      fs::temp_directory_path() / ("lds-conformance-isolated-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const fs::path file = dir / "liblds_two\nlines\nand\\.so";
  std::ofstream(file) << "not an ELF file\n";
  const lds::ConformanceReport isolated = lds::run_conformance_isolated(file, kGenerousTimeout);
  const lds::ConformanceReport in_process = lds::run_conformance(file);
  fs::remove_all(dir);
  expect_no_children();

  ASSERT_FALSE(isolated.checks.empty());
  EXPECT_NE(isolated.checks[0].detail.find("two\nlines\nand\\.so: does not load"),
            std::string::npos)
      << isolated.checks[0].detail;
  EXPECT_EQ(lds::format_report(isolated), lds::format_report(in_process));
}

TEST(IsolatedConformance, GoodPluginsPass) {
  for (const char* file : {LDS_PARTITION_PLUGIN_FILE, LDS_C_PLUGIN_FILE}) {
    const lds::ConformanceReport report = lds::run_conformance_isolated(file, kGenerousTimeout);
    EXPECT_TRUE(report.all_passed()) << lds::format_report(report);
  }
  expect_no_children();
}

// What `lds-host <args>` printed on stdout, and its exit code (-1 if it did not exit normally).
struct HostRun {
  std::string out;
  int exit_code = -1;
};

HostRun run_host(const std::string& args) {
  HostRun run;
  const std::string command = std::string("'") + LDS_HOST_BINARY + "' " + args;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    ADD_FAILURE() << "cannot start " << command;
    return run;
  }
  char buffer[4096];
  for (size_t got; (got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0;)
    run.out.append(buffer, got);
  const int status = ::pclose(pipe);
  if (status != -1 && WIFEXITED(status)) run.exit_code = WEXITSTATUS(status);
  return run;
}

std::string quoted(const fs::path& file) { return "'" + file.string() + "'"; }

TEST(CheckPluginCommand, RefusesAPluginThatExitsInCreate) {
  const HostRun run =
      run_host("check-plugin --timeout 1 " + quoted(faulty_plugin("exits_in_create")));
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find("FAIL  create_without_options: liblds_fault_exits_in_create.so: the "
                         "plugin ended the checking process with exit(0) during this check."),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("SKIP  destroy: the checking process ended during "
                         "create_without_options.\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find(": 5 passed, 1 failed, 16 skipped\n"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Result: FAIL\n"), std::string::npos) << run.out;
  expect_no_children();
}

// The plugin's ABI comes from its descriptor, which the child reads before create and rank can
// end it: a crash does not turn it into "an unknown version".
TEST(CheckPluginCommand, NamesThePluginsAbiAfterItCrashes) {
  const HostRun run =
      run_host("check-plugin --timeout 5 " + quoted(faulty_plugin("crashes_in_rank")));
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find("FAIL  rank_empty_no_eligible_dir: liblds_fault_crashes_in_rank.so: the "
                         "checking process was killed by signal " +
                         std::to_string(SIGSEGV) + " (Segmentation fault) during this check.\n"),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("ABI: the plugin was built for 1.2, and tested by a host of ABI 1.2\n"),
            std::string::npos)
      << run.out;
  EXPECT_EQ(run.out.find("an unknown version"), std::string::npos) << run.out;
  expect_no_children();
}

TEST(CheckPluginCommand, RefusesAPluginThatHangsInRank) {
  const auto start = std::chrono::steady_clock::now();
  const HostRun run =
      run_host("check-plugin --timeout 1 " + quoted(faulty_plugin("hangs_in_rank")));
  EXPECT_LT(std::chrono::steady_clock::now() - start, milliseconds(6000));
  EXPECT_EQ(run.exit_code, 1) << run.out;
  EXPECT_NE(run.out.find("FAIL  rank_empty_no_eligible_dir: liblds_fault_hangs_in_rank.so: the "
                         "check did not return within 1 s, so the checking process was killed."),
            std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("Result: FAIL\n"), std::string::npos) << run.out;
  expect_no_children();
}

TEST(CheckPluginCommand, PassesAGoodPlugin) {
  const HostRun run = run_host("check-plugin " + quoted(LDS_PARTITION_PLUGIN_FILE));
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("Result: PASS\n"), std::string::npos) << run.out;
}

// --option creates the instance the rank checks use with those options: the example's good value
// passes every check, a bad one fails create_with_given_options with the plugin's own sentence.
TEST(CheckPluginCommand, OptionsAreGivenToCreate) {
  const HostRun good =
      run_host("check-plugin --option min.free.bytes=4096 " + quoted(LDS_EXAMPLE_PLUGIN_FILE));
  EXPECT_EQ(good.exit_code, 0) << good.out;
  EXPECT_NE(good.out.find("PASS  create_with_given_options\n"), std::string::npos) << good.out;
  const HostRun bad =
      run_host("check-plugin --option min.free.bytes=lots " + quoted(LDS_EXAMPLE_PLUGIN_FILE));
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_NE(bad.out.find("FAIL  create_with_given_options: liblds_most_free.so: create with "
                         "min.free.bytes=lots returned status 1 with error"),
            std::string::npos)
      << bad.out;
  const HostRun malformed =
      run_host("check-plugin --option nokey " + quoted(LDS_EXAMPLE_PLUGIN_FILE));
  EXPECT_EQ(malformed.exit_code, 2) << malformed.out;

  // Repeated, every option reaches create: the second one is the example's unknown key.
  const HostRun two = run_host("check-plugin --option min.free.bytes=4096 --option colour=blue " +
                               quoted(LDS_EXAMPLE_PLUGIN_FILE));
  EXPECT_EQ(two.exit_code, 1) << two.out;
  EXPECT_NE(two.out.find("most_free: unknown option 'colour' (value 'blue')"), std::string::npos)
      << two.out;
}

TEST(CheckPluginCommand, HelpMentionsTheTimeoutAndTheHostAbis) {
  const HostRun run = run_host("check-plugin --help");
  EXPECT_EQ(run.exit_code, 0) << run.out;
  EXPECT_NE(run.out.find("--timeout"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("1.2 (this host's), 1.1 or 1.0"), std::string::npos) << run.out;
}

// --host-abi plays a host of each minor of ABI 1, this build's by default; the checks that do not
// apply to an older host are skipped and the plugin still passes.
TEST(CheckPluginCommand, PlaysAHostOfEachMinor) {
  const HostRun plain = run_host("check-plugin " + quoted(faulty_plugin("none")));
  EXPECT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_NE(plain.out.find("tested by a host of ABI 1.2\n"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find(": 22 passed, 0 failed, 0 skipped\n"), std::string::npos) << plain.out;
  for (const std::string abi : {"1.2", "1.1", "1.0"}) {
    const HostRun run =
        run_host("check-plugin --host-abi " + abi + " " + quoted(faulty_plugin("none")));
    EXPECT_EQ(run.exit_code, 0) << run.out;
    EXPECT_NE(run.out.find("tested by a host of ABI " + abi + "\n"), std::string::npos) << run.out;
    EXPECT_NE(run.out.find("Result: PASS\n"), std::string::npos) << run.out;
    if (abi != "1.2") {
      EXPECT_NE(run.out.find("SKIP  rank_scores: a host of ABI " + abi + " passes no scores.\n"),
                std::string::npos)
          << run.out;
    }
  }
  // The 1.1 host finds what only it can: purpose read where that host left its padding.
  const HostRun poisoned =
      run_host("check-plugin --host-abi 1.1 " + quoted(faulty_plugin("trusts_purpose")));
  EXPECT_EQ(poisoned.exit_code, 1) << poisoned.out;
  EXPECT_NE(poisoned.out.find("FAIL  rank_empty_no_eligible_dir: liblds_fault_trusts_purpose.so: "
                              "rank returned status 4"),
            std::string::npos)
      << poisoned.out;
  const HostRun unknown = run_host("check-plugin --host-abi 1.3 " + quoted(faulty_plugin("none")));
  EXPECT_EQ(unknown.exit_code, 2) << unknown.out;
}

}  // namespace
