// simulator_test.cpp: the trace simulator (determinism, out-of-space counting, events, trace
// errors, the lds-host simulate command) and the HDFS and Elasticsearch baseline strategies it
// compares.
#include "sim/simulator.h"

#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <numeric>
#include <sstream>

#include "byte_units.h"
#include "conformance/conformance.h"
#include "strategy/abi_rules.h"
#include "strategy/strategy_plugin.h"
#include "temp_dir.h"
#include "util/errors.h"
#include "util/logging.h"

namespace lds::sim {

namespace fs = std::filesystem;
namespace {

fs::path trace_file(const std::string& name) { return fs::path(LDS_SIM_TRACE_DIR) / name; }

// LDS_PLUGIN_DIR (set by CTest), else this build's plugin folder.
fs::path build_plugin_dir() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  return dir ? fs::path(dir) : fs::path(LDS_BUILD_PLUGIN_DIR);
}

std::vector<fs::path> search_path() {
  return plugin_search_path({build_plugin_dir(), LDS_BASELINE_PLUGIN_DIR});
}

class SimulatorTest : public ::testing::Test {
 protected:
  void SetUp() override { set_log_level("off"); }

  RunResult run_variant(const Trace& trace, const std::string& name) {
    return run(trace, find_variant(trace, name), search_path());
  }

  // The variant's per-step CSV, as the replay streams it.
  std::string csv_of(const Trace& trace, const std::string& name, RunResult* result = nullptr) {
    std::ostringstream csv;
    ReplayOutput output;
    output.csv = &csv;
    RunResult r = run(trace, find_variant(trace, name), search_path(), output);
    if (result) *result = r;
    return csv.str();
  }
};

using test::TempDir;

TEST_F(SimulatorTest, SameSeedGivesIdenticalCsv) {
  const Trace trace = load_trace(trace_file("deterministic.toml"));
  for (const std::string name : {"hdfs", "size_fill", "elasticsearch", "partition"}) {
    SCOPED_TRACE(name);
    RunResult first, second;
    const std::string first_csv = csv_of(trace, name, &first);
    EXPECT_EQ(first_csv, csv_of(trace, name, &second));
    EXPECT_EQ(summary_csv({first}), summary_csv({second}));
    EXPECT_EQ(std::count(first_csv.begin(), first_csv.end(), '\n'), 41);  // header + 40 steps
  }
}

TEST_F(SimulatorTest, AnotherSeedChangesTheRandomBaselineAndTheWrites) {
  Trace trace = load_trace(trace_file("deterministic.toml"));
  const std::string before = csv_of(trace, "hdfs");
  trace.seed = 8;
  EXPECT_NE(csv_of(trace, "hdfs"), before);
}

TEST_F(SimulatorTest, CountsOutOfSpaceWhenEveryDiskIsFull) {
  const Trace trace = load_trace(trace_file("out_of_space.toml"));
  const RunResult r = run_variant(trace, "partition");
  EXPECT_EQ(r.out_of_space, 12u);
  EXPECT_EQ(r.out_of_space_with_free_space, 0u);
  EXPECT_EQ(r.failed_placements, 0u);
  EXPECT_DOUBLE_EQ(r.max_fill_pct, 100.0);
  for (const DiskResult& d : r.disks) {
    EXPECT_EQ(d.used, 10 * kGiB);
    EXPECT_EQ(d.partitions, 2u);
  }
}

TEST_F(SimulatorTest, CountsOutOfSpaceWhileAnotherDiskHasRoom) {
  const Trace trace = load_trace(trace_file("out_of_space_one_disk.toml"));
  const RunResult r = run_variant(trace, "partition");
  EXPECT_EQ(r.out_of_space, 5u);
  EXPECT_EQ(r.out_of_space_with_free_space, 5u);
  EXPECT_EQ(r.disks[0].used, 10 * kGiB);
  EXPECT_EQ(r.disks[1].used, 8 * kGiB);
  EXPECT_DOUBLE_EQ(r.final_spread_pp, 20.0);
}

TEST_F(SimulatorTest, PartitionStrategyKeepsCountsWithinOneForEqualPartitions) {
  const Trace trace = load_trace(trace_file("equal_partitions.toml"));
  const RunResult r = run_variant(trace, "partition");
  uint32_t lo = UINT32_MAX, hi = 0, total = 0;
  uint64_t used = 0;
  for (const DiskResult& d : r.disks) {
    lo = std::min(lo, d.partitions);
    hi = std::max(hi, d.partitions);
    total += d.partitions;
    used += d.used;
  }
  EXPECT_EQ(total, 57u);
  EXPECT_LE(hi - lo, 1u);
  // Retention: every partition stopped at 1 GiB.
  EXPECT_EQ(used, 57 * kGiB);
  EXPECT_EQ(r.out_of_space, 0u);
}

TEST_F(SimulatorTest, AttachedDiskAndCordonEventsReachThePlacements) {
  const Trace trace = load_trace(trace_file("events.toml"));
  RunResult r;
  std::istringstream csv(csv_of(trace, "cordon", &r));
  // "before" (4) splits 2/2 over d1 and d2; "after-attach" (6) fills d3 up to the others and then
  // round-robins: d3 d3 d1 d2 d3 d1; "after-cordon" (6) avoids the cordoned d1: d2 d3 d2 d3 d2 d3.
  EXPECT_EQ(r.disks[0].partitions, 4u);
  EXPECT_EQ(r.disks[1].partitions, 6u);
  EXPECT_EQ(r.disks[2].partitions, 6u);
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "step,d1,d2,d3");
  std::getline(csv, line);
  EXPECT_EQ(line.back(), ',') << "d3 has no fill before it is attached: " << line;
}

