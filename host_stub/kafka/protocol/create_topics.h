// create_topics.h: CreateTopics (key 19) versions 0 to 7. Version 1 adds validateOnly and the
// per-topic error message, version 2 the throttle time; version 4 lets NumPartitions and
// ReplicationFactor be -1 for the broker's defaults (KIP-464); version 5 is flexible and answers
// each topic's partition count, replication factor and configs (KIP-525); version 7 its topic id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kafka/protocol/configs.h"
#include "model/wire.h"

namespace lds::kafka {

struct CreateTopicsRequest {
  struct Assignment {
    int32_t partition_index = 0;
    std::vector<int32_t> broker_ids;
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
  };
  struct Topic {
    std::string name;
    int32_t num_partitions = -1;
    int16_t replication_factor = -1;
    std::vector<Assignment> assignments;
    std::vector<Config> configs;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 60000;
  bool validate_only = false;  // v1+
};

struct CreateTopicsResponse {
  struct Topic {
    std::string name;
    Uuid topic_id{};  // v7+
    int16_t error_code = 0;
    std::optional<std::string> error_message;  // v1+
    int32_t num_partitions = -1;               // v5+
    int16_t replication_factor = -1;           // v5+
    // v5+: the topic's configs (name, value, read-only, source, sensitive), as Kafka answers
    // them for a topic created; null with an error.
    std::optional<std::vector<DescribeConfigsResponse::Config>> configs;
  };
  int32_t throttle_time_ms = 0;  // v2+
  std::vector<Topic> topics;
};

CreateTopicsRequest read_create_topics_request(Reader& in, int16_t version);
void write_create_topics_request(Writer& out, const CreateTopicsRequest& request, int16_t version);
void write_create_topics_response(Writer& out, const CreateTopicsResponse& response,
                                  int16_t version);
CreateTopicsResponse read_create_topics_response(Reader& in, int16_t version);

}  // namespace lds::kafka
