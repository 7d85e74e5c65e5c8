// three_dir_test.h: the ground most LogManager tests stand on: log dirs d1, d2 and d3 in a temp
// folder, each 1 TiB with half of it free on a fake disk probe, the partition-count strategy
// published, and a LogManager made (and started) on them whenever a test asks.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "host_test_support.h"
#include "storage/log_manager.h"
#include "strategy/strategy_slot.h"

namespace lds::test {

class ThreeDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : {"d1", "d2", "d3"}) dirs_.push_back(tmp_.path() / name);
    for (const auto& d : dirs_) probe_->set(d, 1ull << 40, 1ull << 39);
    slot_.publish(load_plugin("partition", {}, slot_.next_generation()));
  }

  // A LogManager on the three dirs, its startup (recovery included) done.
  std::unique_ptr<LogManager> make() {
    LogManager::Options options;
    options.log_dirs = dirs_;
    auto m = std::make_unique<LogManager>(options, probe_, slot_);
    m->startup();
    return m;
  }

  // Waits up to 30 s for every move of `m` to end; a move still running fails the test.
  static void wait_for_moves(const LogManager& m) {
    for (int i = 0; i < 3000 && m.moves_in_progress() > 0; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    ASSERT_EQ(m.moves_in_progress(), 0u) << "the move did not finish";
  }

  TempDir tmp_;
  std::vector<std::filesystem::path> dirs_;
  std::shared_ptr<FakeDiskProbe> probe_ = std::make_shared<FakeDiskProbe>();
  StrategySlot slot_;
};

}  // namespace lds::test
