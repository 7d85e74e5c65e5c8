// cluster_balancer.h: keeps every broker of a Kafka cluster within the balance band through Kafka's
// own protocol (DescribeLogDirs, AlterReplicaLogDirs, IncrementalAlterConfigs), with the planner,
// band and hysteresis of the in-broker balancer and destinations ranked by a strategy plugin.
//
// A round reads every broker afresh (so a broker that restarted, or a dir that went offline, is
// seen as it is now), adopts the moves in flight it finds (future replicas) instead of starting
// them again, drains cordoned dirs before it balances, and starts at most max_concurrent_moves
// moves per broker. A refused move is blocked until its destination frees space or the cooldown
// passes. Nothing is kept on disk: after a restart the brokers' own state is the whole truth.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "balance/balance_planner.h"
#include "balance/blocked_moves.h"
#include "cluster/cluster_view.h"
#include "cluster/followed_moves.h"
#include "kafka/protocol/kafka_client.h"
#include "strategy/strategy_slot.h"

namespace lds::cluster {

struct ClusterBalanceSettings {
  double threshold_percent = 10;     // the spread that calls for a round; the band is a half of it
  int32_t max_concurrent_moves = 2;  // per broker
  // replica.alter.log.dirs.io.max.bytes.per.second, set on a broker while it moves and deleted
  // after; nullopt: the brokers' own setting is left alone.
  std::optional<uint64_t> throttle_bytes_per_sec;
  int64_t cooldown_ms = 3600000;  // no second move of a partition within it
  // Only this broker, and only the drain of this dir on it (lds-host drain).
  std::optional<int32_t> only_broker;
  std::string drain_dir;
  // Plan towards the band whatever the spread (balance --execute and --plan), not only past the
  // threshold (--daemon).
  bool force = false;
};

// One line of the balancer's log: what it did and why.
using ClusterLog = std::function<void(const std::string& line)>;

// What one round saw and did on one broker.
struct BrokerRound {
  int32_t id = 0;
  std::string address;
  std::string error;  // it could not be read or asked; nothing else below is set
  BalanceModel model;
  BalancePlan plan;         // the balance plan, or the drain's moves
  std::string drained_dir;  // the cordoned dir this round drains, if any
  size_t in_flight = 0;     // moves in flight after the round
  size_t started = 0;
  size_t finished = 0;
  bool within_band = false;  // every eligible dir within the band now
  bool settled = false;      // nothing in flight and nothing left that could start
  // Why nothing can move when something should: a drain that does not fit, blocked moves.
  std::string waiting;
};

struct ClusterRound {
  uint64_t number = 0;
  std::vector<BrokerRound> brokers;
  bool settled() const;
  // Whether it started, finished or failed to read anything: a round worth a line of the log.
  bool eventful() const;
  // "Round 4: 3 brokers, 2 moves in flight (1 started, 1 finished), widest spread 6.2 points on
  // broker 2, 1 outside the band"
  std::string summary() const;
};

class ClusterBalancer {
 public:
  ClusterBalancer(std::vector<std::string> bootstrap, kafka::ClientOptions client_options,
                  ClusterBalanceSettings settings, std::shared_ptr<const LoadedStrategy> strategy,
                  ClusterLog log);
  ~ClusterBalancer();

  // Reads every broker and plans it; changes nothing.
  ClusterRound plan();
  // One round: reads every broker, notes the moves that ended, starts those the plans allow, and
  // clears the throttle of a broker with nothing left to move.
  ClusterRound round();
  // Deletes the throttle this balancer set on each broker it still holds one on.
  void clear_throttles();
  // One line per broker that moved something since this balancer started: "Broker 1: 21 moves,
  // 37.4 MiB copied in 18.2 s of moving (2.0 MiB/s)".
  std::vector<std::string> totals() const;
  // Adds `dir` to broker `id`'s cordoned.log.dirs (IncrementalAlterConfigs APPEND, KIP-1066), so
  // no new replica lands there. Throws std::runtime_error with the broker's refusal.
  void cordon(int32_t id, const std::string& dir);

 private:
  struct BrokerState {
    bool balancing = false;  // the band was not reached yet: hysteresis
    bool throttle_set = false;
    FollowedMoves moves;  // started here, or found in flight
    std::unordered_map<TopicPartition, int64_t, TopicPartitionHash> last_moved;
    // What it moved since this process started, and how long it had moves in flight: the copy
    // rate the throttle allowed, seen from outside.
    uint64_t moves_done = 0;
    uint64_t moved_bytes = 0;
    int64_t moving_ms = 0;
    int64_t last_read_ms = 0;
    bool was_moving = false;
    BlockedMoves blocked;
    std::unique_ptr<kafka::KafkaClient> client;
  };

  ClusterRound read_and_plan(bool act);
  BrokerRound broker_round(const BrokerAddress& b, bool act, int64_t now);
  void note_ended_moves(BrokerState& s, const BrokerView& v, BrokerRound& r, int64_t now);
  void plan_broker(BrokerState& s, const BrokerView& v, BrokerRound& r, int64_t now);
  void start_moves(BrokerState& s, const BrokerView& v, BrokerRound& r, int64_t now);
  // Follows move `m` when the broker's answer for it, `code`, accepts it; else blocks it.
  void note_start(BrokerState& s, const BrokerView& v, BrokerRound& r, const PlannedMove& m,
                  std::optional<int16_t> code, int64_t now);
  kafka::KafkaClient& client_of(BrokerState& s, const BrokerAddress& b);
  void set_throttle(BrokerState& s, int32_t id, bool on);
  // Before each batch of starts: the throttle set, or set again when something else changed or
  // deleted it since.
  void ensure_throttle(BrokerState& s, int32_t id);
  // The value broker `id` gives for `name` (DescribeConfigs), or nullopt when it gives none.
  std::optional<std::string> broker_config(BrokerState& s, int32_t id, const std::string& name);
  void alter_broker_config(BrokerState& s, int32_t id, const std::string& name, int8_t operation,
                           const std::optional<std::string>& value);

  std::vector<std::string> bootstrap_;
  kafka::ClientOptions client_options_;
  ClusterBalanceSettings settings_;
  StrategySlot slot_;
  ClusterLog log_;
  std::map<int32_t, BrokerState> brokers_;
  std::map<int32_t, std::string> addresses_;
  uint64_t rounds_ = 0;
};

}  // namespace lds::cluster
