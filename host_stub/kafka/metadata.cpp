// metadata.cpp: Metadata request and response, from Kafka's MetadataRequest.json and
// MetadataResponse.json (versions 0 to 5; version 5 adds each partition's offline replicas).
#include "kafka/metadata.h"

namespace lds::kafka {

MetadataRequest read_metadata_request(Reader& in, int16_t version) {
  MetadataRequest r;
  std::optional<int32_t> n = in.array_length(false);
  if (n) {
    std::vector<std::string> topics;
    topics.reserve(static_cast<size_t>(*n));
    for (int32_t i = 0; i < *n; ++i) topics.push_back(in.string(false));
    if (!(version == 0 && topics.empty())) r.topics = std::move(topics);
  } else if (version == 0) {
    throw ParseError("Metadata v0 does not allow a null topic array.");
  }
  if (version >= 4) r.allow_auto_topic_creation = in.boolean();
  return r;
}

void write_metadata_request(Writer& out, const MetadataRequest& request, int16_t version) {
  if (request.topics) {
    out.array_length(static_cast<int32_t>(request.topics->size()), false);
    for (const auto& t : *request.topics) out.string(t, false);
  } else {
    out.array_length(version == 0 ? std::optional<int32_t>(0) : std::nullopt, false);
  }
  if (version >= 4) out.boolean(request.allow_auto_topic_creation);
}

namespace {
void write_int32_array(Writer& out, const std::vector<int32_t>& values) {
  out.array_length(static_cast<int32_t>(values.size()), false);
  for (int32_t v : values) out.int32(v);
}
std::vector<int32_t> read_int32_array(Reader& in) {
  std::vector<int32_t> values;
  const int32_t n = in.non_null_array_length(false);
  values.reserve(static_cast<size_t>(n));
  for (int32_t i = 0; i < n; ++i) values.push_back(in.int32());
  return values;
}
}  // namespace

void write_metadata_response(Writer& out, const MetadataResponse& response, int16_t version) {
  if (version >= 3) out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.brokers.size()), false);
  for (const auto& b : response.brokers) {
    out.int32(b.node_id);
    out.string(b.host, false);
    out.int32(b.port);
    if (version >= 1) out.nullable_string(b.rack, false);
  }
  if (version >= 2) out.nullable_string(response.cluster_id, false);
  if (version >= 1) out.int32(response.controller_id);
  out.array_length(static_cast<int32_t>(response.topics.size()), false);
  for (const auto& t : response.topics) {
    out.int16(t.error_code);
    out.string(t.name, false);
    if (version >= 1) out.boolean(t.is_internal);
    out.array_length(static_cast<int32_t>(t.partitions.size()), false);
    for (const auto& p : t.partitions) {
      out.int16(p.error_code);
      out.int32(p.partition_index);
      out.int32(p.leader_id);
      write_int32_array(out, p.replica_nodes);
      write_int32_array(out, p.isr_nodes);
      if (version >= 5) write_int32_array(out, p.offline_replicas);
    }
  }
}

MetadataResponse read_metadata_response(Reader& in, int16_t version) {
  MetadataResponse r;
  if (version >= 3) r.throttle_time_ms = in.int32();
  const int32_t brokers = in.non_null_array_length(false);
  for (int32_t i = 0; i < brokers; ++i) {
    MetadataResponse::Broker b;
    b.node_id = in.int32();
    b.host = in.string(false);
    b.port = in.int32();
    if (version >= 1) b.rack = in.nullable_string(false);
    r.brokers.push_back(std::move(b));
  }
  if (version >= 2) r.cluster_id = in.nullable_string(false);
  if (version >= 1) r.controller_id = in.int32();
  const int32_t topics = in.non_null_array_length(false);
  for (int32_t i = 0; i < topics; ++i) {
    MetadataResponse::Topic t;
    t.error_code = in.int16();
    t.name = in.string(false);
    if (version >= 1) t.is_internal = in.boolean();
    const int32_t partitions = in.non_null_array_length(false);
    for (int32_t j = 0; j < partitions; ++j) {
      MetadataResponse::Partition p;
      p.error_code = in.int16();
      p.partition_index = in.int32();
      p.leader_id = in.int32();
      p.replica_nodes = read_int32_array(in);
      p.isr_nodes = read_int32_array(in);
      if (version >= 5) p.offline_replicas = read_int32_array(in);
      t.partitions.push_back(std::move(p));
    }
    r.topics.push_back(std::move(t));
  }
  return r;
}

}  // namespace lds::kafka
