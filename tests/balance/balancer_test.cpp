// balancer_test.cpp: the balancer service on an in-memory LogManager with a simulated clock: it
// stops a move whose source goes offline, never starts a planned move into a dir cordoned since
// the plan, counts a finished move once, plans and starts nothing while the move throttle is 0,
// and goes back to disabled or idle once a round on request has ended; a strategy swap drops the
// moves the old strategy planned; status() answers while a tick is stuck inside the balancer, and
// cancel() while a tick waits on a stalled strategy's ranking.
#include "balance/balancer.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdlib>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <thread>

#include "byte_units.h"
#include "util/logging.h"

namespace lds {
namespace {

namespace fs = std::filesystem;

// Each dir 100 GiB; its used bytes set by the test.
class FakeDisks final : public DiskProbe {
 public:
  DiskSpace read(const fs::path& dir) const override {
    std::lock_guard lock(mu_);
    auto it = used_.find(dir.string());
    const uint64_t used = it == used_.end() ? 0 : it->second;
    return {true, 100 * kGiB, 100 * kGiB - used};
  }
  void set_used(const std::string& dir, uint64_t bytes) {
    std::lock_guard lock(mu_);
    used_[dir] = bytes;
  }

 private:
  mutable std::mutex mu_;
  std::map<std::string, uint64_t> used_;
};

class BalancerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    set_log_level("off");
    LogManager::Options o;
    o.in_memory = true;
    o.log_dirs = {"/a", "/b"};
    logs_ = std::make_unique<LogManager>(o, disks_, slot_);
    logs_->startup();
    // Eight 10 GiB partitions on /a, nothing on /b: 80% against 0%.
    for (int p = 0; p < 8; ++p) {
      logs_->remember_preferred_dir({"t", p}, "/a");
      logs_->create_partition("t", p);
      logs_->append("t", p, 10 * kGiB);
    }
    disks_->set_used("/a", 80 * kGiB);
    balancer_ = std::make_unique<Balancer>(*logs_, slot_, nullptr, [this] { return now_; });
    BalanceConfig c;
    c.enable = true;
    c.interval_ms = 1;
    c.max_concurrent_moves = 1;
    balancer_->configure(c, kNoMoveThrottle);
    config_ = c;
    balancer_->set_move_listener([this](const BalanceMoveEvent& e) { events_.push_back(e); });
  }

  std::shared_ptr<FakeDisks> disks_ = std::make_shared<FakeDisks>();
  StrategySlot slot_;  // no strategy published: the built-in order ranks
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<Balancer> balancer_;
  BalanceConfig config_;
  int64_t now_ = 1000;
  std::vector<BalanceMoveEvent> events_;
};

TEST_F(BalancerTest, StopsAMoveWhoseSourceGoesOffline) {
  balancer_->tick();
  BalanceStatus s = balancer_->status();
  ASSERT_EQ(s.in_flight.size(), 1u);
  EXPECT_EQ(s.in_flight[0].from, "/a");
  EXPECT_EQ(s.in_flight[0].to, "/b");
  EXPECT_EQ(logs_->moves_in_progress(), 1u);

  logs_->mark_offline(0, "test: the disk failed");
  now_ += 10;
  balancer_->tick();
  s = balancer_->status();
  EXPECT_TRUE(s.in_flight.empty());
  // The move is cancelled: no future replica is left in /b.
  const std::vector<LogDirDescription> dirs = logs_->describe();
  for (const PartitionDescription& p : dirs[1].partitions) {
    EXPECT_FALSE(p.is_future) << p.partition;
  }
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_FALSE(events_[0].completed);
  EXPECT_EQ(s.moves, 0u);
}

