// balancer/rounds.cpp: the balancer's rounds, what it watches of its moves in flight, and its
// thread (starting a move: balancer/move_starts.cpp; the operator's calls:
// balancer/operator_calls.cpp).
#include <algorithm>
#include <chrono>
#include <optional>

#include "balance/balancer.h"
#include "config/config.h"
#include "util/byte_size.h"
#include "util/logging.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

int64_t steady_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

}  // namespace

std::shared_ptr<spdlog::logger> Balancer::log() {
  static auto l = logger("lds.balancer");
  return l;
}

Balancer::Balancer(LogManager& logs, StrategySlot& slot, PartitionRate rate, Clock clock)
    : logs_(logs),
      slot_(slot),
      rate_(std::move(rate)),
      clock_(clock ? std::move(clock) : Clock(steady_ms)),
      rank_(strategy_ranker(logs, slot)) {}

Balancer::~Balancer() { stop(); }

void Balancer::configure(const BalanceConfig& config, uint64_t throttle_bytes_per_sec) {
  MutexLock lock(config_mu_);
  config_ = config;
  throttle_ = throttle_bytes_per_sec;
}

void Balancer::set_move_listener(std::function<void(const BalanceMoveEvent&)> listener) {
  MutexLock lock(mu_);
  listener_ = std::move(listener);
}

void Balancer::publish_locked() noexcept {
  try {
    auto v = std::make_shared<View>();
    v->started.assign(started_.begin(), started_.end());
    v->planned = planned_.size();
    v->blocked = blocked_;
    v->balancing = balancing_;
    v->cancelled = cancelled_;
    v->stuck = stuck_;
    v->rounds = rounds_;
    v->moves = moves_;
    v->bytes_moved = bytes_moved_;
    v->lower_bound_bytes = lower_bound_bytes_;
    v->draining = draining_;
    v->draining_index = draining_index_;
    v->drain_bytes = drain_bytes_;
    v->drain_waiting = drain_waiting_;
    v->last_drain = last_drain_;
    v->last_drain_result = last_drain_result_;
    v->last_drain_message = last_drain_message_;
    v->last_round = last_round_;
    MutexLock lock(view_mu_);
    view_ = std::move(v);
  } catch (const std::exception& e) {
    log()->warn("balancer status not refreshed: {}", e.what());
  }
}

BalanceSettings Balancer::settings_locked(int64_t now, bool force) const {
  MutexLock lock(config_mu_);
  BalanceSettings s;
  s.threshold_percent = config_.threshold_percent;
  s.cooldown_ms = config_.cooldown_ms;
  s.now_ms = now;
  s.throttle_bytes_per_sec = throttle_;
  s.balancing = balancing_;
  s.force = force;
  return s;
}

BalanceSnapshot Balancer::snapshot_locked() const {
  return balance_snapshot(logs_, last_moved_, rate_);
}

Balancer::PlanInputs Balancer::plan_inputs_locked(int64_t now, bool force) const {
  PlanInputs in;
  in.settings = settings_locked(now, force);
  in.blocked = blocked_;
  in.generation = strategy_generation();
  in.cancels = cancels_;
  return in;
}

void Balancer::unblock_locked(const BalanceModel& model, int64_t now) {
  int64_t cooldown;
  {
    MutexLock lock(config_mu_);
    cooldown = config_.cooldown_ms;
  }
  blocked_.expire(model, now, cooldown);
}

void Balancer::warn_once_locked(const std::string& text) {
  if (text == last_warning_) return;
  last_warning_ = text;
  log()->warn("{}", text);
}