TEST_F(SimulatorTest, StrategyOptionsReachThePlugin) {
  const Trace trace = load_trace(trace_file("deterministic.toml"));
  // size_free piles onto the 800 GiB disk; size_fill spreads in proportion to capacity.
  const RunResult fill = run_variant(trace, "size_fill");
  const RunResult free = run_variant(trace, "size_free");
  EXPECT_LT(fill.final_spread_pp, free.final_spread_pp);
  EXPECT_GT(free.disks[2].partitions, fill.disks[2].partitions);
}

TEST_F(SimulatorTest, TraceErrorsNameFileLineAndKey) {
  TempDir tmp;
  const fs::path file = tmp.path() / "bad.toml";
  std::ofstream(file)
      << "[simulation]\nsteps = 10\n\n[[disk]]\nname = \"d1\"\ncapacity = \"1TiB\"\n"
         "capacty = 3\n";
  try {
    load_trace(file);
    FAIL() << "an unknown key was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(file.string() + ":7:1: disk.capacty: unknown key"),
              std::string::npos)
        << e.what();
  }
  std::ofstream(file)
      << "[simulation]\nsteps = 10\n[[disk]]\nname = \"d1\"\ncapacity = \"12 parsecs\"\n";
  EXPECT_THROW(load_trace(file), ConfigError);
  // 2^64 bytes, one more than a uint64_t holds: an error rather than a size wrapped around.
  std::ofstream(file)
      << "[simulation]\nsteps = 10\n[[disk]]\nname = \"d1\"\ncapacity = \"16777216TiB\"\n";
  try {
    load_trace(file);
    FAIL() << "a capacity of 2^64 bytes was accepted";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(":5:12: disk.capacity: must be a byte count such as "
                                         "1073741824 or \"64MiB\"."),
              std::string::npos)
        << e.what();
  }
  std::ofstream(file) << "[simulation]\nsteps = 10\nstrategies = [\"nope\"]\n"
                         "[[disk]]\nname = \"d1\"\ncapacity = 100\n";
  EXPECT_THROW(load_trace(file), ConfigError);
}

