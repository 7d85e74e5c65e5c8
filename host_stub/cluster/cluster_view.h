// cluster_view.h: what the cluster balancer knows of a Kafka cluster, read through Kafka's own
// protocol: its brokers (Metadata), and each broker's log dirs with their sizes, replicas, future
// replicas and cordons (DescribeLogDirs v4+), as the balance planner's model of that broker.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "balance/balance_planner.h"
#include "kafka/protocol/describe_log_dirs.h"
#include "kafka/protocol/kafka_client.h"
#include "model/topic_partition.h"

namespace lds::cluster {

struct BrokerAddress {
  int32_t id = 0;
  std::string address;  // "host:port" of its listener
};

// The brokers every address of `bootstrap` knows (Metadata), by id. An address that cannot be
// asked is skipped; when none can, throws std::runtime_error with each one's reason.
std::vector<BrokerAddress> discover_brokers(const std::vector<std::string>& bootstrap,
                                            const kafka::ClientOptions& options);

// A move in flight on one broker: a future replica beside the current one.
struct FutureReplica {
  uint32_t from = 0;  // model dir of the current replica
  uint32_t to = 0;    // model dir of the future replica
  uint64_t copied = 0;
  uint64_t size = 0;  // the current replica's size
  int64_t offset_lag = 0;
};

// One broker's log dirs as the planner sees them, and what it is moving.
struct BrokerView {
  int32_t id = 0;
  std::string address;
  std::string error;  // why it could not be read this round; empty when it was
  BalanceModel model;
  std::unordered_map<TopicPartition, FutureReplica, TopicPartitionHash> futures;

  // The model dir of `path`, or -1.
  int dir_index(const std::string& path) const;
  // Whether `tp` is in the dir at `path` with no future replica: a move from there may start.
  bool at_rest_in(const TopicPartition& tp, const std::string& path) const;
};

// DescribeLogDirs (v4 or later, for the sizes) of the broker `client` talks to: every partition,
// or those `request` names.
kafka::DescribeLogDirsResponse describe_log_dirs(kafka::KafkaClient& client,
                                                 const kafka::DescribeLogDirsRequest& request = {});

// The model of one broker's DescribeLogDirs answer: a dir with an error is offline; one without
// TotalBytes takes no part; a future replica makes its partition a move in flight, whose bytes
// still to copy are reserved on the destination.
//
// A dir's used bytes are those its replicas hold (current and future), not the filesystem's: a
// replica just moved stays on its old disk until Kafka deletes it (log.segment.delete.delay.ms,
// 60 s by default), and a balancer that counted it would move more off that disk, or, restarted,
// plan again what is already done. Room is still the filesystem's: UsableBytes less the bytes
// still to copy in.
BrokerView broker_view(int32_t id, const std::string& address,
                       const kafka::DescribeLogDirsResponse& response);

}  // namespace lds::cluster
