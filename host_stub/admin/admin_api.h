// admin_api.h: the admin protocol's requests and responses (DESIGN 5.1), independent of transport.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "util/errors.h"

namespace lds {

class Broker;

class AdminApi {
 public:
  // Reads the broker's static socket.request.max.bytes once. `listeners` is the Kafka listener's
  // bound address in the listeners format (PLAINTEXT://127.0.0.1:40123), empty when there is none;
  // DescribeLogDirs reports it.
  explicit AdminApi(Broker& broker, std::string listeners = "");

  // Handles one request line and returns one response line (without the newline). Never throws:
  // a malformed line gets INVALID_REQUEST, a refused request its Kafka error.
  std::string handle_line(std::string_view line);

  // Handles one parsed request. Every response has "error" and "message".
  nlohmann::json handle(const nlohmann::json& request);

 private:
  nlohmann::json describe_log_dirs();
  nlohmann::json create_partitions(const nlohmann::json& request);
  // CreatePartitions' request, answered with each partition's placement explained and nothing
  // created (LogManager::explain_placement).
  nlohmann::json describe_placement(const nlohmann::json& request);
  // Why a hosted partition went where it went: its creation's explanation, while the broker keeps
  // it (LogManager::past_placement).
  nlohmann::json explain_placement(const nlohmann::json& request);
  nlohmann::json delete_topic(const nlohmann::json& request);
  nlohmann::json produce(const nlohmann::json& request);
  nlohmann::json alter_replica_log_dirs(const nlohmann::json& request);
  nlohmann::json incremental_alter_configs(const nlohmann::json& request);
  nlohmann::json describe_configs();

  Broker& broker_;
  uint64_t max_request_bytes_;  // socket.request.max.bytes
  std::string listeners_;
};

// An error response: {"error": NAME, "message": TEXT}.
nlohmann::json error_response(ErrorCode error, const std::string& message);
// The success response, before its own fields: {"error": "NONE", "message": ""}.
nlohmann::json ok_response();

}  // namespace lds