TEST_F(SimulatorTest, CommandWritesCsvSummaryAndPrintsTheTable) {
  TempDir tmp;
  const fs::path out = tmp.path() / "out";
  const std::string command =
      std::string(LDS_HOST_EXE) + " simulate --trace " + trace_file("deterministic.toml").string() +
      " --strategies partition,size_fill,hdfs --out " + out.string() + " --plugin-dir " +
      build_plugin_dir().string() + " --plugin-dir " + LDS_BASELINE_PLUGIN_DIR + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_NE(output.find("| size_fill |"), std::string::npos) << output;
  // The baseline is marked as one, and the mark is explained; shipped strategies are not marked.
  EXPECT_NE(output.find("| hdfs (baseline) |"), std::string::npos) << output;
  EXPECT_NE(output.find("(baseline): a comparison strategy"), std::string::npos) << output;
  EXPECT_EQ(output.find("size_fill (baseline)"), std::string::npos) << output;
  for (const char* f : {"partition.csv", "size_fill.csv", "hdfs.csv", "summary.md", "summary.csv",
                        "spread.csv", "plot.gp"}) {
    EXPECT_TRUE(fs::is_regular_file(out / f)) << f;
  }
  std::ifstream summary(out / "summary.csv");
  std::string header, row;
  std::getline(summary, header);
  EXPECT_TRUE(header.starts_with("strategy,plugin,baseline,")) << header;
  std::map<std::string, std::string> baseline_of;
  while (std::getline(summary, row)) {
    const size_t a = row.find(','), b = row.find(',', a + 1);
    baseline_of[row.substr(0, a)] = row.substr(b + 1, row.find(',', b + 1) - b - 1);
  }
  EXPECT_EQ(baseline_of["hdfs"], "1");
  EXPECT_EQ(baseline_of["partition"], "0");

  const std::string bad = std::string(LDS_HOST_EXE) + " simulate --trace " +
                          (tmp.path() / "missing.toml").string() + " >/dev/null 2>&1";
  const int rc = std::system(bad.c_str());
  EXPECT_TRUE(WIFEXITED(rc) && WEXITSTATUS(rc) == 2);
}

// spread.csv holds, for every variant and step, the fullest attached disk's fill minus the
// emptiest's, read from that variant's own fill CSV; the chart script marks the trace's events.
TEST_F(SimulatorTest, SpreadCsvAndChartScriptFollowTheFillCsvsAndTheEvents) {
  TempDir tmp;
  const Trace trace = load_trace(trace_file("events.toml"));
  const std::vector<StrategyVariant> variants = {find_variant(trace, "partition"),
                                                 find_variant(trace, "size_fill")};
  const fs::path out = tmp.path() / "out";
  const Simulation sim = simulate(out, trace, variants, search_path());
  ASSERT_EQ(sim.results.size(), 2u);

  std::ifstream spread(out / "spread.csv");
  std::ifstream fills[] = {std::ifstream(out / "partition.csv"),
                           std::ifstream(out / "size_fill.csv")};
  std::string line;
  ASSERT_TRUE(std::getline(spread, line));
  EXPECT_EQ(line, "step,partition,size_fill");
  for (std::ifstream& f : fills) std::getline(f, line);  // their headers
  uint32_t rows = 0;
  bool some_spread = false;
  while (std::getline(spread, line)) {
    std::vector<std::string> cells;
    std::stringstream cells_in(line);
    for (std::string c; std::getline(cells_in, c, ',');) cells.push_back(c);
    ASSERT_EQ(cells.size(), 3u) << line;
    EXPECT_EQ(cells[0], std::to_string(rows));
    for (size_t v = 0; v < 2; ++v) {
      std::string fill_row;
      ASSERT_TRUE(std::getline(fills[v], fill_row));
      std::vector<double> attached;
      std::stringstream in(fill_row);
      std::string c;
      std::getline(in, c, ',');  // the step
      while (std::getline(in, c, ',')) {
        if (!c.empty()) attached.push_back(std::stod(c));
      }
      // d3 is attached at step 5: before it, only d1 and d2 count.
      EXPECT_EQ(attached.size(), rows < 5 ? 2u : 3u) << fill_row;
      const double expected = *std::max_element(attached.begin(), attached.end()) -
                              *std::min_element(attached.begin(), attached.end());
      EXPECT_NEAR(std::stod(cells[v + 1]), expected, 0.002) << line << " / " << fill_row;
      some_spread = some_spread || expected > 1;
    }
    ++rows;
  }
  EXPECT_EQ(rows, trace.steps);
  EXPECT_TRUE(some_spread);

  const std::vector<TraceEvent> events = trace_events(trace);
  ASSERT_EQ(events.size(), 4u);
  EXPECT_EQ(events[0].step, 5u);
  EXPECT_EQ(events[0].label, "disk d3 added");
  EXPECT_EQ(events[1].label, "topic after-attach (6 partitions)");
  EXPECT_EQ(events[2].step, 10u);
  EXPECT_EQ(events[2].label, "cordon d1");
  EXPECT_EQ(events[3].label, "topic after-cordon (6 partitions)");
  std::ifstream script_in(out / "plot.gp");
  const std::string script((std::istreambuf_iterator<char>(script_in)),
                           std::istreambuf_iterator<char>());
  EXPECT_NE(script.find("set arrow 3 from 10, graph 0 to 10, graph 1"), std::string::npos);
  EXPECT_NE(script.find("'cordon d1' at 10"), std::string::npos);
  EXPECT_NE(script.find((out / "spread.svg").string()), std::string::npos);
  EXPECT_NE(script.find("plot for [i=2:3] '" + (out / "spread.csv").string()), std::string::npos);
}

