// describe_topic_partitions.cpp: DescribeTopicPartitions request and response, from Kafka's
// DescribeTopicPartitionsRequest.json and DescribeTopicPartitionsResponse.json (version 0,
// flexible). A nullable struct travels as an int8 marker (-1 null, 1 present) before its fields.
#include "kafka/protocol/describe_topic_partitions.h"

namespace lds::kafka {
namespace {

std::optional<TopicPartitionsCursor> read_cursor(Reader& in) {
  const int8_t marker = in.int8();
  if (marker < 0) return std::nullopt;
  TopicPartitionsCursor c;
  c.topic_name = in.string(true);
  c.partition_index = in.int32();
  in.tagged_fields(true);
  return c;
}

void write_cursor(Writer& out, const std::optional<TopicPartitionsCursor>& cursor) {
  if (!cursor) {
    out.int8(-1);
    return;
  }
  out.int8(1);
  out.string(cursor->topic_name, true);
  out.int32(cursor->partition_index);
  out.tagged_fields(true);
}

}  // namespace

DescribeTopicPartitionsRequest read_describe_topic_partitions_request(Reader& in,
                                                                      int16_t /*version*/) {
  DescribeTopicPartitionsRequest r;
  const int32_t n = in.non_null_array_length(true);
  for (int32_t i = 0; i < n; ++i) {
    r.topics.push_back(in.string(true));
    in.tagged_fields(true);
  }
  r.response_partition_limit = in.int32();
  r.cursor = read_cursor(in);
  in.tagged_fields(true);
  return r;
}

void write_describe_topic_partitions_request(Writer& out,
                                             const DescribeTopicPartitionsRequest& request,
                                             int16_t /*version*/) {
  out.array_length(static_cast<int32_t>(request.topics.size()), true);
  for (const std::string& t : request.topics) {
    out.string(t, true);
    out.tagged_fields(true);
  }
  out.int32(request.response_partition_limit);
  write_cursor(out, request.cursor);
  out.tagged_fields(true);
}

void write_describe_topic_partitions_response(Writer& out,
                                              const DescribeTopicPartitionsResponse& response,
                                              int16_t /*version*/) {
  out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.topics.size()), true);
  for (const auto& t : response.topics) {
    out.int16(t.error_code);
    out.nullable_string(t.name, true);
    out.uuid(t.topic_id);
    out.boolean(t.is_internal);
    out.array_length(static_cast<int32_t>(t.partitions.size()), true);
    for (const auto& p : t.partitions) {
      out.int16(p.error_code);
      out.int32(p.partition_index);
      out.int32(p.leader_id);
      out.int32(p.leader_epoch);
      out.int32_array(p.replica_nodes, true);
      out.int32_array(p.isr_nodes, true);
      out.nullable_int32_array(p.eligible_leader_replicas, true);
      out.nullable_int32_array(p.last_known_elr, true);
      out.int32_array(p.offline_replicas, true);
      out.tagged_fields(true);
    }
    out.int32(t.topic_authorized_operations);
    out.tagged_fields(true);
  }
  write_cursor(out, response.next_cursor);
  out.tagged_fields(true);
}

DescribeTopicPartitionsResponse read_describe_topic_partitions_response(Reader& in,
                                                                        int16_t /*version*/) {
  DescribeTopicPartitionsResponse r;
  r.throttle_time_ms = in.int32();
  const int32_t topics = in.non_null_array_length(true);
  for (int32_t i = 0; i < topics; ++i) {
    DescribeTopicPartitionsResponse::Topic t;
    t.error_code = in.int16();
    t.name = in.nullable_string(true);
    t.topic_id = in.uuid();
    t.is_internal = in.boolean();
    const int32_t partitions = in.non_null_array_length(true);
    for (int32_t j = 0; j < partitions; ++j) {
      DescribeTopicPartitionsResponse::Partition p;
      p.error_code = in.int16();
      p.partition_index = in.int32();
      p.leader_id = in.int32();
      p.leader_epoch = in.int32();
      p.replica_nodes = in.int32_array(true);
      p.isr_nodes = in.int32_array(true);
      p.eligible_leader_replicas = in.nullable_int32_array(true);
      p.last_known_elr = in.nullable_int32_array(true);
      p.offline_replicas = in.int32_array(true);
      in.tagged_fields(true);
      t.partitions.push_back(std::move(p));
    }
    t.topic_authorized_operations = in.int32();
    in.tagged_fields(true);
    r.topics.push_back(std::move(t));
  }
  r.next_cursor = read_cursor(in);
  in.tagged_fields(true);
  return r;
}

}  // namespace lds::kafka
