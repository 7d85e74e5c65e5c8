// balance_api.cpp: encodes the balancer's plans and status for the admin protocol.
#include "admin/balance_api.h"

#include <algorithm>

#include "admin/admin_api.h"
#include "broker/broker.h"
#include "config/config_keys.h"
#include "util/errors.h"

namespace lds {
namespace {

using nlohmann::json;

json move_json(const PlannedMove& m, const std::vector<DirFill>& dirs) {
  return {{"topic", m.tp.topic},
          {"partition", m.tp.partition},
          {"from", dirs[m.from].path},
          {"to", dirs[m.to].path},
          {"bytes", m.bytes},
          {"fromFillPercent", m.from_fill_percent},
          {"toFillPercent", m.to_fill_percent},
          {"reason", m.reason}};
}

json plan_json(const BalancePlan& plan) {
  json moves = json::array();
  for (const PlannedMove& m : plan.moves) moves.push_back(move_json(m, plan.dirs));
  json dirs = json::array();
  for (const DirFill& d : plan.dirs) {
    dirs.push_back({{"logDir", d.path},
                    {"eligible", d.eligible},
                    {"fillPercentBefore", d.before_percent},
                    {"fillPercentAfter", d.after_percent}});
  }
  return {{"act", plan.act},
          {"targetReached", plan.target_reached},
          {"idealFillPercent", plan.ideal_percent},
          {"thresholdPercent", plan.threshold_percent},
          {"spreadPercentBefore", plan.spread_before_percent},
          {"spreadPercentAfter", plan.spread_after_percent},
          {"lowerBoundBytes", plan.lower_bound_bytes},
          {"plannedBytes", plan.planned_bytes},
          {"summary", plan.summary},
          {"moves", moves},
          {"logDirs", dirs}};
}

}  // namespace

json describe_balance(Broker& broker) {
  const BalanceStatus s = broker.balancer().status();
  json moves = json::array();
  for (const BalanceMoveStatus& m : s.in_flight) {
    moves.push_back({{"topic", m.tp.topic},
                     {"partition", m.tp.partition},
                     {"from", m.from},
                     {"to", m.to},
                     {"size", m.size},
                     {"copied", m.copied},
                     {"drain", m.drain}});
  }
  json out = ok_response();
  out["state"] = s.state;
  out["enabled"] = s.enabled;
  out["thresholdPercent"] = s.threshold_percent;
  out["spreadPercent"] = s.spread_percent;
  out["idealFillPercent"] = s.ideal_percent;
  out["rounds"] = s.rounds;
  out["moves"] = s.moves;
  out["bytesMoved"] = s.bytes_moved;
  out["lowerBoundBytes"] = s.lower_bound_bytes;
  out["inFlight"] = std::move(moves);
  out["planned"] = s.planned;
  out["draining"] = s.draining.empty() ? json(nullptr) : json(s.draining);
  out["drainBytes"] = s.drain_bytes;
  out["drainBytesLeft"] = s.drain_bytes_left;
  out["lastRound"] = s.last_round;
  out["waiting"] = s.waiting.empty() ? json(nullptr) : json(s.waiting);
  // How the last drain ended: `drain --wait` reads it once `draining` is null.
  out["lastDrain"] = s.last_drain.empty() ? json(nullptr)
                                          : json{{"logDir", s.last_drain},
                                                 {"result", s.last_drain_result},
                                                 {"message", s.last_drain_message}};
  return out;
}

json balance(Broker& broker, const json& request) {
  auto it = request.find("action");
  if (it == request.end() || !it->is_string()) {
    throw KafkaError(ErrorCode::kInvalidRequest,
                     "Field 'action' is required: plan, execute or cancel.");
  }
  const std::string action = it->get<std::string>();
  json out = ok_response();
  if (action == "plan") {
    out["plan"] = plan_json(broker.balancer().plan());
  } else if (action == "execute") {
    out["plan"] = plan_json(broker.balancer().execute());
  } else if (action == "cancel") {
    out["cancelled"] = broker.balancer().cancel();
  } else {
    throw KafkaError(
        ErrorCode::kInvalidRequest,
        "Balance action '" + action + "' is not supported; use plan, execute or cancel.");
  }
  return out;
}

json drain_log_dir(Broker& broker, const json& request) {
  auto it = request.find("logDir");
  if (it == request.end() || !it->is_string()) {
    throw KafkaError(ErrorCode::kInvalidRequest,
                     "Field 'logDir' is required and must be a string.");
  }
  const std::filesystem::path dir = it->get<std::string>();
  const DrainPlan plan = broker.balancer().drain(dir, [&] {
    // Cordoned through the dynamic config, saved like any other change.
    const BrokerConfig c = broker.config();
    const std::filesystem::path canonical = canonical_path("/", dir);
    if (c.cordon_all ||
        std::find(c.cordoned.begin(), c.cordoned.end(), canonical) != c.cordoned.end()) {
      return;
    }
    std::vector<std::string> entries;
    for (const auto& d : c.cordoned) entries.push_back(d.string());
    entries.push_back(canonical.string());
    broker.alter_configs(
        {{"cordoned.log.dirs", ConfigAlteration::Op::kSet, detail::join_list(entries)}},
        ConfigChangeSource::kAdminApi);
  });
  json moves = json::array();
  for (const PlannedMove& m : plan.moves) {
    moves.push_back({{"topic", m.tp.topic}, {"partition", m.tp.partition}, {"bytes", m.bytes}});
  }
  json out = ok_response();
  out["logDir"] = canonical_path("/", dir).string();
  out["bytes"] = plan.bytes;
  out["roomBytes"] = plan.room_bytes;
  out["moves"] = std::move(moves);
  return out;
}

}  // namespace lds
