// balancer.h: the intra-broker balancer and drain: a service that keeps the log directories within
// log.dir.balance.threshold.percent of each other by moving replicas, and empties a directory on
// request.
//
// Every move goes through LogManager::alter_replica_log_dir, the path of AlterReplicaLogDirs, so
// balancer and drain moves are copied, throttled and recovered after kill -9 exactly as manual
// ones. The plan comes from plan_balance() (balance/balance_planner.h) over balance_snapshot()
// (balance/balance_model.h), with destinations ranked by the active strategy. The same class runs
// in `lds-host serve` (its own thread) and in the simulator (tick() called once per step, on a
// simulated clock).
#pragma once

#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "balance/balance_model.h"
#include "balance/balance_planner.h"
#include "balance/blocked_moves.h"
#include "config/balance_config.h"
#include "storage/log_manager.h"
#include "strategy/strategy_slot.h"
#include "util/errors.h"
#include "util/mutex.h"

namespace spdlog {
class logger;
}

namespace lds {

// One move the balancer or a drain started, while it runs.
struct BalanceMoveStatus {
  TopicPartition tp;
  std::string from;
  std::string to;
  uint64_t size = 0;    // the replica's size now
  uint64_t copied = 0;  // copied so far
  bool drain = false;
};

// What DescribeBalance and `lds-host balance --status` show.
struct BalanceStatus {
  // "disabled", "idle", "balancing", "stuck" (the spread calls for moves but none fits or lowers
  // it), "draining" or "cancelled"
  std::string state;
  bool enabled = false;
  double threshold_percent = 0;
  double spread_percent = 0;  // now, over online, uncordoned dirs
  double ideal_percent = 0;
  uint64_t rounds = 0;
  uint64_t moves = 0;              // moves finished since start
  uint64_t bytes_moved = 0;        // their bytes
  uint64_t lower_bound_bytes = 0;  // Σ over rounds of each round's lower bound
  std::vector<BalanceMoveStatus> in_flight;
  size_t planned = 0;             // moves of the round not started yet
  size_t blocked = 0;             // moves left out of plans after they failed (BlockedMoves)
  std::string draining;           // the dir being drained, or empty
  uint64_t drain_bytes = 0;       // bytes the drain planned to move
  uint64_t drain_bytes_left = 0;  // bytes still on the drained dir
  std::string last_round;         // the last plan's summary
  // Why the balancer or the drain makes no move although it wants to (every candidate move
  // failed, or none has a destination), and when it tries again; empty otherwise.
  std::string waiting;
  // How the last drain ended, once it has: its dir (empty before the first), "drained",
  // "stopped" (its dir went offline with replicas still on it) or "cancelled", and the sentence.
  std::string last_drain;
  std::string last_drain_result;
  std::string last_drain_message;
};

// A finished or stopped move, for whoever watches the balancer (the simulator's checks).
struct BalanceMoveEvent {
  TopicPartition tp;
  int64_t started_ms = 0;
  int64_t finished_ms = 0;
  uint64_t bytes = 0;
  bool completed = false;  // false: cancelled, failed, or its source went offline
};

class Balancer {
 public:
  using Clock = std::function<int64_t()>;  // milliseconds

  // `clock` defaults to the steady clock; the simulator passes its own.
  Balancer(LogManager& logs, StrategySlot& slot, PartitionRate rate, Clock clock = {});
  ~Balancer();
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  // The log.dir.balance.* keys and replica.alter.log.dirs.io.max.bytes.per.second; applies at the
  // next tick.
  void configure(const BalanceConfig& config, uint64_t throttle_bytes_per_sec);

  // Starts and stops the thread that ticks every min(interval, 1 s), and at once whenever a move
  // of the LogManager ends, so that the next planned move starts then, not a tick later.
  void start();
  void stop();

  // One pass: notes the moves that ended, starts planned moves while fewer than
  // max.concurrent.moves run, and plans a round when enabled, idle and the interval has passed.
  // A drain whose dir went offline stops there, naming the replicas left on it.
  void tick();

  // The round that would run now (balance --plan); changes nothing.
  BalancePlan plan() const;
  // Plans a round now, whatever the spread and the enable flag, and runs it (balance --execute).
  BalancePlan execute();
  // Stops the round: planned moves are dropped and moves in flight cancelled (balance --cancel).
  // Returns how many moves were cancelled.
  size_t cancel();

