// balance_sim_test.cpp: the intra-broker balancer in the simulator: on every shipped trace,
// size_fill+balance ends within 5 points with no out-of-space event, moves at most 1.25 times the
// sum of its rounds' lower bounds, and never moves a partition twice within the cooldown; the
// outputs carry the balancer's columns.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/simulator.h"
#include "temp_dir.h"
#include "util/logging.h"

namespace lds::sim {

namespace fs = std::filesystem;
namespace {

fs::path build_plugin_dir() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  return dir ? fs::path(dir) : fs::path(LDS_BUILD_PLUGIN_DIR);
}

std::vector<fs::path> shipped_traces() {
  std::vector<fs::path> out;
  for (const auto& e : fs::directory_iterator(LDS_CONF_SIM_DIR)) {
    if (e.path().extension() == ".toml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

class BalanceSimTest : public ::testing::TestWithParam<fs::path> {
 protected:
  void SetUp() override { set_log_level("off"); }
};

TEST_P(BalanceSimTest, SizeFillWithTheBalancerEndsWithinFivePointsMovingNearTheLowerBound) {
  const Trace trace = load_trace(GetParam());
  ASSERT_DOUBLE_EQ(trace.balancer.threshold_percent, 5)
      << GetParam() << ": shipped traces balance with threshold_percent = 5";
  const RunResult r = run(trace, find_variant(trace, "size_fill+balance"),
                          plugin_search_path({build_plugin_dir()}));
  EXPECT_LE(r.final_spread_pp, 5.0);
  EXPECT_EQ(r.out_of_space, 0u);
  EXPECT_EQ(r.failed_placements, 0u);
  EXPECT_LE(static_cast<double>(r.bytes_moved), 1.25 * static_cast<double>(r.bytes_lower_bound))
      << r.moves << " moves";
  EXPECT_EQ(r.move_log.size(), r.moves);

  // No partition moves twice within the cooldown (the default, one hour: one step).
  constexpr int64_t kCooldownSteps = 3600000 / kStepMillis;
  std::map<std::string, uint32_t> finished;
  for (const RunResult::Move& m : r.move_log) {
    EXPECT_LE(m.started_step, m.finished_step) << m.partition;
    if (auto it = finished.find(m.partition); it != finished.end()) {
      EXPECT_GE(static_cast<int64_t>(m.started_step) - it->second, kCooldownSteps)
          << m.partition << " moved again at step " << m.started_step;
    }
    finished[m.partition] = m.finished_step;
  }
}

INSTANTIATE_TEST_SUITE_P(ShippedTraces, BalanceSimTest, ::testing::ValuesIn(shipped_traces()),
                         [](const ::testing::TestParamInfo<fs::path>& param) {
                           return param.param.stem().string();
                         });

TEST(BalanceSimOutput, BalanceVariantsWriteMovesInFlightAndTheSummaryColumns) {
  set_log_level("off");
  const Trace trace = load_trace(fs::path(LDS_CONF_SIM_DIR) / "new_disk.toml");
  test::TempDir out;
  const Simulation s =
      simulate(out.path(), trace,
               {find_variant(trace, "partition"), find_variant(trace, "size_fill+balance")},
               plugin_search_path({build_plugin_dir()}));
  ASSERT_EQ(s.results.size(), 2u);
  EXPECT_EQ(s.results[0].moves, 0u) << "no balancer without +balance";
  EXPECT_GT(s.results[1].moves, 0u) << "a new empty disk is something to balance onto";

  std::ifstream csv(out.path() / "size_fill+balance.csv");
  std::string header;
  std::getline(csv, header);
  EXPECT_EQ(header, "step,old1,old2,old3,new,moves_in_flight");
  uint64_t most = 0;
  for (std::string line; std::getline(csv, line);) {
    most = std::max<uint64_t>(most, std::stoull(line.substr(line.rfind(',') + 1)));
  }
  EXPECT_GT(most, 0u);
  EXPECT_LE(most, trace.balancer.max_concurrent_moves);

  std::ifstream summary(out.path() / "summary.csv");
  std::getline(summary, header);
  EXPECT_TRUE(header.ends_with(",moves,bytes_moved,bytes_lower_bound")) << header;
  std::string plain, balanced;
  std::getline(summary, plain);
  std::getline(summary, balanced);
  EXPECT_TRUE(plain.ends_with(",0,0,0")) << plain;
  EXPECT_TRUE(balanced.starts_with("size_fill+balance,size,")) << balanced;
}

TEST(BalanceSimOutput, SimulateBalanceRunsEveryStrategyWithTheBalancer) {
  test::TempDir tmp;
  const fs::path out = tmp.path() / "out";
  const std::string command = std::string(LDS_HOST_EXE) + " simulate --trace " +
                              (fs::path(LDS_CONF_SIM_DIR) / "new_disk.toml").string() +
                              " --strategies partition,size_fill --balance --out " + out.string() +
                              " --plugin-dir " + build_plugin_dir().string() + " 2>&1";
  FILE* pipe = ::popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[4096];
  while (size_t n = std::fread(buf, 1, sizeof buf, pipe)) output.append(buf, n);
  const int status = ::pclose(pipe);
  ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  EXPECT_NE(output.find("| partition+balance |"), std::string::npos) << output;
  EXPECT_NE(output.find("| size_fill+balance |"), std::string::npos) << output;
  EXPECT_EQ(output.find("| size_fill |"), std::string::npos) << "--balance replaces the plain runs";
  EXPECT_NE(output.find("moves,"), std::string::npos) << output;
  EXPECT_TRUE(fs::is_regular_file(out / "size_fill+balance.csv"));
}

}  // namespace
}  // namespace lds::sim
