// cluster_balancer.cpp: the cluster balancer's rounds: read, adopt, plan, start, clear.
#include "cluster/cluster_balancer.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "cluster/cluster_ranker.h"
#include "kafka/protocol/alter_replica_log_dirs.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/configs.h"
#include "model/wire.h"
#include "util/byte_size.h"

namespace lds::cluster {

namespace {

constexpr const char* kThrottleKey = "replica.alter.log.dirs.io.max.bytes.per.second";

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string broker_name(int32_t id) { return "Broker " + std::to_string(id); }

// "1 broker", "3 brokers".
std::string count_text(size_t n, const std::string& noun) {
  return std::to_string(n) + " " + noun + (n == 1 ? "" : "s");
}

std::string seconds_text(int64_t ms) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(ms) / 1000);
  return buf;
}

// One read is no snapshot (followed_moves.h): a partition read at its source with no future
// replica may have been in the middle of its swap, its move done or still going. A second read
// of those partitions alone confirms each before it starts, so that no move is started twice:
// keeps of `next` the moves whose partition it finds at rest in their source.
void keep_at_rest(kafka::KafkaClient& client, const BrokerView& v,
                  std::vector<const PlannedMove*>& next) {
  kafka::DescribeLogDirsRequest only{std::vector<kafka::DescribeLogDirsRequest::Topic>{}};
  for (const PlannedMove* m : next) only.topics->push_back({m->tp.topic, {m->tp.partition}});
  const BrokerView again = broker_view(v.id, v.address, describe_log_dirs(client, only));
  std::erase_if(next, [&](const PlannedMove* m) {
    return !again.at_rest_in(m->tp, v.model.dirs[m->from].path);
  });
}

// The moves of `next` as one request, by destination dir and topic.
kafka::AlterReplicaLogDirsRequest alter_request(const BrokerView& v,
                                                const std::vector<const PlannedMove*>& next) {
  kafka::AlterReplicaLogDirsRequest request;
  for (const PlannedMove* m : next) {
    const std::string& to = v.model.dirs[m->to].path;
    auto dir = std::find_if(request.dirs.begin(), request.dirs.end(),
                            [&](const auto& d) { return d.path == to; });
    if (dir == request.dirs.end()) dir = request.dirs.insert(request.dirs.end(), {to, {}});
    auto topic = std::find_if(dir->topics.begin(), dir->topics.end(),
                              [&](const auto& t) { return t.name == m->tp.topic; });
    if (topic == dir->topics.end())
      topic = dir->topics.insert(dir->topics.end(), {m->tp.topic, {}});
    topic->partitions.push_back(m->tp.partition);
  }
  return request;
}

kafka::AlterReplicaLogDirsResponse alter_replica_log_dirs(
    kafka::KafkaClient& client, const kafka::AlterReplicaLogDirsRequest& request) {
  const int16_t version = client.version(kafka::ApiKey::kAlterReplicaLogDirs, 1, 2);
  kafka::Writer out;
  kafka::write_alter_replica_log_dirs_request(out, request, version);
  const std::string body =
      client.call(static_cast<int16_t>(kafka::ApiKey::kAlterReplicaLogDirs), version, out.bytes());
  kafka::Reader in(body);
  return kafka::read_alter_replica_log_dirs_response(in, version);
}

// The broker's error code for `tp` in `response`, or nullopt when it gave none.
std::optional<int16_t> error_code_of(const kafka::AlterReplicaLogDirsResponse& response,
                                     const TopicPartition& tp) {
  std::optional<int16_t> code;
  for (const auto& t : response.results) {
    if (t.topic_name != tp.topic) continue;
    for (const auto& p : t.partitions) {
      if (p.partition_index == tp.partition) code = p.error_code;
    }
  }
  return code;
}

}  // namespace

bool ClusterRound::settled() const {
  return std::all_of(brokers.begin(), brokers.end(),
                     [](const BrokerRound& b) { return b.error.empty() && b.settled; });
}

bool ClusterRound::eventful() const {
  return std::any_of(brokers.begin(), brokers.end(), [](const BrokerRound& b) {
    return !b.error.empty() || b.started > 0 || b.finished > 0;
  });
}

