// abi_compat_test.cpp: ABI 1.2 keeps the promise of the header both ways. Plugins built from the
// frozen 1.0 and 1.1 headers and from this one pass the checker playing a host of each minor, and
// load, place and hot-swap on this 1.2 host; a plugin that needs minor 1 refuses a 1.0 host
// cleanly, reported in one sentence.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <stop_token>
#include <string>
#include <thread>
#include <vector>

#include "conformance/conformance.h"
#include "storage/log_manager.h"
#include "strategy/strategy_plugin.h"
#include "strategy/strategy_slot.h"
#include "three_disks.h"
#include <lds/logdir_strategy.h>

namespace lds {
namespace {

namespace fs = std::filesystem;

const fs::path kCompat = LDS_COMPAT_PLUGIN_DIR;
const fs::path kV10 = kCompat / "v1_0";
const fs::path kV11 = kCompat / "v1_1";
const fs::path kV12 = kCompat / "v1_2";

fs::path shipped_plugin_dir() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  return dir ? fs::path(dir) : fs::path("plugins");
}

std::string failures(const ConformanceReport& report) { return format_report(report); }

std::shared_ptr<const LoadedStrategy> load(const LogManager& logs, const fs::path& dir,
                                           const std::string& name) {
  StrategyLoadSpec spec;
  spec.plugin_dir = dir;
  spec.name = name;
  return logs.load_strategy(spec);
}

// One plugin binary of the matrix: where it lies, the ABI it was built for, and the strategy name.
struct CompatPlugin {
  fs::path file;
  std::string abi;
  std::string name;
};

void PrintTo(const CompatPlugin& plugin, std::ostream* out) { *out << plugin.file.string(); }

std::vector<CompatPlugin> compat_plugins() {
  return {{kV10 / "liblds_most_free.so", "1.0", "most_free"},
          {kV11 / "liblds_most_free.so", "1.1", "most_free"},
          {kV11 / "liblds_needs_rates.so", "1.1", "needs_rates"},
          {kV12 / "liblds_most_free.so", "1.2", "most_free"},
          {kV12 / "liblds_round_robin.so", "1.2", "round_robin"},
          {kV12 / "liblds_recent_placements.so", "1.2", "recent_placements"},
          {shipped_plugin_dir() / "liblds_partition.so", "1.2", "partition"},
          {shipped_plugin_dir() / "liblds_size.so", "1.2", "size"},
          {shipped_plugin_dir() / "liblds_cordon.so", "1.2", "cordon"},
          {fs::path(LDS_C_PLUGIN_FILE), "1.2", "c_example"}};
}

// {1.0, 1.1, 1.2 plugin} x {1.0, 1.1, 1.2 host}, as the checker plays each host: every plugin
// passes every check, except needs_rates on a 1.0 host, which it refuses (RequiresMinor1 below).
// A host older than the plugin hands it structs of exactly the older size, each its own heap
// block, so a later field read without LDS_HAS_FIELD or LDS_RANK_ARGS_HAVE_PURPOSE is a read
// past the block, which the Valgrind run of this suite (abi_older_host_valgrind) and the ASan
// build report.
class CompatMatrix : public testing::TestWithParam<std::tuple<CompatPlugin, uint32_t>> {};

TEST_P(CompatMatrix, PassesTheCheckerOfThatHost) {
  const auto& [plugin, host_minor] = GetParam();
  ConformanceOptions options;
  options.host_abi_minor = host_minor;
  const ConformanceReport report = run_conformance(plugin.file, options, nullptr);
  if (plugin.name == "needs_rates" && host_minor == 0) {
    EXPECT_FALSE(report.find("version_handshake")->passed) << "it needs minor 1";
    return;
  }
  EXPECT_TRUE(report.all_passed()) << failures(report);
  EXPECT_EQ(report.host_abi, "1." + std::to_string(host_minor));
  EXPECT_EQ(report.plugin_abi, plugin.abi);
}

INSTANTIATE_TEST_SUITE_P(Abi, CompatMatrix,
                         testing::Combine(testing::ValuesIn(compat_plugins()),
                                          testing::Values(0u, 1u, 2u)),
                         [](const testing::TestParamInfo<std::tuple<CompatPlugin, uint32_t>>& p) {
                           const CompatPlugin& plugin = std::get<0>(p.param);
                           std::string abi = plugin.abi;
                           std::replace(abi.begin(), abi.end(), '.', '_');
                           return plugin.name + "_v" + abi + "_on_host_1_" +
                                  std::to_string(std::get<1>(p.param));
                         });

// On this 1.2 host every plugin of the matrix loads, places, and is hot-swapped in and out while
// placements run, and every answer of every generation is a valid ranking.
TEST(CompatOnThisHost, EveryPluginLoadsPlacesAndHotSwaps) {
  StrategySlot slot;
  const auto owned = test::three_disk_logs(slot, {"/compat/a", "/compat/b", "/compat/c"});
  LogManager& logs = *owned;

  slot.publish(load(logs, kV10, "most_free"));
  const PlacementResult first = logs.create_partition("t", 0, 100'000'000);
  EXPECT_EQ(first.strategy, "most_free");
  EXPECT_FALSE(first.fell_back);
  EXPECT_EQ(first.log_dir, "/compat/c") << "most free bytes: the 4 GB disk";

  std::atomic<int> placed{0};
  std::atomic<int> fell_back{0};
  // A jthread: stopped and joined however the test ends.
  std::jthread placer([&](std::stop_token stop) {
    for (int p = 1; !stop.stop_requested(); ++p) {
      const PlacementResult r = logs.create_partition("swapping", p, 1'000);
      if (r.fell_back) fell_back.fetch_add(1);
      placed.fetch_add(1);
    }
  });
  const std::vector<CompatPlugin> plugins = compat_plugins();
  for (int round = 0; round < 3; ++round) {
    for (size_t i = 0; i < plugins.size(); ++i) {
      slot.publish(load(logs, plugins[i].file.parent_path(), plugins[i].name));
      const PlacementResult r =
          logs.create_partition("each" + std::to_string(round), static_cast<int32_t>(i), 1'000);
      EXPECT_EQ(r.strategy, plugins[i].name) << plugins[i].file;
      EXPECT_FALSE(r.fell_back) << plugins[i].file;
    }
  }
  while (placed.load() < 50) std::this_thread::yield();
  placer.request_stop();
  placer.join();
  EXPECT_EQ(fell_back.load(), 0) << "every answer of every generation was a valid ranking";
}

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
  const auto owned = test::three_disk_logs(slot, {"/compat/a", "/compat/b"});
  LogManager& logs = *owned;
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
  const ConformanceReport report = run_conformance(kV12 / "liblds_round_robin.so");
  EXPECT_TRUE(report.all_passed()) << failures(report);

  StrategySlot slot;
  const auto owned = test::three_disk_logs(slot, {"/compat/a", "/compat/b", "/compat/c"});
  LogManager& logs = *owned;
  logs.set_cordoned([](const fs::path& dir) { return dir == "/compat/b"; });
  slot.publish(load(logs, kV12, "round_robin"));
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
