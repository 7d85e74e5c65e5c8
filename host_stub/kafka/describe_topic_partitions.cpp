// describe_topic_partitions.cpp: DescribeTopicPartitions request and response, from Kafka's
// DescribeTopicPartitionsRequest.json and DescribeTopicPartitionsResponse.json (version 0,
// flexible). A nullable struct travels as an int8 marker (-1 null, 1 present) before its fields.
#include "kafka/describe_topic_partitions.h"

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

std::vector<int32_t> read_int32s(Reader& in) {
  std::vector<int32_t> values;
  const int32_t n = in.non_null_array_length(true);
  values.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) values.push_back(in.int32());
  return values;
}

std::optional<std::vector<int32_t>> read_nullable_int32s(Reader& in) {
  std::optional<int32_t> n = in.array_length(true);
  if (!n) return std::nullopt;
  std::vector<int32_t> values;
  values.reserve(static_cast<size_t>(*n));
  for (int32_t i = 0; i < *n; ++i) values.push_back(in.int32());
  return values;
}

void write_int32s(Writer& out, const std::vector<int32_t>& values) {
  out.array_length(static_cast<int32_t>(values.size()), true);
  for (int32_t v : values) out.int32(v);
}

void write_nullable_int32s(Writer& out, const std::optional<std::vector<int32_t>>& values) {
  if (!values) {
    out.array_length(std::nullopt, true);
  } else {
    write_int32s(out, *values);
  }
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
      write_int32s(out, p.replica_nodes);
      write_int32s(out, p.isr_nodes);
      write_nullable_int32s(out, p.eligible_leader_replicas);
      write_nullable_int32s(out, p.last_known_elr);
      write_int32s(out, p.offline_replicas);
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
      p.replica_nodes = read_int32s(in);
      p.isr_nodes = read_int32s(in);
      p.eligible_leader_replicas = read_nullable_int32s(in);
      p.last_known_elr = read_nullable_int32s(in);
      p.offline_replicas = read_int32s(in);
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