std::string ClusterRound::summary() const {
  size_t unreadable = 0, in_flight = 0, started = 0, finished = 0, outside = 0;
  double widest = 0;
  int32_t widest_broker = -1;
  for (const BrokerRound& b : brokers) {
    if (!b.error.empty()) {
      ++unreadable;
      continue;
    }
    in_flight += b.in_flight;
    started += b.started;
    finished += b.finished;
    if (!b.within_band) ++outside;
    if (widest_broker < 0 || b.plan.spread_before_percent > widest) {
      widest = b.plan.spread_before_percent;
      widest_broker = b.id;
    }
  }
  std::string s = "Round " + std::to_string(number) + ": " + count_text(brokers.size(), "broker");
  if (unreadable > 0) s += " (" + std::to_string(unreadable) + " unreadable)";
  s += ", " + count_text(in_flight, "move") + " in flight (" + std::to_string(started) +
       " started, " + std::to_string(finished) + " finished)";
  if (widest_broker >= 0) {
    s += ", widest spread " + percent_text(widest) + " points on broker " +
         std::to_string(widest_broker);
  }
  s += ", " + std::to_string(outside) + " outside the band";
  return s;
}

ClusterBalancer::ClusterBalancer(std::vector<std::string> bootstrap,
                                 kafka::ClientOptions client_options,
                                 ClusterBalanceSettings settings,
                                 std::shared_ptr<const LoadedStrategy> strategy, ClusterLog log)
    : bootstrap_(std::move(bootstrap)),
      client_options_(std::move(client_options)),
      settings_(std::move(settings)),
      log_(std::move(log)) {
  slot_.publish(std::move(strategy));
}

ClusterBalancer::~ClusterBalancer() = default;

ClusterRound ClusterBalancer::plan() { return read_and_plan(false); }

ClusterRound ClusterBalancer::round() { return read_and_plan(true); }

ClusterRound ClusterBalancer::read_and_plan(bool act) {
  ClusterRound round;
  round.number = act ? ++rounds_ : rounds_;
  std::vector<BrokerAddress> brokers = discover_brokers(bootstrap_, client_options_);
  if (settings_.only_broker) {
    std::erase_if(brokers, [&](const BrokerAddress& b) { return b.id != *settings_.only_broker; });
    if (brokers.empty()) {
      throw std::runtime_error("the cluster has no broker " +
                               std::to_string(*settings_.only_broker) + ".");
    }
  }
  const int64_t now = now_ms();
  for (const BrokerAddress& b : brokers) round.brokers.push_back(broker_round(b, act, now));
  return round;
}

kafka::KafkaClient& ClusterBalancer::client_of(BrokerState& s, const BrokerAddress& b) {
  if (!s.client || s.client->address() != b.address) {
    s.client.reset();
    s.client = std::make_unique<kafka::KafkaClient>(b.address, client_options_);
  }
  return *s.client;
}

BrokerRound ClusterBalancer::broker_round(const BrokerAddress& b, bool act, int64_t now) {
  BrokerRound r;
  r.id = b.id;
  r.address = b.address;
  BrokerState& s = brokers_[b.id];
  addresses_[b.id] = b.address;
  BrokerView view;
  try {
    view = broker_view(b.id, b.address, describe_log_dirs(client_of(s, b)));
  } catch (const std::exception& e) {
    s.client.reset();
    r.error = e.what();
    log_(broker_name(b.id) + " at " + b.address +
         " cannot be read; skipped this round: " + r.error);
    return r;
  }
  if (act) note_ended_moves(s, view, r, now);
  r.model = view.model;
  plan_broker(s, view, r, now);
  if (!r.error.empty()) return r;
  // A move read back at its source once is still followed: in flight until its second read.
  r.in_flight = view.futures.size() + (act ? s.moves.unconfirmed() : 0);
  if (act) {
    try {
      start_moves(s, view, r, now);
    } catch (const std::exception& e) {
      s.client.reset();
      r.error = e.what();
      log_(broker_name(b.id) + " at " + b.address + ": " + r.error);
      return r;
    }
  }
  r.settled = r.in_flight == 0 && r.started == 0;
  if (act && r.settled && s.throttle_set) {
    try {
      set_throttle(s, b.id, false);
    } catch (const std::exception& e) {
      // Left for the operator rather than retried forever: the moves are done.
      s.client.reset();
      s.throttle_set = false;
      log_(broker_name(b.id) + ": " + kThrottleKey + " could not be deleted (" + e.what() +
           "); delete it with kafka-configs --entity-type brokers --entity-name " +
           std::to_string(b.id) + " --alter --delete-config " + kThrottleKey + ".");
    }
  }
  if (act) s.was_moving = r.in_flight > 0;
  return r;
}

