// placement_explanation_test.cpp: `create --dry-run`'s explanation (LogManager::explain_placement):
// every log dir in rank order with the figures the strategy read, each one left out with its
// reason, nothing created, reserved or counted, and the real creation going where it said; the
// same figures in every placement's debug line, and kept for `lds-host explain`
// (LogManager::past_placement).
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

#include "host_test_support.h"
#include "storage/log_manager.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::FakeDiskProbe;
using test::TempDir;

constexpr uint64_t kMB = 1000ull * 1000;

// What describe() shows that a dry run must not change: each dir's partitions and reservations.
std::vector<std::string> state_of(const LogManager& m) {
  std::vector<std::string> out;
  for (const auto& d : m.describe()) {
    out.push_back(d.log_dir + " error=" + std::to_string(static_cast<int>(d.error)) +
                  " reserved=" + std::to_string(d.reserved_bytes) +
                  " partitions=" + std::to_string(d.partitions.size()));
  }
  return out;
}

class PlacementExplanationTest : public ::testing::Test {
 protected:
  // d1 cordoned, d2 nearly full, d3 offline, d4 and d5 healthy (d5 the emptiest).
  void SetUp() override {
    for (const char* name : {"d1", "d2", "d3", "d4", "d5"}) dirs_.push_back(tmp_.path() / name);
    probe_->set(dirs_[0], 1000 * kMB, 900 * kMB);
    probe_->set(dirs_[1], 1000 * kMB, 50 * kMB);
    probe_->set(dirs_[2], 1000 * kMB, 900 * kMB);
    probe_->set(dirs_[3], 1000 * kMB, 600 * kMB);
    probe_->set(dirs_[4], 1000 * kMB, 800 * kMB);
    LogManager::Options options;
    options.log_dirs = dirs_;
    options.in_memory = true;
    options.kept_placements = 4;
    logs_ = std::make_unique<LogManager>(options, probe_, slot_);
    logs_->startup();
    logs_->set_cordoned([&](const fs::path& d) { return d == dirs_[0]; });
    logs_->mark_offline(2, "test: the disk failed");
  }

  void use(const fs::path& plugin_dir, const std::string& name,
           std::vector<std::pair<std::string, std::string>> options = {}) {
    StrategyLoadSpec spec;
    spec.plugin_dir = plugin_dir;
    spec.name = name;
    spec.options = std::move(options);
    slot_.publish(logs_->load_strategy(spec));
  }

  const PlacementCandidate& entry(const PlacementExplanation& e, size_t dir) {
    for (const auto& c : e.dirs) {
      if (c.log_dir == dirs_[dir].string()) return c;
    }
    ADD_FAILURE() << dirs_[dir] << " is missing from the explanation";
    static const PlacementCandidate none;
    return none;
  }

  TempDir tmp_;
  std::vector<fs::path> dirs_;
  std::shared_ptr<FakeDiskProbe> probe_ = std::make_shared<FakeDiskProbe>();
  StrategySlot slot_;
  std::unique_ptr<LogManager> logs_;
};

// The figure `size` sorts on is the projected fill, not the fill: d5 is emptier (20% against
// d4's 40%) but 300 MB are promised to it, so it ranks second.
TEST_F(PlacementExplanationTest, ProjectedFillCountsReservedAndExpectedBytesAndOrdersTheRanking) {
  use(test::plugin_dir(), "size");
  ASSERT_EQ(logs_->create_partition("r", 0, 300 * kMB).log_dir, dirs_[4].string());

  const auto e = logs_->explain_placement("t", 0, 10 * kMB);
  ASSERT_EQ(e.error, StorageErrc::kNone) << e.message;
  ASSERT_GE(e.dirs.size(), 2u);
  EXPECT_EQ(e.dirs[0].log_dir, dirs_[3].string());
  EXPECT_DOUBLE_EQ(*e.dirs[0].fill_percent(), 40.0);
  EXPECT_DOUBLE_EQ(*e.dirs[0].projected_fill_percent(e.expected_bytes), 41.0);
  EXPECT_EQ(e.dirs[1].log_dir, dirs_[4].string());
  EXPECT_DOUBLE_EQ(*e.dirs[1].fill_percent(), 20.0);
  EXPECT_DOUBLE_EQ(*e.dirs[1].projected_fill_percent(e.expected_bytes), 51.0);
  // No figure without the space: an offline dir has none.
  EXPECT_FALSE(entry(e, 2).projected_fill_percent(e.expected_bytes).has_value());
  EXPECT_FALSE(projected_fill_percent(0, 0, 0, 10 * kMB).has_value());
}

