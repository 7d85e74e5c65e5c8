// delete_topics.cpp: DeleteTopics request and response, from Kafka's DeleteTopicsRequest.json and
// DeleteTopicsResponse.json (versions 0 to 6).
#include "kafka/protocol/delete_topics.h"

namespace lds::kafka {
namespace {
bool delete_topics_flexible(int16_t version) { return version >= 4; }
}  // namespace

DeleteTopicsRequest read_delete_topics_request(Reader& in, int16_t version) {
  const bool flex = delete_topics_flexible(version);
  DeleteTopicsRequest r;
  const int32_t n = in.non_null_array_length(flex);
  for (int32_t i = 0; i < n; ++i) {
    DeleteTopicsRequest::Topic t;
    if (version >= 6) {
      t.name = in.nullable_string(flex);
      t.topic_id = in.uuid();
      in.tagged_fields(flex);
    } else {
      t.name = in.string(flex);
    }
    r.topics.push_back(std::move(t));
  }
  r.timeout_ms = in.int32();
  in.tagged_fields(flex);
  return r;
}

void write_delete_topics_request(Writer& out, const DeleteTopicsRequest& request, int16_t version) {
  const bool flex = delete_topics_flexible(version);
  out.array_length(static_cast<int32_t>(request.topics.size()), flex);
  for (const auto& t : request.topics) {
    if (version >= 6) {
      out.nullable_string(t.name, flex);
      out.uuid(t.topic_id);
      out.tagged_fields(flex);
    } else {
      out.string(t.name.value_or(""), flex);
    }
  }
  out.int32(request.timeout_ms);
  out.tagged_fields(flex);
}

void write_delete_topics_response(Writer& out, const DeleteTopicsResponse& response,
                                  int16_t version) {
  const bool flex = delete_topics_flexible(version);
  if (version >= 1) out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.responses.size()), flex);
  for (const auto& r : response.responses) {
    if (version >= 6) {
      out.nullable_string(r.name, flex);
      out.uuid(r.topic_id);
    } else {
      out.string(r.name.value_or(""), flex);
    }
    out.int16(r.error_code);
    if (version >= 5) out.nullable_string(r.error_message, flex);
    out.tagged_fields(flex);
  }
  out.tagged_fields(flex);
}

DeleteTopicsResponse read_delete_topics_response(Reader& in, int16_t version) {
  const bool flex = delete_topics_flexible(version);
  DeleteTopicsResponse r;
  if (version >= 1) r.throttle_time_ms = in.int32();
  const int32_t n = in.non_null_array_length(flex);
  for (int32_t i = 0; i < n; ++i) {
    DeleteTopicsResponse::Result result;
    if (version >= 6) {
      result.name = in.nullable_string(flex);
      result.topic_id = in.uuid();
    } else {
      result.name = in.string(flex);
    }
    result.error_code = in.int16();
    if (version >= 5) result.error_message = in.nullable_string(flex);
    in.tagged_fields(flex);
    r.responses.push_back(std::move(result));
  }
  in.tagged_fields(flex);
  return r;
}

}  // namespace lds::kafka