void ClusterBalancer::note_ended_moves(BrokerState& s, const BrokerView& v, BrokerRound& r,
                                       int64_t now) {
  if (s.was_moving && s.last_read_ms > 0) s.moving_ms += now - s.last_read_ms;
  s.last_read_ms = now;

  const FollowedMoves::Seen seen = s.moves.note(v, now);
  for (const FollowedMoves::Ended& e : seen.ended) {
    const FollowedMoves::Move& m = e.move;
    switch (e.outcome) {
      case FollowedMoves::Outcome::kMoved: {
        ++r.finished;
        // Seen from outside, between two reads: an upper bound on the time it took.
        const int64_t took_ms = std::max<int64_t>(1, now - m.since_ms);
        ++s.moves_done;
        s.moved_bytes += e.copied;
        log_(broker_name(v.id) + " moved " + e.tp.str() + " (" + format_byte_size(e.size) +
             ") from " + m.from_path + " to " + m.to_path + " in " + seconds_text(took_ms) +
             " s (" + format_byte_size(e.copied * 1000 / static_cast<uint64_t>(took_ms)) + "/s).");
        break;
      }
      case FollowedMoves::Outcome::kShort: {
        const std::string why =
            "its move to " + m.to_path + " ended with the replica still in " + e.at;
        s.blocked.add(e.tp, static_cast<uint32_t>(v.dir_index(m.to_path)), why, v.model, now);
        log_(broker_name(v.id) + ": " + e.tp.str() + ": " + why +
             " (cancelled, or failed in the broker); not tried again until that dir frees "
             "space or the cooldown passes.");
        break;
      }
      case FollowedMoves::Outcome::kGone:
        log_(broker_name(v.id) + ": " + e.tp.str() + " is gone from the broker (deleted or " +
             "reassigned) while it moved to " + m.to_path + ".");
        break;
    }
  }
  for (const FollowedMoves::Adopted& a : seen.adopted) {
    s.last_moved[a.tp] = now;
    log_(broker_name(v.id) + " has a move of " + a.tp.str() + " in flight from " +
         a.move.from_path + " to " + a.move.to_path + " (" + format_byte_size(a.future.copied) +
         " of " + format_byte_size(a.future.size) + " copied, " +
         std::to_string(a.future.offset_lag) + " offsets behind): followed, not started again.");
    // The throttle may be a killed run's: delete it when this broker is done.
    if (settings_.throttle_bytes_per_sec) s.throttle_set = true;
  }
}

void ClusterBalancer::plan_broker(BrokerState& s, const BrokerView& v, BrokerRound& r,
                                  int64_t now) {
  BalanceModel model = v.model;
  for (BalancePartition& p : model.partitions) {
    const auto moved = s.last_moved.find(p.tp);
    if (moved != s.last_moved.end()) p.last_moved_ms = moved->second;
  }
  s.blocked.expire(model, now, settings_.cooldown_ms);
  const RankDestinations rank = s.blocked.filter(cluster_ranker(slot_, model));

  BalanceSettings bs;
  bs.threshold_percent = settings_.threshold_percent;
  bs.cooldown_ms = settings_.cooldown_ms;
  bs.now_ms = now;
  bs.throttle_bytes_per_sec = settings_.throttle_bytes_per_sec.value_or(kNoMoveThrottle);
  bs.balancing = s.balancing;
  bs.force = settings_.force;
  r.plan = plan_balance(model, bs, rank);
  r.within_band = r.plan.spread_before_percent <= settings_.threshold_percent / 2 + 1e-9;

  // A cordoned dir that still holds replicas is drained before anything is balanced.
  int drain = -1;
  if (!settings_.drain_dir.empty()) {
    drain = v.dir_index(settings_.drain_dir);
    if (drain < 0) {
      r.error = broker_name(v.id) + " has no log dir " + settings_.drain_dir + ".";
      return;
    }
  } else {
    for (size_t i = 0; i < model.dirs.size() && drain < 0; ++i) {
      if (!model.dirs[i].online || !model.dirs[i].cordoned) continue;
      for (const BalancePartition& p : model.partitions) {
        if (p.dir == i && !p.moving) {
          drain = static_cast<int>(i);
          break;
        }
      }
    }
  }
  if (drain >= 0) {
    const DrainPlan d = plan_drain(model, static_cast<uint32_t>(drain), rank);
    r.drained_dir = model.dirs[static_cast<size_t>(drain)].path;
    r.plan.moves = d.moves;
    r.plan.act = true;
    r.plan.planned_bytes = 0;
    for (const PlannedMove& m : d.moves) r.plan.planned_bytes += m.bytes;
    r.plan.lower_bound_bytes = d.bytes;
    r.plan.summary = !d.problem.empty()
                         ? d.problem
                         : "drain " + r.drained_dir + ": " + std::to_string(d.moves.size()) +
                               " moves of " + format_byte_size(r.plan.planned_bytes);
    for (PlannedMove& m : r.plan.moves) m.reason = "drain of cordoned " + r.drained_dir;
    r.within_band = r.within_band && d.moves.empty();
    r.waiting = d.problem;
  }
  s.balancing = r.plan.act && (!r.plan.moves.empty() || !v.futures.empty());
}