TEST_F(PlacementExplanationTest, NamesEveryLeftOutDirsReasonAndRanksWhereCreateThenPlaces) {
  use(test::plugin_dir(), "size", {{"keep.free.bytes", std::to_string(100 * kMB)}});
  const std::vector<std::string> before = state_of(*logs_);

  const auto e = logs_->explain_placement("t", 0, 10 * kMB);
  EXPECT_EQ(e.error, StorageErrc::kNone) << e.message;
  EXPECT_EQ(e.strategy, "size");
  EXPECT_EQ(e.expected_bytes, 10 * kMB);
  ASSERT_EQ(e.dirs.size(), 5u);
  // Ranked first, best first: d5 (20% full) before d4 (40%).
  EXPECT_EQ(e.dirs[0].log_dir, dirs_[4].string());
  EXPECT_EQ(e.dirs[0].rank, 1u);
  EXPECT_EQ(e.dirs[1].log_dir, dirs_[3].string());
  EXPECT_EQ(e.dirs[1].rank, 2u);
  // The figures the strategy read.
  EXPECT_EQ(e.dirs[0].total_bytes, 1000 * kMB);
  EXPECT_EQ(e.dirs[0].usable_bytes, 800 * kMB);
  ASSERT_TRUE(e.dirs[0].fill_percent().has_value());
  EXPECT_DOUBLE_EQ(*e.dirs[0].fill_percent(), 20.0);
  // Then the rest, in log.dirs order, each with why.
  EXPECT_EQ(entry(e, 0).left_out, "cordoned");
  EXPECT_EQ(entry(e, 1).left_out,
            "below log.directory.select.size.keep.free.bytes (95.4 MiB): 38.1 MiB free after "
            "placing 9.5 MiB");
  EXPECT_EQ(entry(e, 2).left_out, "offline");
  EXPECT_EQ(entry(e, 0).rank, 0u);

  EXPECT_EQ(state_of(*logs_), before) << "a dry run changed the log dirs";
  EXPECT_EQ(logs_->partition_count(), 0u);

  // The real creation goes where the dry run said, and the next dry run sees its reservation.
  EXPECT_EQ(logs_->create_partition("t", 0, 10 * kMB).log_dir, dirs_[4].string());
  const auto existing = logs_->explain_placement("t", 0);
  EXPECT_EQ(existing.existing_log_dir, dirs_[4].string());
  const auto next = logs_->explain_placement("t", 1, 10 * kMB);
  EXPECT_EQ(entry(next, 4).reserved_bytes, 10 * kMB);
  EXPECT_EQ(entry(next, 4).topic_partition_count, 1u);
}

TEST_F(PlacementExplanationTest, ADirThePluginLeavesOutForItsOwnRuleIsNotRankedByThePlugin) {
  use(LDS_FORBID_PLUGIN_DIR, "forbiddir", {{"dir", dirs_[4].string()}});
  const auto e = logs_->explain_placement("t", 0);
  EXPECT_EQ(entry(e, 4).left_out, "not ranked by the plugin");
  EXPECT_EQ(entry(e, 4).rank, 0u);
  // A plugin that ranks a cordoned dir still does not get it: the host drops it.
  EXPECT_EQ(entry(e, 0).left_out, "cordoned");
  EXPECT_EQ(e.dirs[0].rank, 1u);
  EXPECT_EQ(logs_->create_partition("t", 0).log_dir, e.dirs[0].log_dir);
}

TEST_F(PlacementExplanationTest, AFallbackIsNamedAsCreateNamesItAndNotCounted) {
  use(LDS_BAD_PLUGIN_DIR, "bad_rank_duplicate");
  const auto e = logs_->explain_placement("t", 0);
  EXPECT_TRUE(e.fell_back);
  EXPECT_EQ(slot_.fallbacks(), 0u) << "a dry run counted a fallback";
  EXPECT_EQ(slot_.current()->fallbacks(), 0u);
  ASSERT_FALSE(e.dirs.empty());
  const PlacementResult placed = logs_->create_partition("t", 0);
  EXPECT_EQ(e.strategy, placed.strategy);
  EXPECT_EQ(e.strategy.rfind("partition-count fallback (bad_rank_duplicate: ", 0), 0u)
      << e.strategy;
  EXPECT_EQ(placed.log_dir, e.dirs[0].log_dir);
  EXPECT_EQ(slot_.fallbacks(), 1u);
}