TEST_F(SimulatorTest, ShippedTracesLoad) {
  size_t count = 0;
  for (const auto& entry : fs::directory_iterator(LDS_CONF_SIM_DIR)) {
    if (entry.path().extension() != ".toml") continue;
    SCOPED_TRACE(entry.path().string());
    const Trace trace = load_trace(entry.path());
    EXPECT_FALSE(trace.disks.empty());
    ++count;
  }
  EXPECT_GE(count, 3u);
}

// --- The baseline strategies, called through the ABI ------------------------------------------

std::shared_ptr<const LoadedStrategy> load_baseline(
    const std::string& name, std::vector<std::pair<std::string, std::string>> options = {}) {
  StrategyLoadSpec spec;
  spec.plugin_dir = fs::canonical(LDS_BASELINE_PLUGIN_DIR);
  spec.name = name;
  spec.options = std::move(options);
  return LoadedStrategy::load(spec);
}

lds_dir dir(uint64_t usable, uint32_t partitions = 0, uint32_t topic_partitions = 0,
            uint64_t total = 1000 * kGiB) {
  lds_dir d{};
  d.struct_size = sizeof(lds_dir);
  d.path = "/d";
  d.total_bytes = total;
  d.usable_bytes = usable;
  d.partition_count = partitions;
  d.topic_partition_count = topic_partitions;
  return d;
}

// The index ranked first, or -1 when nothing is eligible.
int first_choice(const LoadedStrategy& s, std::vector<lds_dir>& dirs, uint64_t expected = 0) {
  lds_request request{sizeof(lds_request), 0, "t", expected, 0};
  std::vector<uint32_t> order(dirs.size());
  char error[256] = {};
  lds_rank_args args{};
  args.struct_size = sizeof args;
  args.dir_count = static_cast<uint32_t>(dirs.size());
  args.dir_stride = sizeof(lds_dir);
  args.request = &request;
  args.dirs = dirs.data();
  args.order = order.data();
  args.error = error;
  args.error_cap = sizeof error;
  if (s.rank(&args) != LDS_OK) return -1;
  EXPECT_EQ(abi_rules::ranking_problem(order.data(), args.order_len, args.dir_count), "");
  return static_cast<int>(order[0]);
}