void Balancer::observe_locked(const BalanceSnapshot& snap, int64_t now,
                              std::vector<BalanceMoveEvent>& ended,
                              std::vector<TopicPartition>& stops) {
  std::vector<FailedMoveDescription> failures;
  bool failures_read = false;
  for (auto it = started_.begin(); it != started_.end();) {
    const TopicPartition& tp = it->first;
    const Started& f = it->second;
    auto running = snap.moves.find(tp);
    const bool source_online =
        f.move.from < snap.model.dirs.size() && snap.model.dirs[f.move.from].online;
    if (running != snap.moves.end() && running->second.to == f.move.to) {
      if (source_online) {
        ++it;
        continue;
      }
      // The source went offline: stop, as a move from it can never finish.
      stops.push_back(tp);
      log()->warn("stopped moving {}: its source {} went offline", tp.str(),
                  snap.model.dirs[f.move.from].path);
      ended.push_back({tp, f.started_ms, now, 0, false});
      it = started_.erase(it);
      continue;
    }
    const BalancePartition* p = snap.model.find(tp);
    const std::string& to_path = snap.model.dirs[f.move.to].path;
    if (p != nullptr && p->dir == f.move.to) {
      ++moves_;
      bytes_moved_ += p->size;
      last_moved_[tp] = now;
      last_warning_.clear();  // progress: a later wait is news again
      log()->info("moved {} ({}) from {} to {}", tp.str(), format_byte_size(p->size),
                  snap.model.dirs[f.move.from].path, to_path);
      ended.push_back({tp, f.started_ms, now, p->size, true});
    } else {
      // The mover keeps the reason of a failed move; a move that failed is not planned again
      // until something changes.
      if (!failures_read) {
        failures = logs_.failed_moves();
        failures_read = true;
      }
      const std::string name = tp.str();
      auto failed = std::find_if(failures.begin(), failures.end(), [&](const auto& m) {
        return m.partition == name && m.log_dir == to_path;
      });
      if (failed != failures.end() && p != nullptr) {
        log()->warn("the move of {} to {} failed: {}", name, to_path, failed->message);
        blocked_.add(tp, f.move.to, failed->message, snap.model, now);
      } else {
        log()->warn("the move of {} to {} did not finish (cancelled, or a dir went offline)", name,
                    to_path);
      }
      ended.push_back({tp, f.started_ms, now, 0, false});
    }
    it = started_.erase(it);
  }
}

void Balancer::observe(Pass& pass) {
  std::vector<TopicPartition> stops;
  {
    Operation op(*this);
    pass.snap = snapshot_locked();
    observe_locked(pass.snap, pass.now, pass.ended, stops);
    if (!pass.ended.empty() && stops.empty()) pass.snap = snapshot_locked();
  }
  if (!stops.empty()) {
    stop_moves(stops);
    Operation op(*this);
    pass.snap = snapshot_locked();
  }
  pass.model = pass.snap.model;
}

uint64_t Balancer::strategy_generation() const {
  const std::shared_ptr<const LoadedStrategy> s = slot_.current();
  return s ? s->generation() : 0;
}

bool Balancer::drop_plan_of_old_strategy_locked(int64_t now) {
  const uint64_t generation = strategy_generation();
  if (planned_.empty() || generation == planned_generation_) return false;
  log()->info(
      "dropped {} planned moves: the strategy that ranked them (generation {}) is no "
      "longer active (generation {} is); planning again with it",
      planned_.size(), planned_generation_, generation);
  planned_.clear();
  // A balance round plans again at once; a drain once its moves in flight have ended.
  next_plan_ms_ = now;
  return true;
}

bool Balancer::moves_held() const {
  MutexLock lock(config_mu_);
  return throttle_ == 0;
}

void Balancer::install_round_locked(const BalancePlan& plan, const PlanInputs& in,
                                    const BalanceModel& model) {
  if (!plan.act) {
    if (balancing_) log()->info("balanced: {}", plan.summary);
    balancing_ = false;
    stuck_ = false;
    last_round_ = plan.summary;
    return;
  }
  if (plan.spread_before_percent <= in.settings.threshold_percent && !plan.target_reached) {
    // Hysteresis only carries a round on to the band when it can get there; moves that cannot
    // would be churn. The next round starts when the spread passes the threshold again.
    log()->info("balancing stops at spread {} points: {}", percent_text(plan.spread_before_percent),
                plan.summary);
    balancing_ = false;
    stuck_ = false;
    last_round_ = plan.summary;
    return;
  }
  if (plan.moves.empty()) {
    // Logged once per cause: a balancer that cannot progress waits quietly for a change.
    stuck_ = true;
    last_round_ = plan.summary;
    const std::string failed = blocked_.describe(model, {});
    warn_once_locked("cannot balance now: " + plan.summary + (failed.empty() ? "" : "; " + failed));
    return;
  }
  stuck_ = false;
  ++rounds_;
  balancing_ = true;
  cancelled_ = false;
  round_reaches_target_ = plan.target_reached;
  round_on_request_ = false;
  lower_bound_bytes_ += plan.lower_bound_bytes;
  last_round_ = plan.summary;
  log()->info("balance round {}: ideal fill {}%, {}", rounds_, percent_text(plan.ideal_percent),
              plan.summary);
  planned_drain_ = false;
  planned_.assign(plan.moves.begin(), plan.moves.end());
  planned_generation_ = in.generation;
}

