// hot_swap_test.cpp: strategies swapped live while placements run: none fails, none sees stale
// code.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "broker/broker.h"
#include "broker_toml.h"
#include "host_test_support.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::FakeDiskProbe;
using test::TempDir;

// A broker on three temp dirs whose plugin.dir is a private folder the test can rewrite.
class HotSwapTest : public ::testing::Test {
 protected:
  void SetUp() override {
    plugins_ = tmp_.path() / "plugins";
    fs::create_directory(plugins_);
    ::chmod(plugins_.c_str(), 0755);
    for (const char* name : {"partition", "size", "cordon"}) {
      const std::string file = std::string("liblds_") + name + ".so";
      fs::copy_file(test::plugin_dir() / file, plugins_ / file);
    }
    install_swaptest(LDS_SWAP_V1_FILE);
    config_ = tmp_.path() / "broker.toml";
    test::BrokerToml().log_dirs({"d1", "d2", "d3"}).plugin_dir("plugins").write(config_);
    for (const char* d : {"d1", "d2", "d3"}) {
      probe_->set(fs::weakly_canonical(tmp_.path() / d), 1000000, 500000);
    }
    broker_ = std::make_unique<Broker>(config_, probe_);
    broker_->start();
  }

  // Replaces liblds_swaptest.so the way a build or a package manager does: write aside, rename
  // over.
  void install_swaptest(const char* build) {
    const fs::path tmp = plugins_ / ".liblds_swaptest.so.new";
    fs::copy_file(build, tmp, fs::copy_options::overwrite_existing);
    fs::rename(tmp, plugins_ / "liblds_swaptest.so");
  }

  void set_strategy(const std::string& name, const std::string& options_key = "",
                    const std::string& options_value = "") {
    std::vector<ConfigAlteration> changes{
        {"log.directory.select.strategy", ConfigAlteration::Op::kSet, name}};
    if (!options_key.empty()) {
      changes.push_back({options_key, ConfigAlteration::Op::kSet, options_value});
    }
    broker_->alter_configs(changes, ConfigChangeSource::kAdminApi);
  }

  std::string refusal(const std::string& name, const std::string& key = "",
                      const std::string& value = "") {
    try {
      set_strategy(name, key, value);
    } catch (const KafkaError& e) {
      EXPECT_EQ(e.code(), ErrorCode::kInvalidConfig);
      return e.what();
    }
    return "accepted";
  }

  TempDir tmp_;
  fs::path plugins_, config_;
  std::shared_ptr<FakeDiskProbe> probe_ = std::make_shared<FakeDiskProbe>();
  std::unique_ptr<Broker> broker_;
};

TEST_F(HotSwapTest, TwoThousandSwapsUnderLoadLoseNoPlacementAndLeaveNothingBehind) {
  // LDS_HOT_SWAPS: fewer swaps for the sanitizer builds (tests/strategy/CMakeLists.txt).
  const char* swaps_env = std::getenv("LDS_HOT_SWAPS");
  const int kSwaps = swaps_env != nullptr ? std::atoi(swaps_env) : 2000;
  std::atomic<bool> stop{false};
  std::atomic<uint64_t> placements{0}, failures{0}, stale{0}, wrong_build{0};
  std::mutex versions_mu;
  std::map<uint64_t, std::string> version_of;  // generation -> swaptest build ("v1"/"v2")

  struct Seen {
    uint64_t generation;
    uint32_t first_dir;
  };
  auto placer = [&](int id, std::vector<Seen>* seen) {
    for (int i = 0; !stop.load(); ++i) {
      const uint64_t before = broker_->slot().current()->generation();
      try {
        PlacementDecision d = broker_->logs().choose("load" + std::to_string(id), i);
        const uint64_t after = broker_->slot().current()->generation();
        if (d.fell_back || d.dirs.empty()) failures++;
        // Generations only grow, so the deciding one was active during the call iff it lies
        // between the generations active at its start and at its end.
        if (d.generation < before || d.generation > after) stale++;
        if (d.strategy() == "swaptest") seen->push_back({d.generation, d.dirs[0]});
      } catch (const std::exception&) {
        failures++;
      }
      placements++;
    }
  };
  std::vector<std::vector<Seen>> seen(4);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) threads.emplace_back(placer, t, &seen[t]);

  const char* cycle[] = {"partition", "size", "cordon", "v1", "v2"};
  for (int s = 0; s < kSwaps; ++s) {
    const std::string step = cycle[s % 5];
    if (step == "v1" || step == "v2") {
      install_swaptest(step == "v1" ? LDS_SWAP_V1_FILE : LDS_SWAP_V2_FILE);
      set_strategy("swaptest");
      StrategyInfo info = broker_->strategy_info();
      ASSERT_EQ(info.version, step);
      std::lock_guard lock(versions_mu);
      version_of[info.generation] = info.version;
    } else {
      set_strategy(step);
      ASSERT_EQ(broker_->strategy_info().name, step);
    }
  }
  stop = true;
  for (auto& t : threads) t.join();

  EXPECT_EQ(failures.load(), 0u);
  EXPECT_EQ(stale.load(), 0u);
  EXPECT_GT(placements.load(), static_cast<uint64_t>(kSwaps));
  EXPECT_EQ(broker_->strategy_info().swaps, static_cast<uint64_t>(kSwaps));
  for (const auto& per_thread : seen) {
    for (const Seen& s : per_thread) {
      const std::string& v = version_of.at(s.generation);
      if (s.first_dir != (v == "v1" ? 0u : 2u)) wrong_build++;
    }
  }
  EXPECT_EQ(wrong_build.load(), 0u) << "a placement ran code of another build than it recorded";

  // After the last swap, every placement uses the last strategy.
  const uint64_t last = broker_->strategy_info().generation;
  for (int i = 0; i < 100; ++i) {
    EXPECT_EQ(broker_->logs().choose("after", i).generation, last);
  }
  EXPECT_EQ(test::mapped_private_copies(), 1) << "only the active strategy stays mapped";
  EXPECT_EQ(test::leftover_private_copies(), 0);
}