void ClusterBalancer::start_moves(BrokerState& s, const BrokerView& v, BrokerRound& r,
                                  int64_t now) {
  const auto max = static_cast<size_t>(std::max(0, settings_.max_concurrent_moves));
  std::vector<const PlannedMove*> next;
  for (const PlannedMove& m : r.plan.moves) {
    if (r.in_flight + next.size() >= max) break;
    if (v.futures.count(m.tp) > 0 || s.moves.follows(m.tp)) continue;
    next.push_back(&m);
  }
  if (next.empty()) {
    if (r.in_flight == 0 && !r.plan.moves.empty()) r.waiting = r.plan.summary;
    if (r.in_flight == 0 && r.plan.moves.empty() && r.plan.act && !r.plan.target_reached) {
      r.waiting = r.plan.summary;
    }
    return;
  }
  keep_at_rest(*s.client, v, next);
  if (next.empty()) return;
  if (settings_.throttle_bytes_per_sec) {
    try {
      ensure_throttle(s, v.id);
    } catch (const std::exception& e) {
      // No move starts unthrottled when a throttle was asked for.
      s.client.reset();
      r.waiting = e.what();
      log_(broker_name(v.id) + ": no move starts: " + r.waiting);
      return;
    }
  }
  const kafka::AlterReplicaLogDirsResponse response =
      alter_replica_log_dirs(*s.client, alter_request(v, next));
  for (const PlannedMove* m : next) note_start(s, v, r, *m, error_code_of(response, m->tp), now);
  r.in_flight += r.started;
}

void ClusterBalancer::note_start(BrokerState& s, const BrokerView& v, BrokerRound& r,
                                 const PlannedMove& m, std::optional<int16_t> code, int64_t now) {
  const std::string& from = v.model.dirs[m.from].path;
  const std::string& to = v.model.dirs[m.to].path;
  if (code && *code == 0) {
    s.moves.start(m.tp, {from, to, now, 0, false});
    s.last_moved[m.tp] = now;
    ++r.started;
    log_(broker_name(v.id) + ": moving " + m.tp.str() + " (" + format_byte_size(m.bytes) +
         ") from " + from + " to " + to + ": " + m.reason + ".");
    return;
  }
  const std::string why = code ? "the broker refused it: " + kafka::kafka_error_name(*code)
                               : "the broker did not answer for it";
  s.blocked.add(m.tp, m.to, why, v.model, now);
  log_(broker_name(v.id) + ": moving " + m.tp.str() + " from " + from + " to " + to +
       " is blocked until that dir frees space or the cooldown passes: " + why + ".");
}

void ClusterBalancer::alter_broker_config(BrokerState& s, int32_t id, const std::string& name,
                                          int8_t operation,
                                          const std::optional<std::string>& value) {
  kafka::KafkaClient& client = *s.client;
  kafka::AlterConfigsRequest request;
  kafka::AlterConfigsRequest::Resource resource;
  resource.resource_type = kafka::resource_type::kBroker;
  resource.resource_name = std::to_string(id);
  resource.configs.push_back({name, operation, value});
  request.resources.push_back(resource);
  const int16_t version = client.version(kafka::ApiKey::kIncrementalAlterConfigs, 0, 1);
  kafka::Writer out;
  kafka::write_alter_configs_request(out, request, true, version);
  const std::string body = client.call(
      static_cast<int16_t>(kafka::ApiKey::kIncrementalAlterConfigs), version, out.bytes());
  kafka::Reader in(body);
  const kafka::AlterConfigsResponse response =
      kafka::read_alter_configs_response(in, true, version);
  for (const auto& result : response.responses) {
    if (result.error_code != 0) {
      throw std::runtime_error(broker_name(id) + " refused altering " + name + ": " +
                               kafka::kafka_error_name(result.error_code) +
                               (result.error_message ? " (" + *result.error_message + ")" : "") +
                               ".");
    }
  }
}

