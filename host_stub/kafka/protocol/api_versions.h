// api_versions.h: ApiVersions (key 18) versions 0 to 5; version 3 is flexible and adds the
// client's software name and version, 4 is the same, and 5 adds the cluster and node the client
// expects (read, not checked: this broker answers any client).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

struct ApiVersionsRequest {
  std::string client_software_name;         // v3+
  std::string client_software_version;      // v3+
  std::optional<std::string> cluster_id{};  // v5+
  int32_t node_id = -1;                     // v5+
};

struct ApiVersionsResponse {
  struct Api {
    int16_t api_key = 0;
    int16_t min_version = 0;
    int16_t max_version = 0;
    bool operator==(const Api&) const = default;
  };
  int16_t error_code = 0;
  std::vector<Api> api_keys;
  int32_t throttle_time_ms = 0;  // v1+
};

ApiVersionsRequest read_api_versions_request(Reader& in, int16_t version);
void write_api_versions_request(Writer& out, const ApiVersionsRequest& request, int16_t version);
// Version 3 writes no tagged fields (no features are advertised).
void write_api_versions_response(Writer& out, const ApiVersionsResponse& response, int16_t version);
ApiVersionsResponse read_api_versions_response(Reader& in, int16_t version);

}  // namespace lds::kafka