TEST_F(HotSwapTest, APluginRebuiltAtTheSamePathIsLoadedAfresh) {
  set_strategy("swaptest");
  EXPECT_EQ(broker_->strategy_info().version, "v1");
  EXPECT_EQ(broker_->logs().choose("t", 0).dirs[0], 0u);
  install_swaptest(LDS_SWAP_V2_FILE);
  set_strategy("swaptest");
  EXPECT_EQ(broker_->strategy_info().version, "v2");
  EXPECT_EQ(broker_->logs().choose("t", 0).dirs[0], 2u);
}

TEST_F(HotSwapTest, SighupReloadsAPluginFileThatChanged) {
  std::ofstream(config_, std::ios::app) << "log.directory.select.strategy = \"swaptest\"\n";
  broker_->reload_file(ConfigChangeSource::kSighup);
  EXPECT_EQ(broker_->strategy_info().version, "v1");
  const uint64_t generation = broker_->strategy_info().generation;
  broker_->reload_file(ConfigChangeSource::kSighup);  // nothing changed: no reload
  EXPECT_EQ(broker_->strategy_info().generation, generation);
  install_swaptest(LDS_SWAP_V2_FILE);
  broker_->reload_file(ConfigChangeSource::kSighup);
  EXPECT_EQ(broker_->strategy_info().version, "v2");
}

TEST_F(HotSwapTest, FailedSwapsLeaveThePreviousStrategyServing) {
  set_strategy("size");
  const StrategyInfo before = broker_->strategy_info();

  std::string missing = refusal("nosuch");
  EXPECT_NE(missing.find("liblds_nosuch.so does not exist"), std::string::npos) << missing;

  std::string rejected = refusal("swaptest", "log.directory.select.swaptest.colour", "blue");
  // The plugin ends its sentence with a period; the host's own is not added to it.
  EXPECT_NE(rejected.find("rejected its options: unknown option or value for strategy swaptest."),
            std::string::npos)
      << rejected;
  EXPECT_EQ(rejected.find(".."), std::string::npos) << rejected;

  std::string invalid = refusal("swaptest", "log.directory.select.swaptest.mode", "invalid");
  EXPECT_NE(invalid.find("invalid ranking in its dry run"), std::string::npos) << invalid;
  EXPECT_NE(invalid.find("appears twice"), std::string::npos) << invalid;

  const StrategyInfo after = broker_->strategy_info();
  EXPECT_EQ(after.name, "size");
  EXPECT_EQ(after.generation, before.generation);
  EXPECT_EQ(after.swaps, before.swaps);
  EXPECT_EQ(broker_->config().strategy, "size");
  EXPECT_EQ(broker_->logs().choose("t", 0).strategy(), "size");
  EXPECT_EQ(test::mapped_private_copies(), 1);
  EXPECT_EQ(test::leftover_private_copies(), 0);
}

TEST_F(HotSwapTest, NeverUnloadKeepsReplacedLibrariesMapped) {
  std::ofstream(config_, std::ios::app) << "plugin.never.unload = true\n";
  broker_ = std::make_unique<Broker>(config_, probe_);
  broker_->start();
  const int before = test::mapped_private_copies();
  set_strategy("size");
  set_strategy("cordon");
  EXPECT_EQ(test::mapped_private_copies(), before + 2);
  EXPECT_EQ(broker_->logs().choose("t", 0).strategy(), "cordon");
}

// Run under Valgrind by CTest (hot_swap_valgrind, LDS_SWAP_CYCLES=1000): each cycle loads a
// strategy, publishes it and unloads the one before.
TEST(HotSwap, SwapCyclesLeaveNothingBehind) {
  const char* env = std::getenv("LDS_SWAP_CYCLES");
  const int cycles = env ? std::atoi(env) : 100;
  const int mapped_before =
      test::mapped_private_copies();  // plugin.never.unload tests retain theirs
  StrategySlot slot;
  lds_dir dirs[3] = {{sizeof(lds_dir), 0, "/a", 100, 50, 0, 2, 0, 0},
                     {sizeof(lds_dir), 0, "/b", 100, 80, 0, 1, 0, 0},
                     {sizeof(lds_dir), 0, "/c", 100, 20, 0, 0, 0, 0}};
  const char* names[] = {"partition", "size", "cordon"};
  uint32_t order[3];
  lds_request request{sizeof(lds_request), 0, "t", 0, 0};
  for (int i = 0; i < cycles; ++i) {
    slot.publish(test::load_plugin(names[i % 3], {}, slot.next_generation(), dirs));
    ASSERT_EQ(slot.rank(request, dirs, order, LDS_RANK_PLACE).status, LDS_OK);
  }
  slot.publish(nullptr);
  EXPECT_EQ(test::mapped_private_copies(), mapped_before);
  EXPECT_EQ(test::leftover_private_copies(), 0);
}

}  // namespace
}  // namespace lds
