// kafka_client.h: the client end of the Kafka protocol, for lds-host's commands that take
// --bootstrap-server: one TCP connection to one broker's Kafka listener, one request at a time,
// with the same message codecs the listener serves, and the versions agreed through ApiVersions.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "kafka/protocol/api_keys.h"

namespace lds::kafka {

struct ClientOptions {
  // How long connecting, one send or one reply may take (Kafka's request.timeout.ms); a broker
  // that does not answer in time fails the call instead of hanging it.
  std::chrono::milliseconds request_timeout{30000};
  std::string client_id = "lds-host";
};

class KafkaClient {
 public:
  // Connects to `address`, "HOST:PORT". Throws std::runtime_error naming the address when it is
  // malformed or nothing answers there.
  explicit KafkaClient(const std::string& address, ClientOptions options = {});
  ~KafkaClient();
  KafkaClient(const KafkaClient&) = delete;
  KafkaClient& operator=(const KafkaClient&) = delete;

  const std::string& address() const { return address_; }

  // Sends `body` as request `api_key` at `api_version`, with the header versions Kafka's
  // definition of that version takes, and returns the response body after its header. Throws
  // std::runtime_error when the connection fails, times out, or the reply is not the one asked for.
  std::string call(int16_t api_key, int16_t api_version, const std::string& body);

  // The highest version of `key` that both this client (within [min_version, max_version]) and
  // the broker serve, asking the broker's ApiVersions once per connection. Throws
  // std::runtime_error naming the broker and the versions when they have none in common.
  int16_t version(ApiKey key, int16_t min_version, int16_t max_version);

 private:
  void send_all(const std::string& bytes);
  std::string receive(size_t size);

  std::string address_;
  ClientOptions options_;
  int fd_ = -1;
  int32_t next_correlation_id_ = 1;
  bool versions_known_ = false;
  std::map<int16_t, std::pair<int16_t, int16_t>> broker_versions_;
};

// "a:9092,b:9092" as its addresses, in order. Throws std::runtime_error when the list is empty or
// one entry is not HOST:PORT.
std::vector<std::string> bootstrap_addresses(const std::string& list);

// The name Kafka gives error code `code` ("INVALID_REQUEST"), or "error code N" for one this host
// does not use.
std::string kafka_error_name(int16_t code);

}  // namespace lds::kafka
