// strategy_plugin_test.cpp: what the host checks before it loads a strategy, and how it unloads
// one.
#include "strategy/strategy_plugin.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <numeric>
#include <random>

#include "host_test_support.h"
#include "strategy/abi_rules.h"
#include "strategy/strategy_slot.h"
#include "util/errors.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::plugin_dir;
using test::TempDir;

std::string load_error(const fs::path& dir, const std::string& name,
                       std::vector<std::pair<std::string, std::string>> options = {}) {
  StrategyLoadSpec spec;
  spec.plugin_dir = dir;
  spec.name = name;
  spec.options = std::move(options);
  try {
    LoadedStrategy::load(spec);
  } catch (const PluginError& e) {
    return e.what();
  }
  return "loaded";
}

TEST(StrategyPlugin, RefusesAnInvalidNameBeforeOpeningAnyFile) {
  for (const char* bad : {"../partition", "/etc/passwd", "Size", "", "size.so", "a-b"}) {
    std::string error = load_error(plugin_dir(), bad);
    EXPECT_NE(error.find("must match [a-z0-9_]+"), std::string::npos) << bad << ": " << error;
  }
}

TEST(StrategyPlugin, MissingPluginNamesTheFile) {
  std::string error = load_error(plugin_dir(), "nosuchstrategy");
  EXPECT_NE(error.find((plugin_dir() / "liblds_nosuchstrategy.so").string()), std::string::npos);
  EXPECT_NE(error.find("does not exist"), std::string::npos);
}

TEST(StrategyPlugin, RefusesAPluginDirWritableByOthers) {
  TempDir tmp;
  fs::copy_file(plugin_dir() / "liblds_partition.so", tmp.path() / "liblds_partition.so");
  ::chmod(tmp.path().c_str(), 0777);
  std::string error = load_error(tmp.path(), "partition");
  EXPECT_NE(error.find("writable by group or others"), std::string::npos) << error;
  ::chmod(tmp.path().c_str(), 0755);
  ::chmod((tmp.path() / "liblds_partition.so").c_str(), 0666);
  error = load_error(tmp.path(), "partition");
  EXPECT_NE(error.find("its file is writable by group or others"), std::string::npos) << error;
  ::chmod((tmp.path() / "liblds_partition.so").c_str(), 0644);
  EXPECT_EQ(load_error(tmp.path(), "partition"), "loaded");
}

TEST(StrategyPlugin, RefusesASymlinkThatLeavesThePluginDir) {
  TempDir outside, dir;
  fs::copy_file(plugin_dir() / "liblds_partition.so", outside.path() / "liblds_partition.so");
  fs::create_symlink(outside.path() / "liblds_partition.so", dir.path() / "liblds_partition.so");
  std::string error = load_error(dir.path(), "partition");
  EXPECT_NE(error.find("outside plugin.dir"), std::string::npos) << error;
}

TEST(StrategyPlugin, RefusesAFileThatIsNotASharedObject) {
  TempDir dir;
  std::ofstream(dir.path() / "liblds_junk.so") << "this is not an ELF file\n";
  std::string error = load_error(dir.path(), "junk");
  EXPECT_NE(error.find("is not a loadable shared object"), std::string::npos) << error;
  EXPECT_NE(error.find((dir.path() / "liblds_junk.so").string()), std::string::npos) << error;
  EXPECT_EQ(error.find("lds-plugin-junk"), std::string::npos) << "names the private copy";
}

TEST(StrategyPlugin, RefusesAPluginWhoseNameDiffersFromItsFile) {
  TempDir dir;
  fs::copy_file(plugin_dir() / "liblds_size.so", dir.path() / "liblds_other.so");
  std::string error = load_error(dir.path(), "other");
  EXPECT_NE(error.find("names itself 'size', not 'other'"), std::string::npos) << error;
}

TEST(StrategyPlugin, PassesThePluginsOwnOptionErrorThrough) {
  std::string error = load_error(plugin_dir(), "size", {{"balance", "sideways"}});
  EXPECT_NE(error.find("rejected its options"), std::string::npos) << error;
  EXPECT_NE(error.find("balance"), std::string::npos) << error;
  EXPECT_NE(error.find("sideways"), std::string::npos) << error;
  error = load_error(plugin_dir(), "partition", {{"spread.topics", "true"}});
  EXPECT_NE(error.find("spread.topics"), std::string::npos) << error;
}

