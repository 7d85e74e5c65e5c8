// simulator_rates_test.cpp: the replay measures each disk's append rate in trace time, so a
// strategy that looks ahead (size with horizon.seconds) sees the growth the trace produces.
#include <gtest/gtest.h>

#include <cstdlib>

#include "sim/simulator.h"
#include "util/logging.h"

namespace lds::sim {

namespace fs = std::filesystem;
namespace {

std::vector<fs::path> search_path() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  return plugin_search_path({dir ? fs::path(dir) : fs::path(LDS_BUILD_PLUGIN_DIR)});
}

// "busy" holds 50 GiB at step 5 and gains 10 GiB an hour; "quiet" holds 100 GiB and gains nothing.
// Where does the one partition created at step 5 go?
class GrowthTrace : public ::testing::Test {
 protected:
  void SetUp() override { set_log_level("off"); }
  const Trace trace_ = load_trace(fs::path(LDS_SIM_TRACE_DIR) / "growth.toml");
};

TEST_F(GrowthTrace, TodaysFillPicksTheEmptierDisk) {
  const RunResult r = run(trace_, find_variant(trace_, "size_fill"), search_path());
  ASSERT_EQ(r.disks.size(), 2u);
  EXPECT_EQ(r.disks[0].partitions, 2u) << "hot and new on busy";
  EXPECT_EQ(r.disks[1].partitions, 1u);
}

// One day ahead at 10 GiB an hour, busy would hold 290 GiB against quiet's 100.
TEST_F(GrowthTrace, AHorizonOfOneDayPicksTheDiskThatStaysEmptier) {
  const RunResult r = run(trace_, find_variant(trace_, "size_horizon"), search_path());
  ASSERT_EQ(r.disks.size(), 2u);
  EXPECT_EQ(r.disks[0].partitions, 1u);
  EXPECT_EQ(r.disks[1].partitions, 2u) << "cold and new on quiet";
}

TEST_F(GrowthTrace, StepSecondsIsReadFromTheTrace) { EXPECT_EQ(trace_.step_seconds, 3600u); }

}  // namespace
}  // namespace lds::sim
