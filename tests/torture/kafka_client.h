// kafka_client.h: the torture test's Kafka client, kafka_produce.py (confluent-kafka, that is
// librdkafka), run as a child process against the broker's Kafka listener.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "filler_log.h"

namespace lds::torture {

namespace fs = std::filesystem;

// What the client's delivery reports said.
struct Delivery {
  std::map<std::string, int64_t> offsets;  // key -> offset, for each message written
  size_t failed = 0;                       // messages reported not written
  std::string first_error;                 // the first of those reports' error text
  std::string problem;  // "" or why the reports cannot be trusted (no end, unknown key, ...)
};

// Sends `messages` (keys unique, no tab or newline in them) to `topic`-`partition` through the
// listener at `address` ("127.0.0.1:PORT") with acks=all and no retries; `work` holds the input
// and report files. Gives up on a client still running after `timeout_seconds`.
Delivery produce_through_listener(const fs::path& script, const std::string& address,
                                  const std::string& topic, int32_t partition,
                                  const std::vector<test::ClientRecord>& messages,
                                  const fs::path& work, int timeout_seconds);

// Whether `script`'s interpreter can import confluent-kafka; "" when it can, else why not.
std::string kafka_client_problem(const fs::path& script);

}  // namespace lds::torture
