// describe_topic_partitions.h: DescribeTopicPartitions (key 75) version 0, flexible (KIP-966): a
// topic's partitions with their eligible leader replicas, paged by a cursor, which Kafka 4's
// AdminClient prefers to Metadata for describeTopics.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

// Where a page starts, or (in the answer) where the next one would.
struct TopicPartitionsCursor {
  std::string topic_name;
  int32_t partition_index = 0;
  bool operator==(const TopicPartitionsCursor&) const = default;
};

struct DescribeTopicPartitionsRequest {
  std::vector<std::string> topics;  // empty: every topic
  int32_t response_partition_limit = 2000;
  std::optional<TopicPartitionsCursor> cursor;
};

struct DescribeTopicPartitionsResponse {
  struct Partition {
    int16_t error_code = 0;
    int32_t partition_index = 0;
    int32_t leader_id = 0;
    int32_t leader_epoch = -1;
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::optional<std::vector<int32_t>> eligible_leader_replicas;
    std::optional<std::vector<int32_t>> last_known_elr;
    std::vector<int32_t> offline_replicas;
  };
  struct Topic {
    int16_t error_code = 0;
    std::optional<std::string> name;
    Uuid topic_id{};
    bool is_internal = false;
    std::vector<Partition> partitions;
    int32_t topic_authorized_operations = INT32_MIN;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> topics;
  std::optional<TopicPartitionsCursor> next_cursor;
};

DescribeTopicPartitionsRequest read_describe_topic_partitions_request(Reader& in, int16_t version);
void write_describe_topic_partitions_request(Writer& out,
                                             const DescribeTopicPartitionsRequest& request,
                                             int16_t version);
void write_describe_topic_partitions_response(Writer& out,
                                              const DescribeTopicPartitionsResponse& response,
                                              int16_t version);
DescribeTopicPartitionsResponse read_describe_topic_partitions_response(Reader& in,
                                                                        int16_t version);

}  // namespace lds::kafka