  // Drains `dir`: refuses, changing nothing, when the other dirs cannot hold its data (KafkaError
  // INVALID_REPLICA_ASSIGNMENT naming the shortfall in bytes), or LOG_DIR_NOT_FOUND /
  // KAFKA_STORAGE_ERROR for an unknown or offline dir. Otherwise calls `cordon` (the dynamic
  // config change, which may throw and then nothing else happens) and queues every move.
  DrainPlan drain(const std::filesystem::path& dir, const std::function<void()>& cordon);

  BalanceStatus status() const;

  // Called, outside the balancer's lock, for every move that ends.
  void set_move_listener(std::function<void(const BalanceMoveEvent&)> listener);

 private:
  // The "lds.balancer" logger, which balancer/rounds.cpp and balancer/operator_calls.cpp both write
  // to.
  static std::shared_ptr<spdlog::logger> log();
  // A move this balancer started. Whether it still runs is the mover's to say (the snapshot's
  // moves): this only records what the mover does not know, who started it and when.
  struct Started {
    PlannedMove move;
    int64_t started_ms = 0;
    bool drain = false;
    // The operation that chose it is still asking the LogManager to start it, without mu_.
    bool starting = false;
  };
  // A move an operation starts once it has let mu_ go: the start makes and syncs the move's folder
  // on its destination, which a slow or stuck disk may hold for long.
  struct MoveStart {
    PlannedMove move;
    std::string to_path;
    std::string announce;  // what is logged once it has started
  };
  // The LogManager calls an operation makes without mu_: the moves it stops, then the one it
  // starts. Moves start one at a time, so that a refusal is known before the next is chosen.
  struct MoveCalls {
    std::vector<TopicPartition> stops;
    std::optional<MoveStart> start;
    bool empty() const { return stops.empty() && !start; }
  };
  // One operation's reading of the dirs and what it saw end, carried between its steps.
  struct Pass {
    int64_t now = 0;
    BalanceSnapshot snap;
    BalanceModel model;  // snap's, with the moves this pass starts
    std::vector<BalanceMoveEvent> ended;
  };
  // What a plan is made from, copied under mu_ so that the strategy ranks without it.
  struct PlanInputs {
    BalanceSettings settings;
    BlockedMoves blocked;     // the strategy's ranking leaves their destinations out
    uint64_t generation = 0;  // the active strategy's, before it ranks: a swap drops the plan
    uint64_t cancels = 0;     // cancel() calls so far: one while the plan is made drops it
  };
  // What status() reads of the balancer: a copy that each operation (a tick, execute, cancel,
  // drain) publishes as it lets mu_ go. status() takes only view_mu_, so a metrics scrape or
  // `balance --status` never waits for a tick's disk I/O (a move's start makes and syncs its
  // folder) or for a strategy's ranking, even a hung one: it shows the balancer as the last
  // operation left it, and the dirs as they are.
  struct View {
    std::vector<std::pair<TopicPartition, Started>> started;
    size_t planned = 0;
    BlockedMoves blocked;
    bool balancing = false;
    bool cancelled = false;
    bool stuck = false;
    uint64_t rounds = 0;
    uint64_t moves = 0;
    uint64_t bytes_moved = 0;
    uint64_t lower_bound_bytes = 0;
    std::string draining;
    uint32_t draining_index = 0;
    uint64_t drain_bytes = 0;
    std::string drain_waiting;
    std::string last_drain, last_drain_result, last_drain_message;
    std::string last_round;
  };
  // Refuses a drain of dir `index`, changing nothing, unless the other dirs can hold its data
  // (drain()'s first step, before the cordon).
  void check_drain(uint32_t index) EXCLUDES(op_mu_, mu_);
  // status()'s state ("draining", "stuck", "balancing", ...) and why it waits, from `v`.
  void describe_state(const View& v, const BalanceModel& model, BalanceStatus& s) const;
  // The moves a status shows in flight, by partition name.
  static std::vector<BalanceMoveStatus> moves_in_flight(const View& v, const BalanceSnapshot& snap);
  // One operation on the balancer: holds mu_, and publishes the view before it lets mu_ go.
  class SCOPED_CAPABILITY Operation {
   public:
    explicit Operation(Balancer& b) ACQUIRE(b.mu_) : balancer_(b) { balancer_.mu_.lock(); }
    // The analysis does not follow a lock held through a member of this object.
    ~Operation() RELEASE() NO_THREAD_SAFETY_ANALYSIS {
      balancer_.publish_locked();
      balancer_.mu_.unlock();
    }
    Operation(const Operation&) = delete;
    Operation& operator=(const Operation&) = delete;