TEST_F(BalancerTest, NeverStartsAPlannedMoveIntoADirCordonedSinceThePlan) {
  balancer_->tick();
  BalanceStatus s = balancer_->status();
  ASSERT_EQ(s.in_flight.size(), 1u);
  ASSERT_GT(s.planned, 0u) << "the round plans more than one move";
  const TopicPartition first = s.in_flight[0].tp;

  logs_->set_cordoned([](const fs::path& d) { return d == "/b"; });
  // The running move finishes (the copy is simulated), and is counted once.
  EXPECT_EQ(logs_->in_memory_storage()->advance_move(first, 10 * kGiB), 10 * kGiB);
  disks_->set_used("/a", 70 * kGiB);
  disks_->set_used("/b", 10 * kGiB);
  now_ += 10;
  balancer_->tick();
  balancer_->tick();
  s = balancer_->status();
  EXPECT_EQ(s.moves, 1u);
  EXPECT_EQ(s.bytes_moved, 10 * kGiB);
  EXPECT_TRUE(s.in_flight.empty()) << "a move into the cordoned /b started";
  EXPECT_EQ(s.planned, 0u);
  EXPECT_EQ(logs_->moves_in_progress(), 0u);
  ASSERT_EQ(events_.size(), 1u);
  EXPECT_TRUE(events_[0].completed);
}

// replica.alter.log.dirs.io.max.bytes.per.second = 0 is a quota that lets no byte through
// (apache/kafka QuotaConfig.java, Range.atLeast(0)): a move could never finish, so the balancer
// plans none and says why, and goes on once the key is raised.
TEST_F(BalancerTest, WaitsWithAReasonWhileTheMoveThrottleIsZero) {
  balancer_->configure(config_, 0);
  balancer_->tick();
  BalanceStatus s = balancer_->status();
  EXPECT_TRUE(s.in_flight.empty());
  EXPECT_EQ(s.planned, 0u);
  EXPECT_EQ(logs_->moves_in_progress(), 0u);
  EXPECT_EQ(s.state, "stuck");
  EXPECT_NE(s.waiting.find("replica.alter.log.dirs.io.max.bytes.per.second is 0, so no move can "
                           "copy a byte until it is raised"),
            std::string::npos)
      << s.waiting;
  EXPECT_TRUE(balancer_->plan().moves.empty());
  EXPECT_THROW(balancer_->drain("/a", [] { FAIL() << "a drain that cannot move cordoned"; }),
               KafkaError);

  balancer_->configure(config_, 1ull << 30);
  now_ += 10;
  balancer_->tick();
  s = balancer_->status();
  EXPECT_EQ(s.in_flight.size(), 1u);
  EXPECT_EQ(s.waiting, "");
}

TEST_F(BalancerTest, HoldsPlannedMovesWhileTheMoveThrottleIsZero) {
  balancer_->tick();
  BalanceStatus s = balancer_->status();
  ASSERT_EQ(s.in_flight.size(), 1u);
  ASSERT_GT(s.planned, 0u);
  const size_t planned = s.planned;
  balancer_->configure(config_, 0);
  EXPECT_EQ(logs_->in_memory_storage()->advance_move(s.in_flight[0].tp, 10 * kGiB), 10 * kGiB);
  disks_->set_used("/a", 70 * kGiB);
  disks_->set_used("/b", 10 * kGiB);
  now_ += 10;
  balancer_->tick();
  s = balancer_->status();
  EXPECT_TRUE(s.in_flight.empty()) << "a move started that could not copy";
  EXPECT_EQ(s.planned, planned);
  EXPECT_EQ(s.waiting,
            "Moves wait: replica.alter.log.dirs.io.max.bytes.per.second is 0, so no move can copy "
            "a byte until it is raised.");
  balancer_->configure(config_, kNoMoveThrottle);
  now_ += 10;
  balancer_->tick();
  EXPECT_EQ(balancer_->status().in_flight.size(), 1u);
}