bool Balancer::drain_wants_plan_locked(const BalanceSnapshot& snap) {
  uint64_t left = 0;
  for (const BalancePartition& p : snap.model.partitions) {
    if (p.dir == draining_index_) left += p.size + 1;
  }
  if (left == 0) {
    log()->info("drained {}", draining_);
    end_drain_locked("drained", "Drained " + draining_ + ".");
    return false;
  }
  if (moves_held()) {
    drain_waiting_ =
        "The drain of " + draining_ + " waits: " + std::string(kMovesHeldByZeroThrottle) + ".";
    warn_once_locked(drain_waiting_);
    return false;
  }
  return true;
}

void Balancer::install_drain_plan_locked(const BalanceSnapshot& snap, const DrainPlan& again,
                                         uint64_t generation) {
  if (again.problem.empty() && !again.moves.empty()) {
    drain_waiting_.clear();
    planned_drain_ = true;
    planned_.assign(again.moves.begin(), again.moves.end());
    planned_generation_ = generation;
    return;
  }
  // Nothing can move now. The drain stays (its dir stays cordoned) and plans again at every tick,
  // with the failed moves left out, so it moves again once space is freed, a cordon is lifted or
  // a dir comes back, or once a failed move's cooldown has passed.
  const std::string failed = blocked_.describe(snap.model, again.unplaced);
  std::string why = !failed.empty()          ? failed
                    : !again.problem.empty() ? again.problem
                                             : "no partition left on it can move.";
  int64_t cooldown;
  {
    MutexLock lock(config_mu_);
    cooldown = config_.cooldown_ms;
  }
  drain_waiting_ = "The drain of " + draining_ + " waits: " + why +
                   " It goes on once space is freed, a cordon is lifted or a log directory comes "
                   "back, and tries a failed move again after log.dir.balance.cooldown.ms (" +
                   std::to_string(cooldown) + " ms).";
  warn_once_locked(drain_waiting_);
}

void Balancer::end_drain_locked(const std::string& result, const std::string& message) {
  last_drain_ = draining_;
  last_drain_result_ = result;
  last_drain_message_ = message;
  draining_.clear();
  drain_waiting_.clear();
}

void Balancer::stop_drain_of_offline_dir_locked(const BalanceSnapshot& snap) {
  // Its moves in flight were stopped with the dir (observe_locked); the planned ones cannot start.
  if (planned_drain_) {
    planned_.clear();
    planned_drain_ = false;
  }
  static const OfflineReplicas kNone;
  const OfflineReplicas& left =
      draining_index_ < snap.offline.size() ? snap.offline[draining_index_] : kNone;
  if (left.names.empty()) {
    // Every replica had left it before it went offline.
    log()->info("drained {} (it is now offline)", draining_);
    end_drain_locked("drained", "Drained " + draining_ + ".");
    return;
  }
  // A few names say which; the count says how many (a disk may hold thousands).
  constexpr size_t kNamed = 20;
  std::string names;
  for (size_t i = 0; i < left.names.size() && i < kNamed; ++i) {
    names.append(i == 0 ? "" : ", ").append(left.names[i]);
  }
  // Appended: GCC 12 at -O3 reports a false -Wrestrict on `" " + std::to_string(n)`.
  if (left.names.size() > kNamed) {
    names.append(" and ").append(std::to_string(left.names.size() - kNamed)).append(" more");
  }
  const bool one = left.names.size() == 1;
  std::string message = "Drain of " + draining_ + " stopped: ";
  message.append(std::to_string(left.names.size()))
      .append(one ? " replica (" : " replicas (")
      .append(format_byte_size(left.bytes))
      .append(one ? ") remains" : ") remain")
      .append(" on it, now offline: ")
      .append(names);
  log()->error("{}", message);
  end_drain_locked("stopped", message);
}

void Balancer::notify(const std::vector<BalanceMoveEvent>& ended) {
  std::function<void(const BalanceMoveEvent&)> listener;
  {
    MutexLock lock(mu_);
    listener = listener_;
  }
  if (!listener) return;
  for (const BalanceMoveEvent& e : ended) listener(e);
}

