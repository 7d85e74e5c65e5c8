// describe_cluster.cpp: DescribeCluster request and response, from Kafka's
// DescribeClusterRequest.json and DescribeClusterResponse.json (versions 0 to 2, all flexible).
#include "kafka/protocol/describe_cluster.h"

namespace lds::kafka {

DescribeClusterRequest read_describe_cluster_request(Reader& in, int16_t version) {
  DescribeClusterRequest r;
  r.include_cluster_authorized_operations = in.boolean();
  if (version >= 1) r.endpoint_type = in.int8();
  if (version >= 2) r.include_fenced_brokers = in.boolean();
  in.tagged_fields(true);
  return r;
}

void write_describe_cluster_request(Writer& out, const DescribeClusterRequest& request,
                                    int16_t version) {
  out.boolean(request.include_cluster_authorized_operations);
  if (version >= 1) out.int8(request.endpoint_type);
  if (version >= 2) out.boolean(request.include_fenced_brokers);
  out.tagged_fields(true);
}

void write_describe_cluster_response(Writer& out, const DescribeClusterResponse& response,
                                     int16_t version) {
  out.int32(response.throttle_time_ms);
  out.int16(response.error_code);
  out.nullable_string(response.error_message, true);
  if (version >= 1) out.int8(response.endpoint_type);
  out.string(response.cluster_id, true);
  out.int32(response.controller_id);
  out.array_length(static_cast<int32_t>(response.brokers.size()), true);
  for (const auto& b : response.brokers) {
    out.int32(b.broker_id);
    out.string(b.host, true);
    out.int32(b.port);
    out.nullable_string(b.rack, true);
    if (version >= 2) out.boolean(b.is_fenced);
    out.tagged_fields(true);
  }
  out.int32(response.cluster_authorized_operations);
  out.tagged_fields(true);
}

DescribeClusterResponse read_describe_cluster_response(Reader& in, int16_t version) {
  DescribeClusterResponse r;
  r.throttle_time_ms = in.int32();
  r.error_code = in.int16();
  r.error_message = in.nullable_string(true);
  if (version >= 1) r.endpoint_type = in.int8();
  r.cluster_id = in.string(true);
  r.controller_id = in.int32();
  const int32_t n = in.non_null_array_length(true);
  for (int32_t i = 0; i < n; ++i) {
    DescribeClusterResponse::Broker b;
    b.broker_id = in.int32();
    b.host = in.string(true);
    b.port = in.int32();
    b.rack = in.nullable_string(true);
    if (version >= 2) b.is_fenced = in.boolean();
    in.tagged_fields(true);
    r.brokers.push_back(std::move(b));
  }
  r.cluster_authorized_operations = in.int32();
  in.tagged_fields(true);
  return r;
}

}  // namespace lds::kafka
