// kafka_client.h: the client end of the Kafka protocol for lds-host's subcommands that take
// --bootstrap-server: one TCP connection to a broker's Kafka listener, one request at a time.
#pragma once

#include <cstdint>
#include <string>

namespace lds::cli {

class KafkaClient {
 public:
  // Connects to `bootstrap`, "HOST:PORT". Throws std::runtime_error naming the address when it
  // is malformed or nothing answers there.
  explicit KafkaClient(const std::string& bootstrap);
  ~KafkaClient();
  KafkaClient(const KafkaClient&) = delete;
  KafkaClient& operator=(const KafkaClient&) = delete;

  // Sends `body` as request `api_key` at `api_version` (a version with non-flexible headers:
  // request header 1, response header 0) and returns the response body after its header. Throws
  // std::runtime_error when the connection fails or the reply is not the one asked for.
  std::string call(int16_t api_key, int16_t api_version, const std::string& body);

 private:
  std::string bootstrap_;
  int fd_ = -1;
  int32_t next_correlation_id_ = 1;
};

// The name Kafka gives error code `code` ("INVALID_REQUEST"), or "error code N" for one this host
// does not use.
std::string kafka_error_name(int16_t code);

}  // namespace lds::cli
