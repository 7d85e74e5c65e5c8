// balancer/operator_calls.cpp: the operator's calls into the balancer: plan, execute, cancel, drain
// and status. The rounds they start or stop, and the thread that runs them, are in
// balancer/rounds.cpp.
#include <algorithm>

#include "balance/balancer.h"
#include "util/byte_size.h"
#include "util/logging.h"

namespace lds {

namespace fs = std::filesystem;
BalancePlan Balancer::plan() const {
  BalanceSnapshot snap;
  PlanInputs in;
  {
    MutexLock lock(mu_);
    snap = snapshot_locked();
    in = plan_inputs_locked(clock_(), false);
  }
  return plan_balance(snap.model, in.settings, ranker(in.blocked));
}

BalancePlan Balancer::execute() {
  MutexLock serial(op_mu_);
  Pass pass;
  {
    Operation op(*this);
    if (!draining_.empty()) {
      throw KafkaError(ErrorCode::kInvalidRequest,
                       "A drain of " + draining_ + " is running; cancel it first.");
    }
    pass.now = clock_();
  }
  observe(pass);
  PlanInputs in;
  {
    Operation op(*this);
    unblock_locked(pass.snap.model, pass.now);
    in = plan_inputs_locked(pass.now, true);
  }
  BalancePlan plan = plan_balance(pass.snap.model, in.settings, ranker(in.blocked));
  MoveCalls calls;
  {
    Operation op(*this);
    last_round_ = plan.summary;
    if (!plan.moves.empty()) {
      ++rounds_;
      balancing_ = true;
      stuck_ = false;
      cancelled_ = false;
      round_reaches_target_ = plan.target_reached;
      round_on_request_ = true;
      {
        // It counts as the balancer's round: the next automatic one is an interval away.
        MutexLock config_lock(config_mu_);
        next_plan_ms_ = pass.now + config_.interval_ms;
      }
      lower_bound_bytes_ += plan.lower_bound_bytes;
      log()->info("balance round {} on request: ideal fill {}%, {}", rounds_,
                  percent_text(plan.ideal_percent), plan.summary);
      planned_drain_ = false;
      planned_.assign(plan.moves.begin(), plan.moves.end());
      planned_generation_ = in.generation;
      start_moves_locked(pass, calls);
    }
  }
  run_moves(pass, std::move(calls));
  notify(pass.ended);
  return plan;
}

size_t Balancer::cancel() {
  std::vector<BalanceMoveEvent> ended;
  std::vector<TopicPartition> stops;
  {
    Operation op(*this);
    ++cancels_;
    const int64_t now = clock_();
    const size_t dropped = planned_.size();
    planned_.clear();
    planned_drain_ = false;
    for (const auto& [tp, f] : started_) {
      // A move still starting is stopped by the operation starting it, once it has started: its
      // partition is busy until then, perhaps on a stuck disk, which cancel() does not wait for.
      if (!f.starting) stops.push_back(tp);
      ended.push_back({tp, f.started_ms, now, 0, false});
    }
    started_.clear();
    balancing_ = false;
    cancelled_ = true;
    if (!draining_.empty()) {
      log()->info("drain of {} cancelled", draining_);
      end_drain_locked("cancelled", "The drain of " + draining_ + " was cancelled.");
    }
    drain_waiting_.clear();
    last_warning_.clear();
    log()->info("balance round cancelled: {} moves stopped, {} planned moves dropped", ended.size(),
                dropped);
    int64_t interval;
    {
      MutexLock config_lock(config_mu_);
      interval = config_.interval_ms;
    }
    next_plan_ms_ = now + interval;
  }
  stop_moves(stops);
  notify(ended);
  return ended.size();
}

DrainPlan Balancer::drain(const fs::path& dir, const std::function<void()>& cordon) {
  const int index = logs_.dir_index(canonical_path("/", dir));
  if (!dir.is_absolute() || index < 0) {
    throw KafkaError(ErrorCode::kLogDirNotFound,
                     "Log dir " + dir.string() + " is not found in the config.");
  }
  const auto drained = static_cast<uint32_t>(index);
  check_drain(drained);
  // The cordon is a config change; the broker applies it (and calls configure()) outside the
  // balancer's locks.
  cordon();
  MutexLock serial(op_mu_);
  Pass pass;
  {
    Operation op(*this);
    pass.now = clock_();
  }
  observe(pass);
  PlanInputs in;
  {
    Operation op(*this);
    in = plan_inputs_locked(pass.now, false);
  }
  // Planned again now that the cordon applies: moves may have ended meanwhile.
  DrainPlan plan = plan_drain(pass.snap.model, drained, ranker(in.blocked));
  if (!plan.problem.empty()) throw KafkaError(ErrorCode::kInvalidReplicaAssignment, plan.problem);
  MoveCalls calls;
  {
    Operation op(*this);
    // Moves into the drained dir stop; balancer moves already running elsewhere may finish.
    for (const BalancePartition& p : pass.snap.model.partitions) {
      if (p.moving && p.moving_to == drained) {
        calls.stops.push_back(p.tp);
        started_.erase(p.tp);
      }
    }
    planned_.assign(plan.moves.begin(), plan.moves.end());
    planned_generation_ = in.generation;
    planned_drain_ = true;
    balancing_ = false;
    draining_ = pass.snap.model.dirs[drained].path;
    draining_index_ = drained;
    last_drain_.clear();
    last_drain_result_.clear();
    last_drain_message_.clear();
    drain_bytes_ = plan.bytes;
    drain_waiting_.clear();
    log()->info("draining {}: {} moves of {} to the other log directories", draining_,
                plan.moves.size(), format_byte_size(plan.bytes));
    start_moves_locked(pass, calls);
  }
  run_moves(pass, std::move(calls));
  notify(pass.ended);
  return plan;
}

void Balancer::check_drain(uint32_t index) {
  MutexLock serial(op_mu_);
  BalanceSnapshot snap;
  PlanInputs in;
  {
    Operation op(*this);
    snap = snapshot_locked();
    const BalanceDir& d = snap.model.dirs[index];
    if (!d.online) {
      throw KafkaError(ErrorCode::kKafkaStorageError, "Log directory " + d.path + " is offline");
    }
    if (moves_held()) {
      throw KafkaError(
          ErrorCode::kInvalidReplicaAssignment,
          "Cannot drain " + d.path + ": " + std::string(kMovesHeldByZeroThrottle) + ".");
    }
    snap.model.dirs[index].cordoned = true;
    unblock_locked(snap.model, clock_());
    in = plan_inputs_locked(clock_(), false);
  }
  DrainPlan plan = plan_drain(snap.model, index, ranker(in.blocked));
  if (plan.problem.empty()) return;
  if (const std::string failed = in.blocked.describe(snap.model, plan.unplaced); !failed.empty()) {
    plan.problem += " " + failed;
  }
  log()->warn("drain refused: {}", plan.problem);
  throw KafkaError(ErrorCode::kInvalidReplicaAssignment, plan.problem);
}

void Balancer::describe_state(const View& v, const BalanceModel& model, BalanceStatus& s) const {
  if (!v.draining.empty()) {
    s.state = "draining";
    s.waiting = v.drain_waiting;
    if (s.waiting.empty() && moves_held()) {
      s.waiting =
          "The drain of " + v.draining + " waits: " + std::string(kMovesHeldByZeroThrottle) + ".";
    }
  } else if (v.stuck && s.enabled && v.started.empty() && v.planned == 0) {
    s.state = "stuck";  // the spread calls for moves, but none fits or lowers it
    const std::string failed = v.blocked.describe(model, {});
    s.waiting = "Cannot balance now: " + v.last_round + "." + (failed.empty() ? "" : " " + failed);
  } else if (v.balancing || !v.started.empty() || v.planned != 0) {
    s.state = "balancing";
    if (moves_held() && (!v.started.empty() || v.planned != 0)) {
      s.waiting = "Moves wait: " + std::string(kMovesHeldByZeroThrottle) + ".";
    }
  } else if (v.cancelled) {
    s.state = "cancelled";
  } else {
    s.state = s.enabled ? "idle" : "disabled";
  }
}

// The moves a status shows in flight, by partition name: those started and not yet seen to end.
// A move is in flight until a tick has seen it end (counted it, or blocked it): so a status with
// nothing in flight is one the balancer has already planned from.
std::vector<BalanceMoveStatus> Balancer::moves_in_flight(const View& v,
                                                         const BalanceSnapshot& snap) {
  std::vector<BalanceMoveStatus> out;
  for (const auto& [tp, f] : v.started) {
    BalanceMoveStatus m;
    m.tp = tp;
    m.from = snap.model.dirs[f.move.from].path;
    m.to = snap.model.dirs[f.move.to].path;
    m.drain = f.drain;
    if (auto it = snap.moves.find(tp); it != snap.moves.end()) {
      m.size = it->second.size;
      m.copied = it->second.copied;
    } else {
      m.size = f.move.bytes;
    }
    out.push_back(std::move(m));
  }
  std::sort(out.begin(), out.end(), [](const BalanceMoveStatus& a, const BalanceMoveStatus& b) {
    return a.tp.str() < b.tp.str();
  });
  return out;
}

BalanceStatus Balancer::status() const {
  std::shared_ptr<const View> v;
  {
    MutexLock lock(view_mu_);
    v = view_;
  }
  BalanceStatus s;
  {
    MutexLock config_lock(config_mu_);
    s.enabled = config_.enable;
    s.threshold_percent = config_.threshold_percent;
  }
  // The spread needs no cooldowns: status() reads the dirs without the balancer's lock.
  const BalanceSnapshot snap = balance_snapshot(logs_, {}, rate_);
  BalanceSettings quiet;
  quiet.threshold_percent = s.threshold_percent;
  BalancePlan now = plan_balance(
      snap.model, quiet, [](const BalancePartition&, std::span<const DestinationCandidate>) {
        return std::vector<uint32_t>{};
      });
  s.spread_percent = now.spread_before_percent;
  s.ideal_percent = now.ideal_percent;
  s.rounds = v->rounds;
  s.moves = v->moves;
  s.bytes_moved = v->bytes_moved;
  s.lower_bound_bytes = v->lower_bound_bytes;
  s.planned = v->planned;
  s.blocked = v->blocked.size();
  s.draining = v->draining;
  s.drain_bytes = v->drain_bytes;
  if (!v->draining.empty()) {
    for (const BalancePartition& p : snap.model.partitions) {
      if (p.dir == v->draining_index) s.drain_bytes_left += p.size;
    }
  }
  s.last_round = v->last_round;
  s.last_drain = v->last_drain;
  s.last_drain_result = v->last_drain_result;
  s.last_drain_message = v->last_drain_message;
  s.in_flight = moves_in_flight(*v, snap);
  describe_state(*v, snap.model, s);
  return s;
}
}  // namespace lds
