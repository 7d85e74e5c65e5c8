// delete_topics.h: DeleteTopics (key 20) versions 0 to 6. Version 1 adds the throttle time;
// version 4 is flexible; version 5 adds each result's error message; version 6 names topics by
// name or by id (KIP-516), and answers each result's id.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

struct DeleteTopicsRequest {
  // A topic to delete: by name, or (v6+) by id with a null name.
  struct Topic {
    std::optional<std::string> name;
    Uuid topic_id{};
  };
  std::vector<Topic> topics;
  int32_t timeout_ms = 0;
};

struct DeleteTopicsResponse {
  struct Result {
    std::optional<std::string> name;  // null (v6+) for an id that names no topic
    Uuid topic_id{};                  // v6+
    int16_t error_code = 0;
    std::optional<std::string> error_message{};  // v5+
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