TEST(StrategyPlugin, LoadsFromAPrivateCopyThatIsGoneWhenUnloaded) {
  const int before = test::mapped_private_copies();
  {
    auto s = test::load_plugin("cordon");
    EXPECT_EQ(s->name(), "cordon");
    EXPECT_TRUE(s->honors_cordon());
    EXPECT_GT(test::mapped_private_copies(), before);
    EXPECT_EQ(test::leftover_private_copies(), 0) << "the copy is unlinked as soon as it is mapped";
  }
  EXPECT_EQ(test::mapped_private_copies(), before);
}

TEST(StrategyPlugin, TwoLoadsOfOneFileAreIndependentCopies) {
  auto a = test::load_plugin("partition", {}, 1);
  auto b = test::load_plugin("partition", {{"spread.topic", "true"}}, 2);
  EXPECT_EQ(a->generation(), 1u);
  EXPECT_EQ(b->generation(), 2u);
  a.reset();
  // b still works after a's library is gone.
  lds_dir dirs[2] = {{sizeof(lds_dir), 0, "/a", 0, 0, 0, 5, 0, 0},
                     {sizeof(lds_dir), 0, "/b", 0, 0, 0, 1, 0, 0}};
  uint32_t order[2];
  lds_request req{sizeof(lds_request), 0, "t", 0, 0};
  StrategySlot slot;
  RankOutcome out = slot.rank(b, req, dirs, order, LDS_RANK_PLACE);
  ASSERT_EQ(out.status, LDS_OK);
  EXPECT_EQ(order[0], 1u);
}

TEST(StrategyPlugin, ValidateRankingCatchesEveryInvalidShape) {
  uint32_t ok[] = {2, 0, 1};
  EXPECT_EQ(abi_rules::ranking_problem(ok, 3, 3), "");
  uint32_t dup[] = {1, 1};
  EXPECT_NE(abi_rules::ranking_problem(dup, 2, 3).find("appears twice"), std::string::npos);
  uint32_t out_of_range[] = {3};
  EXPECT_NE(abi_rules::ranking_problem(out_of_range, 1, 3).find("out of range"), std::string::npos);
  EXPECT_NE(abi_rules::ranking_problem(ok, 4, 3).find("exceeds"), std::string::npos);
  EXPECT_NE(abi_rules::ranking_problem(ok, 0, 3).find("no directory"), std::string::npos);
}

// The quick check on the placement path agrees with the one that explains, for the seen set in one
// register (up to 64 dirs), in four words (up to 256) and beyond.
TEST(StrategyPlugin, TheQuickRankingCheckAgreesWithTheExplainingOne) {
  std::mt19937 rng(7);
  const auto pick = [&rng](uint32_t n) { return static_cast<uint32_t>(rng() % n); };
  for (uint32_t dirs : {1u, 2u, 12u, 63u, 64u, 65u, 200u, 256u, 300u}) {
    for (int round = 0; round < 200; ++round) {
      std::vector<uint32_t> order(dirs);
      std::iota(order.begin(), order.end(), 0u);
      std::shuffle(order.begin(), order.end(), rng);
      const uint32_t len = 1 + pick(dirs);
      if (round % 3 == 1) order[pick(len)] = order[pick(len)];  // maybe a repeat
      if (round % 3 == 2) order[pick(len)] = dirs + pick(3);    // out of range
      const bool valid = abi_rules::ranking_problem(order.data(), len, dirs).empty();
      EXPECT_EQ(abi_rules::ranking_is_valid(order.data(), len, dirs), valid)
          << dirs << " dirs, round " << round;
    }
    EXPECT_FALSE(abi_rules::ranking_is_valid(nullptr, 0, dirs));
  }
}

TEST(StrategySlot, BuiltinOrderIsFewestPartitionsFirstWithoutCordonedDirs) {
  lds_dir dirs[4] = {{sizeof(lds_dir), 0, "/a", 0, 0, 0, 3, 0, 0},
                     {sizeof(lds_dir), LDS_DIR_CORDONED, "/b", 0, 0, 0, 0, 0, 0},
                     {sizeof(lds_dir), 0, "/c", 0, 0, 0, 1, 0, 0},
                     {sizeof(lds_dir), 0, "/d", 0, 0, 0, 1, 0, 0}};
  uint32_t order[4];
  ASSERT_EQ(StrategySlot::builtin_order(dirs, order), 3u);
  EXPECT_EQ(order[0], 2u);
  EXPECT_EQ(order[1], 3u);
  EXPECT_EQ(order[2], 0u);
}

}  // namespace
}  // namespace lds
