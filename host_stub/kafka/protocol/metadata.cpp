// metadata.cpp: Metadata request and response, from Kafka's MetadataRequest.json and
// MetadataResponse.json (versions 0 to 13).
#include "kafka/protocol/metadata.h"

namespace lds::kafka {
namespace {

bool metadata_flexible(int16_t version) { return version >= 9; }

}  // namespace

MetadataRequest read_metadata_request(Reader& in, int16_t version) {
  const bool flex = metadata_flexible(version);
  MetadataRequest r;
  std::optional<int32_t> n = in.array_length(flex);
  if (n) {
    std::vector<std::string> topics;
    for (int32_t i = 0; i < *n; ++i) {
      if (version >= 10) {
        const Uuid id = in.uuid();
        std::optional<std::string> name = in.nullable_string(flex);
        in.tagged_fields(flex);
        if (name) {
          topics.push_back(std::move(*name));
        } else {
          r.topic_ids.push_back(id);
        }
      } else {
        topics.push_back(in.string(flex));
      }
    }
    if (!(version == 0 && topics.empty())) r.topics = std::move(topics);
  } else if (version == 0) {
    throw ParseError("Metadata v0 does not allow a null topic array.");
  }
  if (version >= 4) r.allow_auto_topic_creation = in.boolean();
  if (version >= 8 && version <= 10) r.include_cluster_authorized_operations = in.boolean();
  if (version >= 8) r.include_topic_authorized_operations = in.boolean();
  in.tagged_fields(flex);
  return r;
}

void write_metadata_request(Writer& out, const MetadataRequest& request, int16_t version) {
  const bool flex = metadata_flexible(version);
  if (request.topics) {
    out.array_length(static_cast<int32_t>(request.topics->size()), flex);
    for (const auto& t : *request.topics) {
      if (version >= 10) {
        out.uuid(Uuid{});
        out.nullable_string(t, flex);
        out.tagged_fields(flex);
      } else {
        out.string(t, flex);
      }
    }
  } else {
    out.array_length(version == 0 ? std::optional<int32_t>(0) : std::nullopt, flex);
  }
  if (version >= 4) out.boolean(request.allow_auto_topic_creation);
  if (version >= 8 && version <= 10) out.boolean(request.include_cluster_authorized_operations);
  if (version >= 8) out.boolean(request.include_topic_authorized_operations);
  out.tagged_fields(flex);
}

void write_metadata_response(Writer& out, const MetadataResponse& response, int16_t version) {
  const bool flex = metadata_flexible(version);
  if (version >= 3) out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.brokers.size()), flex);
  for (const auto& b : response.brokers) {
    out.int32(b.node_id);
    out.string(b.host, flex);
    out.int32(b.port);
    if (version >= 1) out.nullable_string(b.rack, flex);
    out.tagged_fields(flex);
  }
  if (version >= 2) out.nullable_string(response.cluster_id, flex);
  if (version >= 1) out.int32(response.controller_id);
  out.array_length(static_cast<int32_t>(response.topics.size()), flex);
  for (const auto& t : response.topics) {
    out.int16(t.error_code);
    if (version >= 12) {
      out.nullable_string(t.name, flex);
    } else {
      out.string(t.name.value_or(""), flex);
    }
    if (version >= 10) out.uuid(t.topic_id);
    if (version >= 1) out.boolean(t.is_internal);
    out.array_length(static_cast<int32_t>(t.partitions.size()), flex);
    for (const auto& p : t.partitions) {
      out.int16(p.error_code);
      out.int32(p.partition_index);
      out.int32(p.leader_id);
      if (version >= 7) out.int32(p.leader_epoch);
      out.int32_array(p.replica_nodes, flex);
      out.int32_array(p.isr_nodes, flex);
      if (version >= 5) out.int32_array(p.offline_replicas, flex);
      out.tagged_fields(flex);
    }
    if (version >= 8) out.int32(t.topic_authorized_operations);
    out.tagged_fields(flex);
  }
  if (version >= 8 && version <= 10) out.int32(response.cluster_authorized_operations);
  if (version >= 13) out.int16(response.error_code);
  out.tagged_fields(flex);
}

MetadataResponse read_metadata_response(Reader& in, int16_t version) {
  const bool flex = metadata_flexible(version);
  MetadataResponse r;
  if (version >= 3) r.throttle_time_ms = in.int32();
  const int32_t brokers = in.non_null_array_length(flex);
  for (int32_t i = 0; i < brokers; ++i) {
    MetadataResponse::Broker b;
    b.node_id = in.int32();
    b.host = in.string(flex);
    b.port = in.int32();
    if (version >= 1) b.rack = in.nullable_string(flex);
    in.tagged_fields(flex);
    r.brokers.push_back(std::move(b));
  }
  if (version >= 2) r.cluster_id = in.nullable_string(flex);
  if (version >= 1) r.controller_id = in.int32();
  const int32_t topics = in.non_null_array_length(flex);
  for (int32_t i = 0; i < topics; ++i) {
    MetadataResponse::Topic t;
    t.error_code = in.int16();
    t.name = version >= 12 ? in.nullable_string(flex) : in.string(flex);
    if (version >= 10) t.topic_id = in.uuid();
    if (version >= 1) t.is_internal = in.boolean();
    const int32_t partitions = in.non_null_array_length(flex);
    for (int32_t j = 0; j < partitions; ++j) {
      MetadataResponse::Partition p;
      p.error_code = in.int16();
      p.partition_index = in.int32();
      p.leader_id = in.int32();
      if (version >= 7) p.leader_epoch = in.int32();
      p.replica_nodes = in.int32_array(flex);
      p.isr_nodes = in.int32_array(flex);
      if (version >= 5) p.offline_replicas = in.int32_array(flex);
      in.tagged_fields(flex);
      t.partitions.push_back(std::move(p));
    }
    if (version >= 8) t.topic_authorized_operations = in.int32();
    in.tagged_fields(flex);
    r.topics.push_back(std::move(t));
  }
  if (version >= 8 && version <= 10) r.cluster_authorized_operations = in.int32();
  if (version >= 13) r.error_code = in.int16();
  in.tagged_fields(flex);
  return r;
}

}  // namespace lds::kafka