// Moves planned before a swap never start into a dir the new strategy refuses: the plan is dropped
// and made again with the new strategy ("forbiddir", a third-party test strategy, never ranks
// /b, so the 80% / 0% spread then has no move at all).
TEST_F(BalancerTest, AStrategySwapDropsTheMovesTheOldStrategyPlanned) {
  balancer_->tick();
  BalanceStatus s = balancer_->status();
  ASSERT_EQ(s.in_flight.size(), 1u);
  ASSERT_GT(s.planned, 0u) << "the round plans more than one move";
  StrategyLoadSpec spec;
  spec.plugin_dir = LDS_FORBID_PLUGIN_DIR;
  spec.name = "forbiddir";
  spec.options = {{"dir", "/b"}};
  spec.generation = slot_.next_generation();
  slot_.publish(logs_->load_strategy(spec));
  // The move already running may finish: it was started under the old strategy.
  EXPECT_EQ(logs_->in_memory_storage()->advance_move(s.in_flight[0].tp, 10 * kGiB), 10 * kGiB);
  disks_->set_used("/a", 70 * kGiB);
  disks_->set_used("/b", 10 * kGiB);
  for (int i = 0; i < 3; ++i) {
    now_ += 10;
    balancer_->tick();
  }
  s = balancer_->status();
  EXPECT_TRUE(s.in_flight.empty()) << "a move planned before the swap started into /b";
  EXPECT_EQ(s.planned, 0u);
  EXPECT_EQ(logs_->moves_in_progress(), 0u);
  EXPECT_EQ(s.moves, 1u);
}

// Runs every move in flight to its end (each replica is 10 GiB), keeping the fake disks' used
// bytes in step, and ticks, until nothing is in flight. Returns the bytes moved to /b.
uint64_t run_moves_to_the_end(Balancer& balancer, LogManager& logs, FakeDisks& disks,
                              uint64_t a_used, int64_t& now) {
  uint64_t moved = 0;
  for (int pass = 0; pass < 20 && !balancer.status().in_flight.empty(); ++pass) {
    for (const BalanceMoveStatus& m : balancer.status().in_flight) {
      EXPECT_EQ(logs.in_memory_storage()->advance_move(m.tp, 10 * kGiB), 10 * kGiB);
      moved += 10 * kGiB;
    }
    disks.set_used("/a", a_used - moved);
    disks.set_used("/b", moved);
    now += 10;
    balancer.tick();
  }
  return moved;
}

// A round on request (balance --execute) runs once: when its moves end the state goes back to
// "disabled", even when its plan stopped short of the band.
TEST_F(BalancerTest, ARoundOnRequestReturnsToDisabledOnceItsMovesEnd) {
  config_.enable = false;
  config_.threshold_percent = 2;  // band 42..43%: 10 GiB steps cannot land in it
  config_.max_concurrent_moves = 2;
  balancer_->configure(config_, kNoMoveThrottle);
  disks_->set_used("/a", 85 * kGiB);  // 5 GiB beside the partitions
  EXPECT_EQ(balancer_->status().state, "disabled");
  const BalancePlan plan = balancer_->execute();
  ASSERT_EQ(plan.moves.size(), 4u) << plan.summary;
  ASSERT_FALSE(plan.target_reached);
  EXPECT_EQ(balancer_->status().state, "balancing");
  EXPECT_EQ(run_moves_to_the_end(*balancer_, *logs_, *disks_, 85 * kGiB, now_), 40 * kGiB);
  const BalanceStatus s = balancer_->status();
  EXPECT_TRUE(s.in_flight.empty());
  EXPECT_EQ(s.planned, 0u);
  EXPECT_EQ(s.moves, 4u);
  EXPECT_EQ(s.state, "disabled");
}

