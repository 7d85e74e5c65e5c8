// rank_purpose_test.cpp: the host tells a stateful strategy why it ranks (ABI 1.2 purpose) and
// where each partition really went (placed). With recent_placements, which learns only from
// placed: swaps, `create --dry-run`s and balancer destination calls change none of the next real
// placements, and placed sees exactly the partitions created, with their dirs, fallbacks and
// operator-preferred dirs included.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "balance/balance_model.h"
#include "storage/log_manager.h"
#include "strategy/strategy_plugin.h"
#include "strategy/strategy_slot.h"
#include "temp_dir.h"
#include "three_disks.h"
#include <lds/logdir_strategy.h>

namespace lds {
namespace {

namespace fs = std::filesystem;

const fs::path kV12 = fs::path(LDS_COMPAT_PLUGIN_DIR) / "v1_2";

// The lines of recent_placements' journal that start with `kind` ("placed ", "rank PREVIEW ").
std::vector<std::string> lines_of(const fs::path& file, const std::string& kind = "placed ") {
  std::ifstream in(file);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (line.starts_with(kind)) lines.push_back(line.substr(kind.size()));
  }
  return lines;
}

class RankPurposeTest : public testing::Test {
 protected:
  RankPurposeTest() : logs_(test::three_disk_logs(slot_, {"/p/a", "/p/b", "/p/c"})) {}

  // Loads recent_placements (validated with its dry run) and makes it the active strategy.
  void swap_in(const fs::path& journal) {
    StrategyLoadSpec spec;
    spec.plugin_dir = kV12;
    spec.name = "recent_placements";
    spec.options = {{"journal", journal.string()}};
    slot_.publish(logs_->load_strategy(spec));
  }

  // `count` real placements of topic `topic`; returns the dir of each.
  std::vector<std::string> place(const std::string& topic, int count) {
    std::vector<std::string> dirs;
    for (int p = 0; p < count; ++p) {
      const PlacementResult r = logs_->create_partition(topic, p, 1'000);
      EXPECT_FALSE(r.fell_back) << r.strategy;
      dirs.push_back(r.log_dir);
    }
    return dirs;
  }

  StrategySlot slot_;
  std::unique_ptr<LogManager> logs_;
  test::TempDir tmp_;
};

TEST_F(RankPurposeTest, DryRunsSwapsAndBalancerCallsChangeNoRealPlacement) {
  // The control: the same plugin, fresh, places ten partitions.
  swap_in(tmp_.path() / "control.journal");
  const std::vector<std::string> control = place("control", 10);
  ASSERT_EQ(control.size(), 10u);

  // The same on a second broker after 5 swaps (each with its validation dry run), 20 previews
  // (create --dry-run) and balancer destination rankings: the same ten answers.
  StrategySlot other_slot;
  const auto owned = test::three_disk_logs(other_slot, {"/p/a", "/p/b", "/p/c"});
  LogManager& other = *owned;
  const fs::path journal = tmp_.path() / "test.journal";
  for (int i = 0; i < 5; ++i) {
    StrategyLoadSpec spec;
    spec.plugin_dir = kV12;
    spec.name = "recent_placements";
    spec.options = {{"journal", journal.string()}};
    other_slot.publish(other.load_strategy(spec));
  }
  for (int i = 0; i < 20; ++i) {
    const auto e = other.explain_placement("control", i % 10);
    ASSERT_EQ(e.error, StorageErrc::kNone) << e.message;
    EXPECT_EQ(e.score_name, "placements seen");
  }
  const RankDestinations rank = strategy_ranker(other, other_slot);
  const std::vector<DestinationCandidate> candidates = {{0, 1'000'000'000, 250'000'000},
                                                        {1, 2'000'000'000, 500'000'000}};
  BalancePartition moving;
  moving.tp = {"moving", 0};
  moving.size = 1'000;
  for (int i = 0; i < 10; ++i) EXPECT_FALSE(rank(moving, candidates).empty());

  std::vector<std::string> after;
  for (int p = 0; p < 10; ++p) after.push_back(other.create_partition("control", p, 1'000).log_dir);
  EXPECT_EQ(after, control);
  // placed heard of the ten creations and nothing else, and each rank call said why it came.
  std::vector<std::string> expected;
  for (int p = 0; p < 10; ++p) expected.push_back("control-" + std::to_string(p) + " " + after[p]);
  EXPECT_EQ(lines_of(journal), expected);
  EXPECT_EQ(lines_of(journal, "rank VALIDATE ").size(), 5u);
  EXPECT_EQ(lines_of(journal, "rank PREVIEW ").size(), 20u);
  EXPECT_EQ(lines_of(journal, "rank MOVE ").size(), 10u);
  std::vector<std::string> placed_names;
  for (int p = 0; p < 10; ++p) placed_names.push_back("control-" + std::to_string(p));
  EXPECT_EQ(lines_of(journal, "rank PLACE "), placed_names);
}

// Without placed, recent_placements would answer /p/a every time; with it, the ten placements
// spread over the three dirs, so the control above is a real test of the state.
TEST_F(RankPurposeTest, PlacedIsWhatMovesTheState) {
  swap_in(tmp_.path() / "j");
  const std::vector<std::string> dirs = place("spread", 9);
  for (const char* d : {"/p/a", "/p/b", "/p/c"}) {
    EXPECT_EQ(std::count(dirs.begin(), dirs.end(), d), 3) << d;
  }
}

// placed also hears of a partition that went to the dir the operator preferred
// (AlterReplicaLogDirs before creation), with that dir; and not of a replica that already exists.
TEST_F(RankPurposeTest, PlacedHearsOfPreferredDirsAndNotOfExistingReplicas) {
  const fs::path journal = tmp_.path() / "j";
  swap_in(journal);
  logs_->remember_preferred_dir({"pref", 0}, "/p/c");
  EXPECT_EQ(logs_->create_partition("pref", 0, 1'000).log_dir, "/p/c");
  EXPECT_FALSE(logs_->create_partition("pref", 0, 1'000).created) << "it exists already";
  EXPECT_EQ(lines_of(journal), std::vector<std::string>{"pref-0 /p/c"});
}

// The scores of the plugin reach the explanation, dir by dir, and the debug line.
TEST_F(RankPurposeTest, TheExplanationShowsThePluginsScores) {
  swap_in(tmp_.path() / "j");
  place("s", 2);  // one in /p/a, one in /p/b
  const auto e = logs_->explain_placement("s", 7);
  ASSERT_EQ(e.error, StorageErrc::kNone) << e.message;
  EXPECT_EQ(e.score_name, "placements seen");
  ASSERT_EQ(e.dirs.size(), 3u);
  EXPECT_EQ(e.dirs[0].log_dir, "/p/c");
  EXPECT_EQ(e.dirs[0].score, 0.0);
  EXPECT_EQ(e.dirs[1].score, 1.0);
  EXPECT_EQ(e.dirs[2].score, 1.0);
  EXPECT_NE(placement_line(e).find("placements seen 0"), std::string::npos) << placement_line(e);
}

}  // namespace
}  // namespace lds
