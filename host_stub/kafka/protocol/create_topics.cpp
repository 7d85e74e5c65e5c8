// create_topics.cpp: CreateTopics request and response, from Kafka's CreateTopicsRequest.json and
// CreateTopicsResponse.json (versions 0 to 7).
#include "kafka/protocol/create_topics.h"

namespace lds::kafka {
namespace {
bool create_topics_flexible(int16_t version) { return version >= 5; }
}  // namespace

CreateTopicsRequest read_create_topics_request(Reader& in, int16_t version) {
  const bool flex = create_topics_flexible(version);
  CreateTopicsRequest r;
  const int32_t topics = in.non_null_array_length(flex);
  for (int32_t i = 0; i < topics; ++i) {
    CreateTopicsRequest::Topic t;
    t.name = in.string(flex);
    t.num_partitions = in.int32();
    t.replication_factor = in.int16();
    const int32_t assignments = in.non_null_array_length(flex);
    for (int32_t j = 0; j < assignments; ++j) {
      CreateTopicsRequest::Assignment a;
      a.partition_index = in.int32();
      const int32_t brokers = in.non_null_array_length(flex);
      for (int32_t k = 0; k < brokers; ++k) a.broker_ids.push_back(in.int32());
      in.tagged_fields(flex);
      t.assignments.push_back(std::move(a));
    }
    const int32_t configs = in.non_null_array_length(flex);
    for (int32_t j = 0; j < configs; ++j) {
      CreateTopicsRequest::Config c;
      c.name = in.string(flex);
      c.value = in.nullable_string(flex);
      in.tagged_fields(flex);
      t.configs.push_back(std::move(c));
    }
    in.tagged_fields(flex);
    r.topics.push_back(std::move(t));
  }
  r.timeout_ms = in.int32();
  if (version >= 1) r.validate_only = in.boolean();
  in.tagged_fields(flex);
  return r;
}

void write_create_topics_request(Writer& out, const CreateTopicsRequest& request, int16_t version) {
  const bool flex = create_topics_flexible(version);
  out.array_length(static_cast<int32_t>(request.topics.size()), flex);
  for (const auto& t : request.topics) {
    out.string(t.name, flex);
    out.int32(t.num_partitions);
    out.int16(t.replication_factor);
    out.array_length(static_cast<int32_t>(t.assignments.size()), flex);
    for (const auto& a : t.assignments) {
      out.int32(a.partition_index);
      out.array_length(static_cast<int32_t>(a.broker_ids.size()), flex);
      for (int32_t b : a.broker_ids) out.int32(b);
      out.tagged_fields(flex);
    }
    out.array_length(static_cast<int32_t>(t.configs.size()), flex);
    for (const auto& c : t.configs) {
      out.string(c.name, flex);
      out.nullable_string(c.value, flex);
      out.tagged_fields(flex);
    }
    out.tagged_fields(flex);
  }
  out.int32(request.timeout_ms);
  if (version >= 1) out.boolean(request.validate_only);
  out.tagged_fields(flex);
}

void write_create_topics_response(Writer& out, const CreateTopicsResponse& response,
                                  int16_t version) {
  const bool flex = create_topics_flexible(version);
  if (version >= 2) out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.topics.size()), flex);
  for (const auto& t : response.topics) {
    out.string(t.name, flex);
    if (version >= 7) out.uuid(t.topic_id);
    out.int16(t.error_code);
    if (version >= 1) out.nullable_string(t.error_message, flex);
    if (version >= 5) {
      out.int32(t.num_partitions);
      out.int16(t.replication_factor);
      if (!t.configs) {
        out.array_length(std::nullopt, flex);
      } else {
        out.array_length(static_cast<int32_t>(t.configs->size()), flex);
        for (const auto& c : *t.configs) {
          out.string(c.name, flex);
          out.nullable_string(c.value, flex);
          out.boolean(c.read_only);
          out.int8(c.config_source);
          out.boolean(c.is_sensitive);
          out.tagged_fields(flex);
        }
      }
    }
    out.tagged_fields(flex);
  }
  out.tagged_fields(flex);
}

CreateTopicsResponse read_create_topics_response(Reader& in, int16_t version) {
  const bool flex = create_topics_flexible(version);
  CreateTopicsResponse r;
  if (version >= 2) r.throttle_time_ms = in.int32();
  const int32_t topics = in.non_null_array_length(flex);
  for (int32_t i = 0; i < topics; ++i) {
    CreateTopicsResponse::Topic t;
    t.name = in.string(flex);
    if (version >= 7) t.topic_id = in.uuid();
    t.error_code = in.int16();
    if (version >= 1) t.error_message = in.nullable_string(flex);
    if (version >= 5) {
      t.num_partitions = in.int32();
      t.replication_factor = in.int16();
      if (std::optional<int32_t> configs = in.array_length(flex)) {
        t.configs.emplace();
        for (int32_t j = 0; j < *configs; ++j) {
          DescribeConfigsResponse::Config c;
          c.name = in.string(flex);
          c.value = in.nullable_string(flex);
          c.read_only = in.boolean();
          c.config_source = in.int8();
          c.is_sensitive = in.boolean();
          in.tagged_fields(flex);
          t.configs->push_back(std::move(c));
        }
      }
    }
    in.tagged_fields(flex);
    r.topics.push_back(std::move(t));
  }
  in.tagged_fields(flex);
  return r;
}

}  // namespace lds::kafka
