// request_handler/reassignments.cpp: ListPartitionReassignments and AlterPartitionReassignments
// (KIP-455) on a broker that is its own cluster. Every partition's replica set is this broker
// alone, so no reassignment is ever in progress: the list is empty, the unchanged set is accepted
// and complete at once (as Kafka's controller accepts a reassignment to the current replicas),
// and any other set, or a cancellation, gets the error and sentence Kafka's controller gives
// (ReplicationControlManager.alterPartitionReassignment).
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/broker.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/partition_reassignments.h"
#include "kafka/server/request_handler.h"

namespace lds::kafka {
namespace {

struct ReassignmentRefusal {
  int16_t code = 0;
  std::string message;
};

// Kafka's checks of a target replica set, in its order: not empty, each broker registered and
// with a log dir that is not cordoned, none twice, then the replication factor when it may not
// change.
std::optional<ReassignmentRefusal> check_target(const std::vector<int32_t>& replicas,
                                                int32_t broker_id, bool all_dirs_cordoned,
                                                bool allow_replication_factor_change) {
  if (replicas.empty()) {
    return ReassignmentRefusal{error::kInvalidReplicaAssignment,
                               "The manual partition assignment includes an empty replica list."};
  }
  std::set<int32_t> seen;
  for (int32_t id : replicas) {
    if (id != broker_id) {
      return ReassignmentRefusal{error::kInvalidReplicaAssignment,
                                 "The manual partition assignment includes broker " +
                                     std::to_string(id) + ", but no such broker is registered."};
    }
    if (all_dirs_cordoned) {
      return ReassignmentRefusal{error::kInvalidReplicaAssignment,
                                 "The manual partition assignment includes broker " +
                                     std::to_string(id) +
                                     ", but all its log directories are cordoned."};
    }
    if (!seen.insert(id).second) {
      return ReassignmentRefusal{error::kInvalidReplicaAssignment,
                                 "The manual partition assignment includes the broker " +
                                     std::to_string(id) + " more than once."};
    }
  }
  if (!allow_replication_factor_change && replicas.size() != 1) {
    return ReassignmentRefusal{
        error::kInvalidReplicationFactor,
        "The replication factor is changed from 1 to " + std::to_string(replicas.size())};
  }
  return std::nullopt;
}

}  // namespace

std::string RequestHandler::list_partition_reassignments(std::string_view body, int16_t version,
                                                         int32_t correlation_id) const {
  Reader in(body);
  (void)read_list_partition_reassignments_request(in, version);
  ListPartitionReassignmentsResponse r;  // nothing in progress, whatever was asked
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kListPartitionReassignments, version));
  write_list_partition_reassignments_response(out, r, version);
  return out.take();
}

std::string RequestHandler::alter_partition_reassignments(std::string_view body, int16_t version,
                                                          int32_t correlation_id) const {
  Reader in(body);
  const AlterPartitionReassignmentsRequest request =
      read_alter_partition_reassignments_request(in, version);
  const std::map<std::string, std::set<int32_t>> hosted = hosted_partitions().by_topic;
  bool all_dirs_cordoned = true;
  for (const LogDirDescription& d : broker_.logs().describe()) {
    if (d.error == StorageErrc::kNone && !d.cordoned) all_dirs_cordoned = false;
  }

  AlterPartitionReassignmentsResponse r;
  r.allow_replication_factor_change = request.allow_replication_factor_change;
  for (const auto& topic : request.topics) {
    AlterPartitionReassignmentsResponse::Topic result{topic.name, {}};
    auto known = hosted.find(topic.name);
    for (const auto& p : topic.partitions) {
      AlterPartitionReassignmentsResponse::Partition answer;
      answer.partition_index = p.partition_index;
      std::optional<ReassignmentRefusal> refusal;
      if (known == hosted.end()) {
        refusal = {error::kUnknownTopicOrPartition,
                   "Unable to find a topic named " + topic.name + "."};
      } else if (known->second.count(p.partition_index) == 0) {
        refusal = {error::kUnknownTopicOrPartition, "Unable to find partition " + topic.name + ":" +
                                                        std::to_string(p.partition_index) + "."};
      } else if (!p.replicas) {
        refusal = {error::kNoReassignmentInProgress, "No partition reassignment is in progress."};
      } else {
        refusal = check_target(*p.replicas, broker_id_, all_dirs_cordoned,
                               request.allow_replication_factor_change);
      }
      if (refusal) {
        answer.error_code = refusal->code;
        answer.error_message = refusal->message;
      }
      result.partitions.push_back(std::move(answer));
    }
    r.responses.push_back(std::move(result));
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kAlterPartitionReassignments, version));
  write_alter_partition_reassignments_response(out, r, version);
  return out.take();
}

}  // namespace lds::kafka
