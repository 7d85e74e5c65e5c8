// partition_reassignments.cpp: ListPartitionReassignments and AlterPartitionReassignments
// requests and responses, from Kafka's ListPartitionReassignments{Request,Response}.json
// (version 0) and AlterPartitionReassignments{Request,Response}.json (versions 0 and 1), all
// flexible.
#include "kafka/protocol/partition_reassignments.h"

namespace lds::kafka {
ListPartitionReassignmentsRequest read_list_partition_reassignments_request(Reader& in,
                                                                            int16_t /*version*/) {
  ListPartitionReassignmentsRequest r;
  r.timeout_ms = in.int32();
  if (std::optional<int32_t> n = in.array_length(true)) {
    r.topics.emplace();
    for (int32_t i = 0; i < *n; ++i) {
      ListPartitionReassignmentsRequest::Topic t;
      t.name = in.string(true);
      t.partition_indexes = in.int32_array(true);
      in.tagged_fields(true);
      r.topics->push_back(std::move(t));
    }
  }
  in.tagged_fields(true);
  return r;
}

void write_list_partition_reassignments_request(Writer& out,
                                                const ListPartitionReassignmentsRequest& request,
                                                int16_t /*version*/) {
  out.int32(request.timeout_ms);
  if (!request.topics) {
    out.array_length(std::nullopt, true);
  } else {
    out.array_length(static_cast<int32_t>(request.topics->size()), true);
    for (const auto& t : *request.topics) {
      out.string(t.name, true);
      out.int32_array(t.partition_indexes, true);
      out.tagged_fields(true);
    }
  }
  out.tagged_fields(true);
}

void write_list_partition_reassignments_response(Writer& out,
                                                 const ListPartitionReassignmentsResponse& response,
                                                 int16_t /*version*/) {
  out.int32(response.throttle_time_ms);
  out.int16(response.error_code);
  out.nullable_string(response.error_message, true);
  out.array_length(static_cast<int32_t>(response.topics.size()), true);
  for (const auto& t : response.topics) {
    out.string(t.name, true);
    out.array_length(static_cast<int32_t>(t.partitions.size()), true);
    for (const auto& p : t.partitions) {
      out.int32(p.partition_index);
      out.int32_array(p.replicas, true);
      out.int32_array(p.adding_replicas, true);
      out.int32_array(p.removing_replicas, true);
      out.tagged_fields(true);
    }
    out.tagged_fields(true);
  }
  out.tagged_fields(true);
}

ListPartitionReassignmentsResponse read_list_partition_reassignments_response(Reader& in,
                                                                              int16_t /*version*/) {
  ListPartitionReassignmentsResponse r;
  r.throttle_time_ms = in.int32();
  r.error_code = in.int16();
  r.error_message = in.nullable_string(true);
  const int32_t topics = in.non_null_array_length(true);
  for (int32_t i = 0; i < topics; ++i) {
    ListPartitionReassignmentsResponse::Topic t;
    t.name = in.string(true);
    const int32_t partitions = in.non_null_array_length(true);
    for (int32_t j = 0; j < partitions; ++j) {
      ListPartitionReassignmentsResponse::Partition p;
      p.partition_index = in.int32();
      p.replicas = in.int32_array(true);
      p.adding_replicas = in.int32_array(true);
      p.removing_replicas = in.int32_array(true);
      in.tagged_fields(true);
      t.partitions.push_back(std::move(p));
    }
    in.tagged_fields(true);
    r.topics.push_back(std::move(t));
  }
  in.tagged_fields(true);
  return r;
}

AlterPartitionReassignmentsRequest read_alter_partition_reassignments_request(Reader& in,
                                                                              int16_t version) {
  AlterPartitionReassignmentsRequest r;
  r.timeout_ms = in.int32();
  if (version >= 1) r.allow_replication_factor_change = in.boolean();
  const int32_t topics = in.non_null_array_length(true);
  for (int32_t i = 0; i < topics; ++i) {
    AlterPartitionReassignmentsRequest::Topic t;
    t.name = in.string(true);
    const int32_t partitions = in.non_null_array_length(true);
    for (int32_t j = 0; j < partitions; ++j) {
      AlterPartitionReassignmentsRequest::Partition p;
      p.partition_index = in.int32();
      p.replicas = in.nullable_int32_array(true);
      in.tagged_fields(true);
      t.partitions.push_back(std::move(p));
    }
    in.tagged_fields(true);
    r.topics.push_back(std::move(t));
  }
  in.tagged_fields(true);
  return r;
}

void write_alter_partition_reassignments_request(Writer& out,
                                                 const AlterPartitionReassignmentsRequest& request,
                                                 int16_t version) {
  out.int32(request.timeout_ms);
  if (version >= 1) out.boolean(request.allow_replication_factor_change);
  out.array_length(static_cast<int32_t>(request.topics.size()), true);
  for (const auto& t : request.topics) {
    out.string(t.name, true);
    out.array_length(static_cast<int32_t>(t.partitions.size()), true);
    for (const auto& p : t.partitions) {
      out.int32(p.partition_index);
      out.nullable_int32_array(p.replicas, true);
      out.tagged_fields(true);
    }
    out.tagged_fields(true);
  }
  out.tagged_fields(true);
}

void write_alter_partition_reassignments_response(
    Writer& out, const AlterPartitionReassignmentsResponse& response, int16_t version) {
  out.int32(response.throttle_time_ms);
  if (version >= 1) out.boolean(response.allow_replication_factor_change);
  out.int16(response.error_code);
  out.nullable_string(response.error_message, true);
  out.array_length(static_cast<int32_t>(response.responses.size()), true);
  for (const auto& t : response.responses) {
    out.string(t.name, true);
    out.array_length(static_cast<int32_t>(t.partitions.size()), true);
    for (const auto& p : t.partitions) {
      out.int32(p.partition_index);
      out.int16(p.error_code);
      out.nullable_string(p.error_message, true);
      out.tagged_fields(true);
    }
    out.tagged_fields(true);
  }
  out.tagged_fields(true);
}

AlterPartitionReassignmentsResponse read_alter_partition_reassignments_response(Reader& in,
                                                                                int16_t version) {
  AlterPartitionReassignmentsResponse r;
  r.throttle_time_ms = in.int32();
  if (version >= 1) r.allow_replication_factor_change = in.boolean();
  r.error_code = in.int16();
  r.error_message = in.nullable_string(true);
  const int32_t topics = in.non_null_array_length(true);
  for (int32_t i = 0; i < topics; ++i) {
    AlterPartitionReassignmentsResponse::Topic t;
    t.name = in.string(true);
    const int32_t partitions = in.non_null_array_length(true);
    for (int32_t j = 0; j < partitions; ++j) {
      AlterPartitionReassignmentsResponse::Partition p;
      p.partition_index = in.int32();
      p.error_code = in.int16();
      p.error_message = in.nullable_string(true);
      in.tagged_fields(true);
      t.partitions.push_back(std::move(p));
    }
    in.tagged_fields(true);
    r.responses.push_back(std::move(t));
  }
  in.tagged_fields(true);
  return r;
}

}  // namespace lds::kafka
