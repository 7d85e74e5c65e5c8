// delete_topics.cpp: DeleteTopics request and response, from Kafka's DeleteTopicsRequest.json and
// DeleteTopicsResponse.json (versions 0 to 3).
#include "kafka/delete_topics.h"

namespace lds::kafka {

DeleteTopicsRequest read_delete_topics_request(Reader& in, int16_t /*version*/) {
  DeleteTopicsRequest r;
  const int32_t n = in.non_null_array_length(false);
  for (int32_t i = 0; i < n; ++i) r.topic_names.push_back(in.string(false));
  r.timeout_ms = in.int32();
  return r;
}

void write_delete_topics_request(Writer& out, const DeleteTopicsRequest& request,
                                 int16_t /*version*/) {
  out.array_length(static_cast<int32_t>(request.topic_names.size()), false);
  for (const auto& t : request.topic_names) out.string(t, false);
  out.int32(request.timeout_ms);
}

void write_delete_topics_response(Writer& out, const DeleteTopicsResponse& response,
                                  int16_t version) {
  if (version >= 1) out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.responses.size()), false);
  for (const auto& r : response.responses) {
    out.string(r.name, false);
    out.int16(r.error_code);
  }
}

DeleteTopicsResponse read_delete_topics_response(Reader& in, int16_t version) {
  DeleteTopicsResponse r;
  if (version >= 1) r.throttle_time_ms = in.int32();
  const int32_t n = in.non_null_array_length(false);
  for (int32_t i = 0; i < n; ++i) {
    DeleteTopicsResponse::Result result;
    result.name = in.string(false);
    result.error_code = in.int16();
    r.responses.push_back(std::move(result));
  }
  return r;
}

}  // namespace lds::kafka