TEST_F(PlacementExplanationTest, EveryDirCordonedExplainsEachAndCarriesCreatesError) {
  use(test::plugin_dir(), "cordon");
  logs_->set_cordoned([](const fs::path&) { return true; });
  const auto e = logs_->explain_placement("t", 0);
  EXPECT_EQ(e.error, StorageErrc::kEveryDirCordoned);
  for (size_t i : {0, 1, 3, 4}) EXPECT_EQ(entry(e, i).left_out, "cordoned");
  EXPECT_EQ(entry(e, 2).left_out, "offline");
  EXPECT_EQ(logs_->partition_count(), 0u);
}

TEST_F(PlacementExplanationTest, ACreationKeepsTheExplanationTheDryRunGaveUntilDeleted) {
  use(test::plugin_dir(), "size", {{"keep.free.bytes", std::to_string(100 * kMB)}});
  const auto dry = logs_->explain_placement("t", 0, 10 * kMB);
  const auto before = std::chrono::system_clock::now();
  ASSERT_EQ(logs_->create_partition("t", 0, 10 * kMB).log_dir, dirs_[4].string());
  // Figures that change after the placement do not change its explanation.
  logs_->create_partition("t", 1, 10 * kMB);

  const LogManager::PlacementRecall recall = logs_->past_placement({"t", 0});
  EXPECT_EQ(recall.log_dir, dirs_[4].string());
  ASSERT_TRUE(recall.placement.has_value());
  EXPECT_EQ(recall.placement->placed_in, dirs_[4].string());
  EXPECT_GE(recall.placement->placed_at, before);
  EXPECT_EQ(placement_line(recall.placement->explanation), placement_line(dry));
  EXPECT_EQ(entry(recall.placement->explanation, 1).left_out,
            "below log.directory.select.size.keep.free.bytes (95.4 MiB): 38.1 MiB free after "
            "placing 9.5 MiB");

  logs_->delete_topic("t");
  EXPECT_THROW(logs_->past_placement({"t", 0}), StorageError);
  logs_->create_partition("t", 0, 10 * kMB);
  EXPECT_EQ(logs_->past_placement({"t", 0}).placement->explanation.dirs[0].partition_count, 0u);
}

TEST_F(PlacementExplanationTest, OnlyTheLatestPlacementsAreKept) {
  use(test::plugin_dir(), "partition");
  for (int32_t p = 0; p < 6; ++p) logs_->create_partition("t", p);
  EXPECT_EQ(logs_->kept_placements(), 4u);
  for (int32_t p : {0, 1}) {
    const LogManager::PlacementRecall old = logs_->past_placement({"t", p});
    EXPECT_FALSE(old.placement.has_value()) << p;
    EXPECT_FALSE(old.log_dir.empty()) << "where it is, even when why is no longer kept";
  }
  for (int32_t p : {2, 3, 4, 5}) EXPECT_TRUE(logs_->past_placement({"t", p}).placement) << p;
  try {
    logs_->past_placement({"u", 0});
    ADD_FAILURE() << "no error for a partition never created";
  } catch (const StorageError& e) {
    EXPECT_EQ(e.code(), StorageErrc::kUnknownPartition);
    EXPECT_STREQ(e.what(), "This broker does not host partition u-0.");
  }
}

TEST_F(PlacementExplanationTest, EachPlacementsDebugLineCarriesTheSameFigures) {
  use(test::plugin_dir(), "size", {{"keep.free.bytes", std::to_string(100 * kMB)}});
  auto log = logger("lds.log_manager");
  const auto level = log->level();
  log->set_level(spdlog::level::debug);
  test::LogCapture capture("lds.log_manager");
  logs_->create_partition("t", 0, 10 * kMB);
  log->set_level(level);
  const std::string text = capture.text();
  EXPECT_NE(text.find("Placing t-0 (expected 10000000 bytes) by size, generation 1: 1. " +
                      dirs_[4].string() +
                      " (fill 20.0%, free 800000000, reserved 0, partitions 0, of topic 0, "
                      "projected fill % 21); 2. " +
                      dirs_[3].string()),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(dirs_[0].string() + " (cordoned; fill 10.0%"), std::string::npos) << text;
  EXPECT_NE(text.find(dirs_[1].string() + " (below log.directory.select.size.keep.free.bytes"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find(dirs_[2].string() + " (offline)"), std::string::npos) << text;
}

}  // namespace
}  // namespace lds
