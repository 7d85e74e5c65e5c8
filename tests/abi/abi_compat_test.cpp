// abi_compat_test.cpp: ABI 1.1 keeps the promise of the header both ways. A plugin binary built
// from the frozen 1.0 header loads, passes the checker, places and hot-swaps on this 1.1 host; the
// 1.1 plugins pass every check against a host that sends 1.0-sized structs; and a plugin that needs
// minor 1 refuses a 1.0 host cleanly, reported in one sentence.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "conformance/conformance.h"
#include "core/disk_probe.h"
#include "core/log_manager.h"
#include "core/strategy_plugin.h"
#include "core/strategy_slot.h"
#include <lds/logdir_strategy.h>

namespace lds {
namespace {

namespace fs = std::filesystem;

const fs::path kCompat = LDS_COMPAT_PLUGIN_DIR;
const fs::path kV10 = kCompat / "v1_0";
const fs::path kV11 = kCompat / "v1_1";

fs::path shipped_plugin_dir() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  return dir ? fs::path(dir) : fs::path("plugins");
}

std::string failures(const ConformanceReport& report) { return format_report(report); }

// Three disks of 1, 2 and 4 GB, a quarter used; no real files (the LogManager is in memory).
class ThreeDisks final : public DiskProbe {
 public:
  DiskSpace read(const fs::path& dir) const override {
    const uint64_t gb = 1'000'000'000;
    const uint64_t total = dir.filename() == "a" ? gb : dir.filename() == "b" ? 2 * gb : 4 * gb;
    return {true, total, total / 4 * 3};
  }
};

std::shared_ptr<const LoadedStrategy> load(const LogManager& logs, const fs::path& dir,
                                           const std::string& name) {
  StrategyLoadSpec spec;
  spec.plugin_dir = dir;
  spec.name = name;
  return logs.load_strategy(spec);
}

TEST(Abi10PluginBinary, PassesEveryCheckOfThe11Checker) {
  const ConformanceReport report = run_conformance(kV10 / "liblds_most_free.so");
  EXPECT_TRUE(report.all_passed()) << failures(report);
  EXPECT_EQ(report.plugin_abi, "1.0");
  EXPECT_EQ(report.host_abi, "1.1");
}

TEST(Abi10PluginBinary, TheSameSourceBuiltAgainst11SaysSo) {
  const ConformanceReport report = run_conformance(kV11 / "liblds_most_free.so");
  EXPECT_TRUE(report.all_passed()) << failures(report);
  EXPECT_EQ(report.plugin_abi, "1.1");
}

TEST(Abi10PluginBinary, LoadsPlacesAndHotSwapsOnThe11Host) {
  StrategySlot slot;
  LogManager::Options options;
  options.log_dirs = {"/compat/a", "/compat/b", "/compat/c"};
  options.in_memory = true;
  LogManager logs(options, std::make_shared<ThreeDisks>(), slot);
  logs.startup();

  const auto old_binary = load(logs, kV10, "most_free");
  slot.publish(old_binary);
  PlacementResult first = logs.create_partition("t", 0, 100'000'000);
  EXPECT_EQ(first.strategy, "most_free");
  EXPECT_FALSE(first.fell_back);
  EXPECT_EQ(first.log_dir, "/compat/c") << "most free bytes: the 4 GB disk";

  // Placements run while the active strategy swaps between the 1.0 binary and 1.1 plugins.
  std::atomic<bool> stop{false};
  std::atomic<int> placed{0};
  std::atomic<int> fell_back{0};
  std::thread placer([&] {
    for (int p = 1; !stop.load(); ++p) {
      const PlacementResult r = logs.create_partition("swapping", p, 1'000);
      if (r.fell_back) fell_back.fetch_add(1);
      placed.fetch_add(1);
    }
  });
  for (int i = 0; i < 20; ++i) {
    slot.publish(
        load(logs, i % 2 == 0 ? shipped_plugin_dir() : kV10, i % 2 == 0 ? "size" : "most_free"));
    slot.publish(load(logs, kV11, "most_free"));
  }
  slot.publish(load(logs, kV10, "most_free"));
  while (placed.load() < 50) std::this_thread::yield();
  stop.store(true);
  placer.join();
  EXPECT_EQ(fell_back.load(), 0) << "every answer of every generation was a valid ranking";
  const PlacementResult last = logs.create_partition("t", 1, 100'000'000);
  EXPECT_EQ(last.strategy, "most_free");
  EXPECT_FALSE(last.fell_back);
}

// The 1.1 plugins against a host that sends 1.0-sized lds_dir and lds_request blocks, each
// allocated at exactly that size: reading a 1.1 field without LDS_HAS_FIELD reads past it, which
// the Valgrind run of this suite (abi_v1_0_host_valgrind) and the ASan build report.
class Abi11PluginsUnderAnAbi10Host : public testing::TestWithParam<std::string> {};

TEST_P(Abi11PluginsUnderAnAbi10Host, PassEveryCheck) {
  ConformanceOptions options;
  options.host_abi_minor = 0;
  const ConformanceReport report = run_conformance(GetParam(), options, nullptr);
  EXPECT_TRUE(report.all_passed()) << failures(report);
  EXPECT_EQ(report.host_abi, "1.0");
  EXPECT_EQ(report.plugin_abi, "1.1");
}

INSTANTIATE_TEST_SUITE_P(Plugins, Abi11PluginsUnderAnAbi10Host,
                         testing::Values((shipped_plugin_dir() / "liblds_partition.so").string(),
                                         (shipped_plugin_dir() / "liblds_size.so").string(),
                                         (shipped_plugin_dir() / "liblds_cordon.so").string(),
                                         (kV11 / "liblds_round_robin.so").string(),
                                         std::string(LDS_C_PLUGIN_FILE)),
                         [](const testing::TestParamInfo<std::string>& p) {
                           return fs::path(p.param).stem().string().substr(
                               std::string("liblds_").size());
                         });

TEST(RequiresMinor1, RefusesAnAbi10HostInOneSentence) {
  ConformanceOptions options;
  options.host_abi_minor = 0;
  const ConformanceReport report =
      run_conformance(kV11 / "liblds_needs_rates.so", options, nullptr);
  const ConformanceCheck* handshake = report.find("version_handshake");
  ASSERT_NE(handshake, nullptr);
  EXPECT_FALSE(handshake->passed);
  EXPECT_EQ(handshake->detail,
            "liblds_needs_rates.so: refused a host of ABI 1.0: lds_strategy_get(1, 0) returned "
            "NULL, so it needs a later minor of ABI 1.");
  EXPECT_TRUE(report.find("loads")->passed);
  EXPECT_TRUE(report.find("exports_entry_point")->passed);
  EXPECT_TRUE(report.find("rank_valid_orders")->skipped);
  EXPECT_TRUE(
      report.find("rank_valid_orders")->detail.starts_with("there is no descriptor for ABI 1.0"))
      << report.find("rank_valid_orders")->detail;
}

TEST(RequiresMinor1, ServesThe11HostAndItsChecker) {
  const ConformanceReport report = run_conformance(kV11 / "liblds_needs_rates.so");
  EXPECT_TRUE(report.all_passed()) << failures(report);

  StrategySlot slot;
  LogManager::Options options;
  options.log_dirs = {"/compat/a", "/compat/b"};
  options.in_memory = true;
  LogManager logs(options, std::make_shared<ThreeDisks>(), slot);
  logs.startup();
  slot.publish(load(logs, kV11, "needs_rates"));
  EXPECT_EQ(logs.create_partition("t", 0).strategy, "needs_rates");
}

// `lds-host check-plugin --host-abi 1.0` says the same, and fails.
TEST(RequiresMinor1, CheckPluginReportsTheRefusal) {
  const std::string command = std::string(LDS_HOST_BINARY) + " check-plugin --host-abi 1.0 " +
                              (kV11 / "liblds_needs_rates.so").string() + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  std::array<char, 4096> buffer{};
  while (std::fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = ::pclose(pipe);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) != 0) << output;
  EXPECT_NE(output.find("FAIL  version_handshake: liblds_needs_rates.so: refused a host of ABI "
                        "1.0: lds_strategy_get(1, 0) returned NULL, so it needs a later minor "
                        "of ABI 1.\n"),
            std::string::npos)
      << output;
  EXPECT_NE(output.find("ABI: the plugin was built for an unknown version, and tested by a host "
                        "of ABI 1.0\n"),
            std::string::npos)
      << output;
}

// The stateful example: each call starts one directory further along, never at a cordoned one,
// and it passes the checker because it does not claim determinism.
TEST(RoundRobinExample, RotatesSkipsCordonsAndPassesTheChecker) {
  const ConformanceReport report = run_conformance(kV11 / "liblds_round_robin.so");
  EXPECT_TRUE(report.all_passed()) << failures(report);

  StrategySlot slot;
  LogManager::Options options;
  options.log_dirs = {"/compat/a", "/compat/b", "/compat/c"};
  options.in_memory = true;
  LogManager logs(options, std::make_shared<ThreeDisks>(), slot);
  logs.startup();
  logs.set_cordoned([](const fs::path& dir) { return dir == "/compat/b"; });
  slot.publish(load(logs, kV11, "round_robin"));
  std::vector<std::string> placed;
  for (int p = 0; p < 6; ++p) placed.push_back(logs.create_partition("rr", p).log_dir);
  for (const std::string& dir : placed) EXPECT_NE(dir, "/compat/b");
  // Without the cordon it would visit a, b, c in turn: with b cordoned, a and c alternate...
  // mostly: the turn that starts at b goes to c. Each of a and c takes at least two of six.
  EXPECT_GE(std::count(placed.begin(), placed.end(), "/compat/a"), 2);
  EXPECT_GE(std::count(placed.begin(), placed.end(), "/compat/c"), 2);
}

}  // namespace
}  // namespace lds