TEST_F(BalancerTest, ARoundOnRequestReturnsToIdleOnceItsMovesEndWhenTheBalancerIsEnabled) {
  config_.threshold_percent = 6;  // band 41..44%: 10 GiB steps cannot land in it
  config_.interval_ms = 3600000;  // no automatic round during the test
  config_.max_concurrent_moves = 2;
  balancer_->configure(config_, kNoMoveThrottle);
  disks_->set_used("/a", 85 * kGiB);
  const BalancePlan plan = balancer_->execute();
  ASSERT_EQ(plan.moves.size(), 4u) << plan.summary;
  ASSERT_FALSE(plan.target_reached);
  EXPECT_EQ(run_moves_to_the_end(*balancer_, *logs_, *disks_, 85 * kGiB, now_), 40 * kGiB);
  EXPECT_EQ(balancer_->status().state, "idle");
  // The next automatic round finds the spread (5 points) under the threshold: still idle.
  now_ += 3600000;
  balancer_->tick();
  const BalanceStatus s = balancer_->status();
  EXPECT_TRUE(s.in_flight.empty());
  EXPECT_EQ(s.state, "idle") << s.last_round;
}

// A drain whose dir goes offline (a disk remounted read-only) cannot move what is left there: it
// stops, and says so with the replicas left, their count and bytes, instead of "drained".
TEST_F(BalancerTest, ADrainWhoseDirGoesOfflineStopsNamingTheReplicasLeftOnIt) {
  config_.enable = false;
  balancer_->configure(config_, kNoMoveThrottle);
  const DrainPlan plan = balancer_->drain("/a", [] {});
  ASSERT_EQ(plan.moves.size(), 8u) << plan.problem;
  for (int moved = 0; moved < 2; ++moved) {
    const BalanceStatus s = balancer_->status();
    ASSERT_EQ(s.in_flight.size(), 1u);
    EXPECT_EQ(logs_->in_memory_storage()->advance_move(s.in_flight[0].tp, 10 * kGiB), 10 * kGiB);
    now_ += 10;
    balancer_->tick();
  }
  ASSERT_EQ(balancer_->status().in_flight.size(), 1u) << "the third move is under way";
  logs_->mark_offline(0, "test: remounted read-only");
  now_ += 10;
  balancer_->tick();
  const BalanceStatus s = balancer_->status();
  const std::vector<std::string> left = logs_->describe()[0].unreadable_partitions;
  ASSERT_EQ(left.size(), 6u);
  std::string names;
  for (const std::string& name : left) names += (names.empty() ? "" : ", ") + name;
  EXPECT_EQ(s.state, "disabled");
  EXPECT_EQ(s.draining, "");
  EXPECT_TRUE(s.in_flight.empty());
  EXPECT_EQ(s.planned, 0u);
  EXPECT_EQ(s.last_drain, "/a");
  EXPECT_EQ(s.last_drain_result, "stopped");
  EXPECT_EQ(s.last_drain_message,
            "Drain of /a stopped: 6 replicas (60.0 GiB) remain on it, now offline: " + names);
  EXPECT_EQ(s.moves, 2u);
}

// A drain that empties its dir says so.
TEST_F(BalancerTest, ADrainThatEmptiesItsDirEndsDrained) {
  config_.enable = false;
  config_.max_concurrent_moves = 8;
  balancer_->configure(config_, kNoMoveThrottle);
  ASSERT_EQ(balancer_->drain("/a", [] {}).moves.size(), 8u);
  for (const BalanceMoveStatus& m : balancer_->status().in_flight) {
    EXPECT_EQ(logs_->in_memory_storage()->advance_move(m.tp, 10 * kGiB), 10 * kGiB);
  }
  now_ += 10;
  balancer_->tick();
  balancer_->tick();
  const BalanceStatus s = balancer_->status();
  EXPECT_EQ(s.draining, "");
  EXPECT_EQ(s.last_drain, "/a");
  EXPECT_EQ(s.last_drain_result, "drained");
  EXPECT_EQ(s.last_drain_message, "Drained /a.");
}

