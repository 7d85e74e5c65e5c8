// create_partitions.h: CreatePartitions (key 37) versions 0 to 3; version 1 is the same as version
// 0 (it only changes when a throttled broker answers), 2 is 1 flexible, and 3 is the same as 2.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

struct CreatePartitionsRequest {
  struct Topic {
    std::string name;
    int32_t count = 0;  // the new total partition count
    // One entry per new partition, each the broker ids of its replicas; nullopt: the broker places.
    std::optional<std::vector<std::vector<int32_t>>> assignments;
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 0;
  bool validate_only = false;
};

struct CreatePartitionsResponse {
  struct Result {
    std::string name;
    int16_t error_code = 0;
    std::optional<std::string> error_message;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
};

CreatePartitionsRequest read_create_partitions_request(Reader& in, int16_t version);
void write_create_partitions_request(Writer& out, const CreatePartitionsRequest& request,
                                     int16_t version);
void write_create_partitions_response(Writer& out, const CreatePartitionsResponse& response,
                                      int16_t version);
CreatePartitionsResponse read_create_partitions_response(Reader& in, int16_t version);

}  // namespace lds::kafka
