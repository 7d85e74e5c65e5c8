// delete_topics.h: DeleteTopics (key 20) versions 0 to 3, none of them flexible; version 1 adds
// the throttle time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/wire.h"

namespace lds::kafka {

struct DeleteTopicsRequest {
  std::vector<std::string> topic_names;
  int32_t timeout_ms = 0;
};

struct DeleteTopicsResponse {
  struct Result {
    std::string name;
    int16_t error_code = 0;
  };
  int32_t throttle_time_ms = 0;  // v1+
  std::vector<Result> responses;
};

DeleteTopicsRequest read_delete_topics_request(Reader& in, int16_t version);
void write_delete_topics_request(Writer& out, const DeleteTopicsRequest& request, int16_t version);
void write_delete_topics_response(Writer& out, const DeleteTopicsResponse& response,
                                  int16_t version);
DeleteTopicsResponse read_delete_topics_response(Reader& in, int16_t version);

}  // namespace lds::kafka