   private:
    Balancer& balancer_;
  };
  // Copies what status() reads into a new view (mu_ held). Never throws: without memory for the
  // copy, status() shows the previous one.
  void publish_locked() noexcept REQUIRES(mu_);
  BalanceSettings settings_locked(int64_t now, bool force) const REQUIRES(mu_);
  // replica.alter.log.dirs.io.max.bytes.per.second is 0: no move can copy, so none is started.
  bool moves_held() const;
  // Notes the moves that ended since the last pass; those whose source went offline are added to
  // `stops`.
  void observe_locked(const BalanceSnapshot& snap, int64_t now,
                      std::vector<BalanceMoveEvent>& ended, std::vector<TopicPartition>& stops)
      REQUIRES(mu_);
  // Reads the dirs into `pass`, notes the moves that ended, and stops those whose source went
  // offline.
  void observe(Pass& pass) REQUIRES(op_mu_) EXCLUDES(mu_);
  // Why planned move `m` (of `p`, null when no longer hosted) may not start now, or "".
  std::string start_problem_locked(const Pass& pass, const PlannedMove& m,
                                   const BalancePartition* p) const REQUIRES(mu_);
  // Chooses the next planned move to start, if fewer than max.concurrent.moves run, into `calls`;
  // started_ holds it, `starting`, from here on. Planned moves that no longer fit are dropped.
  void start_moves_locked(Pass& pass, MoveCalls& calls) REQUIRES(mu_);
  // Makes `calls` without mu_, records what the start did, and goes on with the next planned move
  // until max.concurrent.moves run or none is left.
  void run_moves(Pass& pass, MoveCalls calls) REQUIRES(op_mu_) EXCLUDES(mu_);
  // A refused start (`refusal` not empty) is blocked (BlockedMoves) and forgotten; a move that
  // cancel() dropped while it started is added to `stops`.
  void record_start_locked(Pass& pass, const MoveStart& start, const std::string& refusal,
                           std::vector<TopicPartition>& stops) REQUIRES(mu_);
  // A tick's drain step: a drain whose dir went offline stops; an idle drain plans its next moves.
  void tick_drain(Pass& pass) REQUIRES(op_mu_) EXCLUDES(mu_);
  // A tick's round: ends a round whose moves are done, and plans and starts the next one when due.
  void tick_round(Pass& pass, bool enabled) REQUIRES(op_mu_) EXCLUDES(mu_);
  void install_round_locked(const BalancePlan& plan, const PlanInputs& in,
                            const BalanceModel& model) REQUIRES(mu_);
  BalanceSnapshot snapshot_locked() const REQUIRES(mu_);
  PlanInputs plan_inputs_locked(int64_t now, bool force) const REQUIRES(mu_);
  // The strategy's ranking without the destinations blocked for each partition.
  RankDestinations ranker(const BlockedMoves& blocked) const { return blocked.filter(rank_); }
  // Forgets the blocked moves that may be tried again (BlockedMoves::expire).
  void unblock_locked(const BalanceModel& model, int64_t now) REQUIRES(mu_);
  // Logs `text` as a warning unless it is the one logged last.
  void warn_once_locked(const std::string& text) REQUIRES(mu_);
  // Whether an idle drain plans its next moves now: not once its dir is empty (it ends drained),
  // nor while moves are held (drain_waiting_ says so).
  bool drain_wants_plan_locked(const BalanceSnapshot& snap) REQUIRES(mu_);
  // A drain's next moves, or why it waits (drain_waiting_).
  void install_drain_plan_locked(const BalanceSnapshot& snap, const DrainPlan& again,
                                 uint64_t generation) REQUIRES(mu_);
  // The drained dir went offline: the drain ends, its planned moves dropped; it is "stopped",
  // naming the replicas left there, or "drained" when none is.
  void stop_drain_of_offline_dir_locked(const BalanceSnapshot& snap) REQUIRES(mu_);
  void end_drain_locked(const std::string& result, const std::string& message) REQUIRES(mu_);
  // The generation of the active strategy (0 before the first), which ranks every plan.
  uint64_t strategy_generation() const;
  // Drops the planned moves when the strategy that ranked them is no longer the active one, so
  // no move starts into a dir the new strategy refuses; a plan is made again with it. True if so.
  bool drop_plan_of_old_strategy_locked(int64_t now) REQUIRES(mu_);
  // Stops the moves of `tps`, mu_ not held; a stop that fails is logged.
  void stop_moves(const std::vector<TopicPartition>& tps) EXCLUDES(mu_);
  void notify(const std::vector<BalanceMoveEvent>& ended);
  void run_thread();

