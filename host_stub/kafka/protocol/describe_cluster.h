// describe_cluster.h: DescribeCluster (key 60) versions 0 to 2, all flexible (KIP-700). Version 1
// adds the endpoint type asked for and answered; version 2 asks whether to include fenced brokers
// and answers each broker's fenced flag.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

// Kafka's EndpointType ids.
namespace endpoint_type {
inline constexpr int8_t kBroker = 1;
inline constexpr int8_t kController = 2;
}  // namespace endpoint_type

struct DescribeClusterRequest {
  bool include_cluster_authorized_operations = false;
  int8_t endpoint_type = endpoint_type::kBroker;  // v1+
  bool include_fenced_brokers = false;            // v2+
};

struct DescribeClusterResponse {
  struct Broker {
    int32_t broker_id = 0;
    std::string host;
    int32_t port = 0;
    std::optional<std::string> rack;
    bool is_fenced = false;  // v2+
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  std::optional<std::string> error_message;
  int8_t endpoint_type = endpoint_type::kBroker;  // v1+
  std::string cluster_id;
  int32_t controller_id = -1;
  std::vector<Broker> brokers;
  // Kafka's "not asked for" (Integer.MIN_VALUE): this broker has no authorizer.
  int32_t cluster_authorized_operations = INT32_MIN;
};

DescribeClusterRequest read_describe_cluster_request(Reader& in, int16_t version);
void write_describe_cluster_request(Writer& out, const DescribeClusterRequest& request,
                                    int16_t version);
void write_describe_cluster_response(Writer& out, const DescribeClusterResponse& response,
                                     int16_t version);
DescribeClusterResponse read_describe_cluster_response(Reader& in, int16_t version);

}  // namespace lds::kafka
