// runner_strategy_steps.cpp: the torture steps that swap the placement strategy: to a shipped one,
// to a hostile plugin, and to a third-party one while the balancer holds queued moves.
#include <chrono>
#include <set>
#include <thread>

#include "describe_answer.h"
#include "runner.h"

namespace lds::torture {

namespace {

using Clock = std::chrono::steady_clock;

constexpr std::array<const char*, 3> kShipped = {"partition", "size", "cordon"};

struct Hostile {
  const char* name;
  bool loads;  // passes the load checks; every real placement then falls back
};

// tests/bad_plugins: five whose rank misbehaves at every real placement (the host falls back to
// partition-count order, cordons still applied), and seven that break the handshake, create or
// the dry run, one of them hanging in create and one in its dry-run rank (each swap to those is
// refused, and the active strategy stays).
constexpr std::array kHostile = {
    Hostile{"bad_rank_error", true},
    Hostile{"bad_rank_duplicate", true},
    Hostile{"bad_rank_out_of_range", true},
    Hostile{"bad_rank_too_long", true},
    Hostile{"bad_rank_unterminated", true},
    Hostile{"bad_no_entry", false},
    Hostile{"bad_wrong_major", false},
    Hostile{"bad_null_rank", false},
    Hostile{"bad_create_fails", false},
    Hostile{"bad_create_hangs", false},
    Hostile{"bad_rank_hangs_in_dry_run", false},
    Hostile{"bad_truncated", false},
};

}  // namespace

// Half the swaps (all of them without hostile plugins) go to a shipped strategy, which must be
// taken; the others to a hostile plugin, which is taken or refused as its fault says.
std::string Runner::step_strategy(const Step& s) {
  if (!hostile_plugins_ || s.c % 2 == 0) {
    const char* name = kShipped[s.b % kShipped.size()];
    if (std::string p = set_config("log.directory.select.strategy", name); !p.empty()) return p;
    strategy_ = name;
    return "";
  }
  const Hostile& h = kHostile[s.b % kHostile.size()];
  std::string problem;
  const json r =
      call({{"api", "IncrementalAlterConfigs"},
            {"configs",
             json::array(
                 {{{"name", "log.directory.select.strategy"}, {"op", "SET"}, {"value", h.name}}})}},
           &problem);
  if (!problem.empty()) return problem;
  const std::string error = r.value("error", "");
  if (h.loads && error != "NONE") {
    return std::string("the swap to ") + h.name + ", which loads, answered " + error + ": " +
           r.value("message", "");
  }
  if (!h.loads && error == "NONE") {
    return std::string("the swap to ") + h.name + ", which must be refused, was taken";
  }
  ++stats_[std::string(h.loads ? "hostile_taken" : "hostile_refused")];
  if (h.loads) strategy_ = h.name;
  const json c = call({{"api", "DescribeConfigs"}}, &problem);
  if (!problem.empty()) return problem;
  for (const auto& e : c.value("configs", json::array())) {
    if (e.value("name", "") == "log.directory.select.strategy" &&
        e.value("value", "") != strategy_) {
      return "after the swap to " + std::string(h.name) + " the active strategy is " +
             e.value("value", "") + ", not " + strategy_;
    }
  }
  return "";
}

// The balancer's queued moves meet a swap: a one-shot round with one move at a time plans its
// moves, and the throttle is then set to 0, so that no move copies a byte and the rest stay
// queued. The swap goes to "forbiddir" (tests/integration's third-party strategy), forbidding the
// dir one of them was to go to. The plan must be dropped ("dropped N planned moves"), and once the
// throttle is lifted no move may start into that dir: only the moves started before may end there.
std::string Runner::step_swap_queued_moves(const Step& s) {
  if (!forbid_plugin_) return "";
  const std::string throttle = "replica.alter.log.dirs.io.max.bytes.per.second";
  for (const auto& [key, value] : {std::pair{throttle, "1048576"},
                                   {"log.dir.balance.threshold.percent", "1"},
                                   {"log.dir.balance.max.concurrent.moves", "1"}}) {
    if (std::string p = set_config(key, value); !p.empty()) return p;
  }
  const auto restore = [&]() -> std::string {
    for (const char* key : {"log.dir.balance.threshold.percent",
                            "log.dir.balance.max.concurrent.moves", throttle.c_str()}) {
      if (std::string p = set_config(key, ""); !p.empty()) return p;
    }
    return "";
  };
  std::string problem;
  const json executed = call({{"api", "Balance"}, {"action", "execute"}}, &problem);
  if (!problem.empty()) return problem;
  if (std::string p = set_config(throttle, "0"); !p.empty()) return p;
  const json moves = executed.value("plan", json::object()).value("moves", json::array());
  if (executed.value("error", "") != "NONE" || moves.size() < 2) {
    ++stats_["swap_nothing_queued"];
    return restore();
  }
  // A queued move's destination.
  const std::string forbidden = moves[1 + s.c % (moves.size() - 1)]["to"].get<std::string>();
  // What may still arrive in the forbidden dir: what a move started before the swap brings, and
  // what is there already (read in this order, so that a move ending between the two reads is
  // seen by one of them).
  std::set<std::string> allowed;
  const json status = call({{"api", "DescribeBalance"}}, &problem);
  if (!problem.empty()) return problem;
  for (const auto& m : status.value("inFlight", json::array())) {
    allowed.insert(m["topic"].get<std::string>() + "-" + std::to_string(m["partition"].get<int>()));
  }
  const uint64_t planned = status.value("planned", uint64_t{0});
  json before;
  if (std::string p = quick_check(&before); !p.empty()) return p;
  for (const auto& dir : log_dirs_of(before)) {
    if (dir_index(dir["logDir"]) != dir_index(forbidden)) continue;
    for (const auto& p : dir["partitions"]) allowed.insert(p["partition"].get<std::string>());
  }
  const uint64_t log_offset = env_.log_size();
  const json swapped = call(
      {{"api", "IncrementalAlterConfigs"},
       {"configs",
        json::array(
            {{{"name", "log.directory.select.forbiddir.dir"}, {"op", "SET"}, {"value", forbidden}},
             {{"name", "log.directory.select.strategy"}, {"op", "SET"}, {"value", "forbiddir"}}})}},
      &problem);
  if (!problem.empty()) return problem;
  if (swapped.value("error", "") != "NONE") {
    return "the swap to forbiddir answered " + swapped.value("error", "") + ": " +
           swapped.value("message", "");
  }
  strategy_ = "forbiddir";
  ++stats_["swap_queued_moves"];
  stats_["swap_queued_moves_dropped"] += planned;
  if (std::string p = set_config(throttle, ""); !p.empty()) return p;
  // Watched for 2 s: ten balance intervals of the torture config.
  const auto deadline = Clock::now() + std::chrono::seconds(2);
  while (Clock::now() < deadline) {
    const json now = call({{"api", "DescribeBalance"}}, &problem);
    if (!problem.empty()) return problem;
    for (const auto& m : now.value("inFlight", json::array())) {
      const std::string name =
          m["topic"].get<std::string>() + "-" + std::to_string(m["partition"].get<int>());
      if (dir_index(m["to"]) == dir_index(forbidden) && !allowed.contains(name)) {
        return "a move of " + name + " into " + forbidden +
               " started after the swap to forbiddir, which forbids that dir";
      }
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  json after;
  if (std::string p = quick_check(&after); !p.empty()) return p;
  for (const auto& dir : log_dirs_of(after)) {
    if (dir_index(dir["logDir"]) != dir_index(forbidden)) continue;
    for (const auto& p : dir["partitions"]) {
      if (!allowed.contains(p["partition"].get<std::string>())) {
        return "partition " + p["partition"].get<std::string>() + " arrived in " + forbidden +
               " after the swap to forbiddir, which forbids that dir";
      }
    }
  }
  const std::string log = env_.log_since(log_offset);
  if (planned > 0 &&
      log.find("planned moves: the strategy that ranked them") == std::string::npos) {
    return std::to_string(planned) +
           " moves were queued at the swap to forbiddir, but the broker did not log dropping "
           "them";
  }
  return restore();
}

}  // namespace lds::torture
