// api_versions.cpp: ApiVersions request and response, from Kafka's ApiVersionsRequest.json and
// ApiVersionsResponse.json.
#include "kafka/protocol/api_versions.h"

namespace lds::kafka {
namespace {
constexpr int16_t kFirstFlexible = 3;
}

ApiVersionsRequest read_api_versions_request(Reader& in, int16_t version) {
  ApiVersionsRequest r;
  const bool flexible = version >= kFirstFlexible;
  if (version >= 3) {
    r.client_software_name = in.string(flexible);
    r.client_software_version = in.string(flexible);
  }
  if (version >= 5) {
    r.cluster_id = in.nullable_string(flexible);
    r.node_id = in.int32();
  }
  in.tagged_fields(flexible);
  return r;
}

void write_api_versions_request(Writer& out, const ApiVersionsRequest& request, int16_t version) {
  const bool flexible = version >= kFirstFlexible;
  if (version >= 3) {
    out.string(request.client_software_name, flexible);
    out.string(request.client_software_version, flexible);
  }
  if (version >= 5) {
    out.nullable_string(request.cluster_id, flexible);
    out.int32(request.node_id);
  }
  out.tagged_fields(flexible);
}

void write_api_versions_response(Writer& out, const ApiVersionsResponse& response,
                                 int16_t version) {
  const bool flexible = version >= kFirstFlexible;
  out.int16(response.error_code);
  out.array_length(static_cast<int32_t>(response.api_keys.size()), flexible);
  for (const auto& api : response.api_keys) {
    out.int16(api.api_key);
    out.int16(api.min_version);
    out.int16(api.max_version);
    out.tagged_fields(flexible);
  }
  if (version >= 1) out.int32(response.throttle_time_ms);
  out.tagged_fields(flexible);
}

ApiVersionsResponse read_api_versions_response(Reader& in, int16_t version) {
  const bool flexible = version >= kFirstFlexible;
  ApiVersionsResponse r;
  r.error_code = in.int16();
  const int32_t n = in.non_null_array_length(flexible);
  for (int32_t i = 0; i < n; ++i) {
    ApiVersionsResponse::Api api;
    api.api_key = in.int16();
    api.min_version = in.int16();
    api.max_version = in.int16();
    in.tagged_fields(flexible);
    r.api_keys.push_back(api);
  }
  if (version >= 1) r.throttle_time_ms = in.int32();
  in.tagged_fields(flexible);
  return r;
}

}  // namespace lds::kafka