void Balancer::tick() {
  MutexLock serial(op_mu_);
  Pass pass;
  bool enabled;
  {
    Operation op(*this);
    pass.now = clock_();
    {
      MutexLock config_lock(config_mu_);
      enabled = config_.enable;
    }
    // Nothing to watch and no plan due: the LogManager is not read (a snapshot of 100k
    // partitions costs tens of milliseconds).
    if (started_.empty() && planned_.empty() && draining_.empty() &&
        (!enabled || pass.now < next_plan_ms_)) {
      return;
    }
  }
  observe(pass);
  tick_drain(pass);
  MoveCalls calls;
  {
    Operation op(*this);
    start_moves_locked(pass, calls);
  }
  run_moves(pass, std::move(calls));
  tick_round(pass, enabled);
  notify(pass.ended);
}

void Balancer::tick_drain(Pass& pass) {
  std::optional<PlanInputs> in;
  uint32_t index = 0;
  {
    Operation op(*this);
    unblock_locked(pass.snap.model, pass.now);
    if (!draining_.empty() && draining_index_ < pass.snap.model.dirs.size() &&
        !pass.snap.model.dirs[draining_index_].online) {
      stop_drain_of_offline_dir_locked(pass.snap);
    }
    if (!draining_.empty() && planned_.empty() && started_.empty() &&
        drain_wants_plan_locked(pass.snap)) {
      in = plan_inputs_locked(pass.now, false);
      index = draining_index_;
    }
  }
  if (!in) return;
  const DrainPlan again = plan_drain(pass.snap.model, index, ranker(in->blocked));
  Operation op(*this);
  if (cancels_ == in->cancels) install_drain_plan_locked(pass.snap, again, in->generation);
}

void Balancer::tick_round(Pass& pass, bool enabled) {
  std::optional<PlanInputs> in;
  {
    Operation op(*this);
    if (planned_.empty() && started_.empty() && !planned_drain_ && balancing_ &&
        (round_reaches_target_ || round_on_request_ || !enabled)) {
      // The round's moves are done: back to waiting for the threshold when its plan reached the
      // band, when it was a round on request (one-shot), or when the balancer is off. Only an
      // automatic round that stopped short keeps its hysteresis for the next plan.
      balancing_ = false;
      round_reaches_target_ = false;
      round_on_request_ = false;
    }
    if (planned_.empty()) planned_drain_ = false;
    if (!enabled || !draining_.empty() || !planned_.empty() || !started_.empty() ||
        pass.now < next_plan_ms_) {
      return;
    }
    in = plan_inputs_locked(pass.now, false);
    MutexLock config_lock(config_mu_);
    next_plan_ms_ = pass.now + config_.interval_ms;
  }
  const BalancePlan plan = plan_balance(pass.snap.model, in->settings, ranker(in->blocked));
  MoveCalls calls;
  {
    Operation op(*this);
    if (cancels_ != in->cancels) {
      log()->info("dropped the balance plan made while the round was cancelled: {}", plan.summary);
      return;
    }
    install_round_locked(plan, *in, pass.snap.model);
    if (!planned_.empty()) start_moves_locked(pass, calls);
  }
  run_moves(pass, std::move(calls));
}

void Balancer::start() {
  {
    MutexLock lock(thread_mu_);
    if (thread_.joinable()) return;
    stopping_ = false;
    thread_ = std::thread([this] { run_thread(); });
  }
  // A move that ends wakes the thread: the next planned move starts then, not at the next tick.
  logs_.set_move_ended_listener([this] {
    {
      MutexLock lock(thread_mu_);
      poked_ = true;
    }
    wake_.notify_all();
  });
}

void Balancer::stop() {
  bool started;
  {
    MutexLock lock(thread_mu_);
    started = thread_.joinable();
  }
  // Waits for a call of the listener in progress: none reaches this object once it is gone.
  if (started) logs_.set_move_ended_listener({});
  {
    MutexLock lock(thread_mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void Balancer::run_thread() {
  for (;;) {
    int64_t interval;
    {
      MutexLock lock(config_mu_);
      interval = config_.interval_ms;
    }
    {
      MutexLock lock(thread_mu_);
      const auto deadline = std::chrono::steady_clock::now() +
                            std::chrono::milliseconds(std::clamp<int64_t>(interval, 10, 1000));
      while (!stopping_ && !poked_ && wake_.wait_until(thread_mu_, deadline)) {
      }
      if (stopping_) return;
      poked_ = false;
    }
    try {
      tick();
    } catch (const std::exception& e) {
      log()->error("balancer pass failed: {}", e.what());
    }
  }
}

}  // namespace lds
