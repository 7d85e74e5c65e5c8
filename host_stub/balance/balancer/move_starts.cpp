// balancer/move_starts.cpp: how a balancer operation starts and stops its moves: it chooses the
// next planned move under the balancer's state lock, asks the LogManager without it (a start makes
// and syncs the move's folder), and records the answer under the lock again (the rounds that plan
// them: balancer/rounds.cpp).
#include "balance/balancer.h"
#include "util/byte_size.h"
#include "util/logging.h"

namespace lds {

void Balancer::stop_moves(const std::vector<TopicPartition>& tps) {
  for (const TopicPartition& tp : tps) {
    try {
      const LogManager::AlterResult r = logs_.alter_replica_log_dir(tp, "any");
      if (r.error != StorageErrc::kNone) {
        log()->warn("could not stop moving {}: {}", tp.str(), r.message);
      }
    } catch (const std::exception& e) {
      log()->warn("could not stop moving {}: {}", tp.str(), e.what());
    }
  }
}

std::string Balancer::start_problem_locked(const Pass& pass, const PlannedMove& m,
                                           const BalancePartition* p) const {
  const BlockedMoves::Blocked* blocked = p == nullptr ? nullptr : blocked_.find(*p, m.to);
  if (p == nullptr) return "it is no longer hosted, or its dir is offline";
  if (blocked != nullptr) return "an earlier move failed: " + blocked->reason;
  if (p->moving) return "it is already moving";
  if (p->dir != m.from) return "it is no longer in " + pass.snap.model.dirs[m.from].path;
  const BalanceDir& to = pass.model.dirs[m.to];
  if (!to.online) return to.path + " is offline";
  if (to.cordoned) return to.path + " is cordoned";
  if (p->size > balance_room_bytes(pass.model, m.to)) {  // its filesystem's room
    return to.path + " no longer has room for it";
  }
  // The dirs changed since the plan (appends, new partitions): a balance move that no longer helps
  // is not started.
  if (!planned_drain_) return balance_move_problem(pass.model, m.from, m.to, p->size);
  return "";
}

void Balancer::start_moves_locked(Pass& pass, MoveCalls& calls) {
  const BalanceSnapshot& snap = pass.snap;
  const int64_t now = pass.now;
  int32_t limit;
  {
    MutexLock lock(config_mu_);
    limit = config_.max_concurrent_moves;
  }
  if (drop_plan_of_old_strategy_locked(now)) return;
  if (!planned_.empty() && moves_held()) {
    // Started, they would only sit there: they stay planned, and start once the key is raised.
    warn_once_locked(std::to_string(planned_.size()) +
                     " planned moves wait: " + std::string(kMovesHeldByZeroThrottle));
    return;
  }
  // The model as the moves started in this pass leave it.
  BalanceModel& model = pass.model;
  // One at a time: the next is chosen once the LogManager has answered for this one, so a refusal
  // (a full disk, say) is known, and blocks its like, before another move is tried.
  while (!calls.start && !planned_.empty() && static_cast<int32_t>(started_.size()) < limit) {
    PlannedMove m = std::move(planned_.front());
    planned_.pop_front();
    BalancePartition* p = nullptr;
    for (BalancePartition& q : model.partitions) {
      if (q.tp == m.tp) p = &q;
    }
    const std::string problem = start_problem_locked(pass, m, p);
    if (!problem.empty()) {
      log()->info("dropped the planned move of {} to {}: {}", m.tp.str(),
                  snap.model.dirs[m.to].path, problem);
      if (!planned_drain_) {
        // The plan no longer matches the dirs: plan again from what they hold now.
        planned_.clear();
        next_plan_ms_ = now;
      }
      continue;
    }
    MoveStart start{m, snap.model.dirs[m.to].path, ""};
    start.announce.append("moving ")
        .append(m.tp.str())
        .append(" (")
        .append(format_byte_size(p->size))
        .append(") from ")
        .append(snap.model.dirs[m.from].path)
        .append(" (")
        .append(percent_text(balance_fill_percent(model, m.from)))
        .append("%) to ")
        .append(start.to_path)
        .append(" (")
        .append(percent_text(balance_fill_percent(model, m.to)))
        .append("%): ")
        .append(m.reason);
    p->moving = true;
    p->moving_to = m.to;
    model.dirs[m.to].reserved_bytes += p->size;
    started_.emplace(m.tp, Started{m, now, planned_drain_, true});
    calls.start = std::move(start);
  }
}

void Balancer::run_moves(Pass& pass, MoveCalls calls) {
  while (!calls.empty()) {
    stop_moves(calls.stops);
    std::string refusal;  // "" for a start that was made
    if (calls.start) {
      try {
        const LogManager::AlterResult r =
            logs_.alter_replica_log_dir(calls.start->move.tp, calls.start->to_path);
        if (r.error != StorageErrc::kNone) refusal = r.message;
      } catch (const std::exception& e) {
        refusal = e.what();
      }
    }
    MoveCalls next;
    {
      Operation op(*this);
      if (calls.start) record_start_locked(pass, *calls.start, refusal, next.stops);
      start_moves_locked(pass, next);
    }
    calls = std::move(next);
  }
}

void Balancer::record_start_locked(Pass& pass, const MoveStart& start, const std::string& refusal,
                                   std::vector<TopicPartition>& stops) {
  const PlannedMove& m = start.move;
  auto it = started_.find(m.tp);
  // cancel() dropped it while it started: it is stopped now that it has.
  const bool dropped = it == started_.end() || !it->second.starting;
  if (refusal.empty()) {
    if (dropped) {
      stops.push_back(m.tp);
      log()->info("stopping the move of {} to {}: cancelled as it started", m.tp.str(),
                  start.to_path);
    } else {
      it->second.starting = false;
      log()->info("{}", start.announce);
    }
    return;
  }
  log()->warn("could not start moving {} to {}: {}", m.tp.str(), start.to_path, refusal);
  blocked_.add(m.tp, m.to, refusal, pass.snap.model, pass.now);
  if (!dropped) started_.erase(it);
  for (BalancePartition& p : pass.model.partitions) {
    if (p.tp != m.tp || !p.moving) continue;
    p.moving = false;  // the pass's model no longer counts it
    pass.model.dirs[m.to].reserved_bytes -= p.size;
  }
}

}  // namespace lds
