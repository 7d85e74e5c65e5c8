// partition_reassignments.h: ListPartitionReassignments (key 46) version 0 and
// AlterPartitionReassignments (key 45) versions 0 and 1 (KIP-455), all flexible. Version 1 of the
// latter asks whether the replication factor may change, and echoes it (KIP-860).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

struct ListPartitionReassignmentsRequest {
  struct Topic {
    std::string name;
    std::vector<int32_t> partition_indexes;
  };
  int32_t timeout_ms = 60000;
  std::optional<std::vector<Topic>> topics;  // nullopt: every reassignment in progress
};

struct ListPartitionReassignmentsResponse {
  struct Partition {
    int32_t partition_index = 0;
    std::vector<int32_t> replicas;
    std::vector<int32_t> adding_replicas;
    std::vector<int32_t> removing_replicas;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Topic> topics;
};

struct AlterPartitionReassignmentsRequest {
  struct Partition {
    int32_t partition_index = 0;
    std::optional<std::vector<int32_t>> replicas;  // nullopt: cancel the reassignment
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t timeout_ms = 60000;
  bool allow_replication_factor_change = true;  // v1+
  std::vector<Topic> topics;
};

struct AlterPartitionReassignmentsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;
  bool allow_replication_factor_change = true;  // v1+
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  std::vector<Topic> responses;
};

ListPartitionReassignmentsRequest read_list_partition_reassignments_request(Reader& in,
                                                                            int16_t version);
void write_list_partition_reassignments_request(Writer& out,
                                                const ListPartitionReassignmentsRequest& request,
                                                int16_t version);
void write_list_partition_reassignments_response(Writer& out,
                                                 const ListPartitionReassignmentsResponse& response,
                                                 int16_t version);
ListPartitionReassignmentsResponse read_list_partition_reassignments_response(Reader& in,
                                                                              int16_t version);

AlterPartitionReassignmentsRequest read_alter_partition_reassignments_request(Reader& in,
                                                                              int16_t version);
void write_alter_partition_reassignments_request(Writer& out,
                                                 const AlterPartitionReassignmentsRequest& request,
                                                 int16_t version);
void write_alter_partition_reassignments_response(
    Writer& out, const AlterPartitionReassignmentsResponse& response, int16_t version);
AlterPartitionReassignmentsResponse read_alter_partition_reassignments_response(Reader& in,
                                                                                int16_t version);

}  // namespace lds::kafka