void ClusterBalancer::set_throttle(BrokerState& s, int32_t id, bool on) {
  if (on) {
    alter_broker_config(s, id, kThrottleKey, kafka::config_operation::kSet,
                        std::to_string(*settings_.throttle_bytes_per_sec));
    log_(broker_name(id) + ": " + kThrottleKey + " set to " +
         std::to_string(*settings_.throttle_bytes_per_sec) + " while it moves.");
  } else {
    alter_broker_config(s, id, kThrottleKey, kafka::config_operation::kDelete, std::nullopt);
    log_(broker_name(id) + ": " + kThrottleKey + " deleted: it has nothing left to move.");
  }
  s.throttle_set = on;
}

void ClusterBalancer::ensure_throttle(BrokerState& s, int32_t id) {
  if (!s.throttle_set) {
    set_throttle(s, id, true);
    return;
  }
  const std::string wanted = std::to_string(*settings_.throttle_bytes_per_sec);
  const std::optional<std::string> now = broker_config(s, id, kThrottleKey);
  if (now == wanted) return;
  alter_broker_config(s, id, kThrottleKey, kafka::config_operation::kSet, wanted);
  log_(broker_name(id) + ": " + kThrottleKey + " was " + (now ? *now : std::string("unset")) +
       ", changed or deleted since this balancer set it; set to " + wanted + " again.");
}

std::optional<std::string> ClusterBalancer::broker_config(BrokerState& s, int32_t id,
                                                          const std::string& name) {
  kafka::KafkaClient& client = *s.client;
  kafka::DescribeConfigsRequest request;
  request.resources.push_back(
      {kafka::resource_type::kBroker, std::to_string(id), std::vector<std::string>{name}});
  const int16_t version = client.version(kafka::ApiKey::kDescribeConfigs, 1, 4);
  kafka::Writer out;
  kafka::write_describe_configs_request(out, request, version);
  const std::string body =
      client.call(static_cast<int16_t>(kafka::ApiKey::kDescribeConfigs), version, out.bytes());
  kafka::Reader in(body);
  const kafka::DescribeConfigsResponse response =
      kafka::read_describe_configs_response(in, version);
  for (const auto& result : response.results) {
    if (result.error_code != 0) {
      throw std::runtime_error(broker_name(id) + " refused describing " + name + ": " +
                               kafka::kafka_error_name(result.error_code) + ".");
    }
    for (const auto& c : result.configs) {
      if (c.name == name) return c.value;
    }
  }
  return std::nullopt;
}

void ClusterBalancer::cordon(int32_t id, const std::string& dir) {
  const auto address = addresses_.find(id);
  if (address == addresses_.end()) {
    throw std::runtime_error("the cluster has no broker " + std::to_string(id) + ".");
  }
  BrokerState& s = brokers_[id];
  client_of(s, {id, address->second});
  try {
    alter_broker_config(s, id, "cordoned.log.dirs", kafka::config_operation::kAppend, dir);
  } catch (...) {
    s.client.reset();
    throw;
  }
  log_(broker_name(id) + ": " + dir + " added to cordoned.log.dirs, so no new replica lands " +
       "there while it drains.");
}

std::vector<std::string> ClusterBalancer::totals() const {
  std::vector<std::string> out;
  for (const auto& [id, s] : brokers_) {
    if (s.moves_done == 0) continue;
    const int64_t ms = std::max<int64_t>(1, s.moving_ms);
    out.push_back(broker_name(id) + ": " + std::to_string(s.moves_done) + " moves, " +
                  format_byte_size(s.moved_bytes) + " copied in " + seconds_text(ms) +
                  " s of moving (" +
                  format_byte_size(s.moved_bytes * 1000 / static_cast<uint64_t>(ms)) + "/s)");
  }
  return out;
}

void ClusterBalancer::clear_throttles() {
  for (auto& [id, s] : brokers_) {
    if (!s.throttle_set) continue;
    try {
      const auto address = addresses_.find(id);
      if (!s.client && address == addresses_.end()) continue;
      if (!s.client)
        s.client = std::make_unique<kafka::KafkaClient>(address->second, client_options_);
      set_throttle(s, id, false);
    } catch (const std::exception& e) {
      s.client.reset();
      log_(broker_name(id) + ": the throttle could not be deleted: " + e.what());
    }
  }
}

}  // namespace lds::cluster