// A tick held inside the balancer, as by a hung strategy's ranking or a slow disk under a move's
// start, here by its clock: status() (a metrics scrape, `balance --status`) still answers, with
// the balancer as the last finished operation left it. Before, it waited on the tick's lock.
TEST_F(BalancerTest, StatusAnswersWhileATickIsStuckInsideTheBalancer) {
  std::mutex mu;
  std::condition_variable cv;
  bool hold = false, held = false, released = false;
  Balancer b(*logs_, slot_, nullptr, [&] {
    std::unique_lock lock(mu);
    if (hold) {
      held = true;
      cv.notify_all();
      cv.wait(lock, [&] { return released; });
    }
    return now_;
  });
  b.configure(config_, kNoMoveThrottle);
  b.tick();
  ASSERT_EQ(b.status().in_flight.size(), 1u);

  {
    std::lock_guard lock(mu);
    hold = true;
  }
  std::thread ticker([&] { b.tick(); });
  auto release = [&] {
    {
      std::lock_guard lock(mu);
      released = true;
    }
    cv.notify_all();
    ticker.join();
  };
  {
    std::unique_lock lock(mu);
    if (!cv.wait_for(lock, std::chrono::seconds(30), [&] { return held; })) {
      lock.unlock();
      release();
      FAIL() << "the tick never reached the balancer's clock";
    }
  }
  auto status = std::async(std::launch::async, [&] { return b.status(); });
  const bool answered = status.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  release();  // lets a status() that waited finish, so the future is always joined
  ASSERT_TRUE(answered) << "status() waited for the stuck tick";
  const BalanceStatus s = status.get();
  EXPECT_EQ(s.state, "balancing");
  ASSERT_EQ(s.in_flight.size(), 1u);
  EXPECT_EQ(s.in_flight[0].to, "/b");
}

// A strategy that stalls in a balance round's ranking (a placement service that stopped answering)
// holds that tick alone: cancel() and status() answer meanwhile, and the plan the tick makes once
// the strategy answers is dropped, not started, because the round was cancelled while it was made.
TEST_F(BalancerTest, CancelAnswersWhileATickWaitsOnTheStrategysRanking) {
  const fs::path hold = fs::temp_directory_path() / ("lds-rank-hold-" + std::to_string(::getpid()));
  std::ofstream(hold).close();
  ::setenv("LDS_BAD_RANK_HOLD", hold.c_str(), 1);
  struct Release {
    fs::path file;
    ~Release() {
      std::error_code ec;
      fs::remove(file, ec);
      ::unsetenv("LDS_BAD_RANK_HOLD");
    }
  } release{hold};
  StrategyLoadSpec spec;
  spec.plugin_dir = LDS_BAD_PLUGIN_DIR;
  spec.name = "bad_rank_waits";
  spec.generation = slot_.next_generation();
  slot_.publish(logs_->load_strategy(spec));

  std::atomic<bool> ticked{false};
  std::thread ticker([&] {
    balancer_->tick();  // plans a round: the strategy ranks its moves, and waits
    ticked = true;
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  const bool stalled = !ticked;
  auto cancel = std::async(std::launch::async, [&] { return balancer_->cancel(); });
  const bool cancelled = cancel.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  auto status = std::async(std::launch::async, [&] { return balancer_->status(); });
  const bool described = status.wait_for(std::chrono::seconds(30)) == std::future_status::ready;
  fs::remove(hold);  // the strategy answers
  ticker.join();

  ASSERT_TRUE(stalled) << "the tick did not wait on the strategy";
  ASSERT_TRUE(cancelled) << "cancel() waited for the strategy";
  ASSERT_TRUE(described) << "status() waited for the strategy";
  EXPECT_EQ(cancel.get(), 0u);
  EXPECT_EQ(status.get().state, "cancelled");
  const BalanceStatus s = balancer_->status();
  EXPECT_EQ(s.state, "cancelled");
  EXPECT_TRUE(s.in_flight.empty()) << "the plan made while the round was cancelled started";
  EXPECT_EQ(s.planned, 0u);
  EXPECT_EQ(logs_->moves_in_progress(), 0u);
}

}  // namespace
}  // namespace lds
