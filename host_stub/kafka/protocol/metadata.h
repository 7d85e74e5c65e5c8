// metadata.h: Metadata (key 3) versions 0 to 13. Version 5 adds each partition's offline
// replicas, 7 its leader epoch, 8 the authorized operations asked for and answered, 9 is flexible,
// 10 adds topic ids (a topic may be asked for by id alone), 11 drops the cluster's authorized
// operations, 12 lets a topic's name be null in the answer, and 13 adds a top-level error code.
#pragma once

#include <climits>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

struct MetadataRequest {
  // The topics asked for by name; nullopt for all topics. Version 0 has no null: its empty array
  // means all topics, and reading one gives nullopt.
  std::optional<std::vector<std::string>> topics;
  bool allow_auto_topic_creation = true;  // v4+
  // v10+: the topics asked for by id alone (a null name). Only read; the writer sends names.
  std::vector<Uuid> topic_ids{};
  bool include_cluster_authorized_operations = false;  // v8 to v10
  bool include_topic_authorized_operations = false;    // v8+
};

struct MetadataResponse {
  struct Broker {
    int32_t node_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;  // v1+
  };
  struct Partition {
    int16_t error_code = 0;
    int32_t partition_index = 0;
    int32_t leader_id = 0;
    int32_t leader_epoch = -1;  // v7+
    std::vector<int32_t> replica_nodes;
    std::vector<int32_t> isr_nodes;
    std::vector<int32_t> offline_replicas;  // v5+
  };
  struct Topic {
    int16_t error_code = 0;
    std::optional<std::string> name;  // null only in v12+ (an unknown topic id)
    Uuid topic_id{};                  // v10+
    bool is_internal = false;         // v1+
    std::vector<Partition> partitions;
    int32_t topic_authorized_operations = INT32_MIN;  // v8+; MIN: not asked for
  };
  int32_t throttle_time_ms = 0;  // v3+
  std::vector<Broker> brokers;
  std::optional<std::string> cluster_id;  // v2+
  int32_t controller_id = -1;             // v1+
  std::vector<Topic> topics;
  int32_t cluster_authorized_operations = INT32_MIN;  // v8 to v10
  int16_t error_code = 0;                             // v13+
};

MetadataRequest read_metadata_request(Reader& in, int16_t version);
void write_metadata_request(Writer& out, const MetadataRequest& request, int16_t version);
void write_metadata_response(Writer& out, const MetadataResponse& response, int16_t version);
MetadataResponse read_metadata_response(Reader& in, int16_t version);

}  // namespace lds::kafka