TEST(BaselineStrategies, PassTheConformanceChecks) {
  const fs::path dir = LDS_BASELINE_PLUGIN_DIR;
  const ConformanceReport es = run_conformance(dir / "liblds_elasticsearch_path.so");
  EXPECT_TRUE(es.all_passed()) << format_report(es);
  // HDFS's policy keeps round-robin positions and a random stream, so one input does not get the
  // same answer twice: the two checks that compare answers across calls do not apply to it.
  const ConformanceReport hdfs = run_conformance(dir / "liblds_hdfs_available_space.so");
  for (const ConformanceCheck& check : hdfs.checks) {
    if (check.name == "rank_larger_host_dir" || check.name == "rank_concurrent") continue;
    EXPECT_TRUE(check.passed) << check.name << ": " << check.detail;
  }
}

TEST(BaselineStrategies, HdfsRoundRobinsBalancedVolumes) {
  auto s = load_baseline("hdfs_available_space", {{"seed", "1"}});
  std::vector<lds_dir> dirs = {dir(500 * kGiB), dir(505 * kGiB), dir(502 * kGiB)};
  std::vector<int> picks;
  for (int i = 0; i < 5; ++i) picks.push_back(first_choice(*s, dirs));
  EXPECT_EQ(picks, (std::vector<int>{0, 1, 2, 0, 1}));
}

TEST(BaselineStrategies, HdfsPrefersVolumesWithMuchMoreSpaceByItsScaledFraction) {
  auto s = load_baseline("hdfs_available_space", {{"seed", "42"}});
  // One high volume and two low ones: P(high) = 0.75 / (0.75 + 2 * 0.25) = 0.6.
  std::vector<lds_dir> dirs = {dir(100 * kGiB), dir(400 * kGiB), dir(105 * kGiB)};
  int high = 0;
  for (int i = 0; i < 2000; ++i) high += first_choice(*s, dirs) == 1;
  EXPECT_NEAR(high / 2000.0, 0.6, 0.04);
  // Low volumes that cannot hold a block: always the high list.
  std::vector<lds_dir> tight = {dir(1 << 20), dir(400 * kGiB), dir(2 << 20)};
  for (int i = 0; i < 20; ++i) EXPECT_EQ(first_choice(*s, tight), 1);
  std::vector<lds_dir> full = {dir(1 << 20), dir(2 << 20)};
  EXPECT_EQ(first_choice(*s, full), -1);
}

TEST(BaselineStrategies, HdfsSameSeedSameChoices) {
  std::vector<lds_dir> dirs = {dir(100 * kGiB), dir(400 * kGiB), dir(105 * kGiB), dir(900 * kGiB)};
  auto choices = [&](const std::string& seed) {
    auto s = load_baseline("hdfs_available_space", {{"seed", seed}});
    std::string out;
    for (int i = 0; i < 200; ++i) out += std::to_string(first_choice(*s, dirs));
    return out;
  };
  EXPECT_EQ(choices("9"), choices("9"));
  EXPECT_NE(choices("9"), choices("10"));
}

TEST(BaselineStrategies, ElasticsearchRanksIndexShardsThenShardsThenFreeSpace) {
  auto s = load_baseline("elasticsearch_path");
  std::vector<lds_dir> dirs = {dir(300 * kGiB, 5, 1), dir(200 * kGiB, 3, 1), dir(250 * kGiB, 9, 0)};
  EXPECT_EQ(first_choice(*s, dirs), 2);  // fewest shards of the index
  dirs[2].topic_partition_count = 1;
  EXPECT_EQ(first_choice(*s, dirs), 1);  // then fewest shards
  dirs[0].partition_count = 3;
  EXPECT_EQ(first_choice(*s, dirs), 0);  // then most usable space
  dirs[1].partition_count = 2;
  EXPECT_EQ(first_choice(*s, dirs), 1);
  // Too small for the estimate (the larger of expected and 1/20 of all usable space): skipped.
  EXPECT_EQ(first_choice(*s, dirs, 220 * kGiB), 0);
  // No path has room: the one with the most usable space.
  EXPECT_EQ(first_choice(*s, dirs, 900 * kGiB), 0);
  dirs[0].usable_bytes = 10 * kGiB;
  EXPECT_EQ(first_choice(*s, dirs, 900 * kGiB), 2);
}

}  // namespace
}  // namespace lds::sim