  LogManager& logs_;
  StrategySlot& slot_;
  PartitionRate rate_;
  Clock clock_;
  RankDestinations rank_;

  mutable Mutex config_mu_;  // guards the two below only: configure() never waits for a tick
  BalanceConfig config_ GUARDED_BY(config_mu_);
  uint64_t throttle_ GUARDED_BY(config_mu_) = kNoMoveThrottle;

  // One operation that plans or starts moves at a time (a tick, execute, drain). Held across their
  // rankings and the LogManager calls that start and stop moves, where mu_ is not: cancel(),
  // plan() and status() never take it, so a stuck disk or strategy does not hold them. Taken
  // before mu_.
  Mutex op_mu_;
  mutable Mutex mu_ ACQUIRED_AFTER(op_mu_);  // guards everything below; never held across I/O
  std::deque<PlannedMove> planned_ GUARDED_BY(mu_);
  bool planned_drain_ GUARDED_BY(mu_) = false;       // planned_ holds a drain's moves
  uint64_t planned_generation_ GUARDED_BY(mu_) = 0;  // the strategy generation that ranked planned_
  std::unordered_map<TopicPartition, Started, TopicPartitionHash> started_ GUARDED_BY(mu_);
  BlockedMoves blocked_
      GUARDED_BY(mu_);  // moves that failed, left out of plans until something changes
  std::unordered_map<TopicPartition, int64_t, TopicPartitionHash> last_moved_ GUARDED_BY(mu_);
  bool balancing_ GUARDED_BY(mu_) =
      false;  // a round is under way (hysteresis: keep going to half the threshold)
  bool round_reaches_target_ GUARDED_BY(mu_) = false;
  bool round_on_request_ GUARDED_BY(mu_) =
      false;  // the round was asked for (balance --execute): it runs once
  bool cancelled_ GUARDED_BY(mu_) = false;
  uint64_t cancels_ GUARDED_BY(mu_) = 0;  // cancel() calls so far
  bool stuck_ GUARDED_BY(mu_) =
      false;  // the last plan wanted to act but found no move (logged once)
  int64_t next_plan_ms_ GUARDED_BY(mu_) = 0;
  uint64_t rounds_ GUARDED_BY(mu_) = 0;
  uint64_t moves_ GUARDED_BY(mu_) = 0;
  uint64_t bytes_moved_ GUARDED_BY(mu_) = 0;
  uint64_t lower_bound_bytes_ GUARDED_BY(mu_) = 0;
  std::string draining_ GUARDED_BY(mu_);
  uint32_t draining_index_ GUARDED_BY(mu_) = 0;
  uint64_t drain_bytes_ GUARDED_BY(mu_) = 0;
  std::string drain_waiting_ GUARDED_BY(mu_);  // why the drain makes no move now, or empty
  // BalanceStatus's
  std::string last_drain_ GUARDED_BY(mu_);
  std::string last_drain_result_ GUARDED_BY(mu_);
  std::string last_drain_message_ GUARDED_BY(mu_);
  std::string last_warning_
      GUARDED_BY(mu_);  // the last "waits" warning logged, so each is logged once
  std::string last_round_ GUARDED_BY(mu_);
  std::function<void(const BalanceMoveEvent&)> listener_ GUARDED_BY(mu_);

  mutable Mutex view_mu_;  // a leaf: guards view_ only, never held across a call
  std::shared_ptr<const View> view_ GUARDED_BY(view_mu_) = std::make_shared<const View>();

  Mutex thread_mu_;
  CondVar wake_;
  bool stopping_ GUARDED_BY(thread_mu_) = false;
  bool poked_ GUARDED_BY(thread_mu_) = false;  // a move ended since the last pass
  std::thread thread_;                         // started and joined by start() and stop() alone
};

}  // namespace lds
