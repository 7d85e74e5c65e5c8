// create_partitions.cpp: CreatePartitions request and response, from Kafka's
// CreatePartitionsRequest.json and CreatePartitionsResponse.json (versions 0 to 3; 2 and 3 are
// flexible).
#include "kafka/protocol/create_partitions.h"

namespace lds::kafka {
namespace {
bool create_partitions_flexible(int16_t version) { return version >= 2; }
}  // namespace

CreatePartitionsRequest read_create_partitions_request(Reader& in, int16_t version) {
  const bool flex = create_partitions_flexible(version);
  CreatePartitionsRequest r;
  const int32_t topics = in.non_null_array_length(flex);
  for (int32_t i = 0; i < topics; ++i) {
    CreatePartitionsRequest::Topic t;
    t.name = in.string(flex);
    t.count = in.int32();
    if (std::optional<int32_t> n = in.array_length(flex)) {
      t.assignments.emplace();
      for (int32_t j = 0; j < *n; ++j) {
        std::vector<int32_t> brokers;
        // The count is checked against the bytes left, so this reserves no more than they hold.
        const int32_t m = in.non_null_array_length(flex);
        brokers.reserve(static_cast<size_t>(m));
        for (int32_t k = 0; k < m; ++k) brokers.push_back(in.int32());
        in.tagged_fields(flex);
        t.assignments->push_back(std::move(brokers));
      }
    }
    in.tagged_fields(flex);
    r.topics.push_back(std::move(t));
  }
  r.timeout_ms = in.int32();
  r.validate_only = in.boolean();
  in.tagged_fields(flex);
  return r;
}

void write_create_partitions_request(Writer& out, const CreatePartitionsRequest& request,
                                     int16_t version) {
  const bool flex = create_partitions_flexible(version);
  out.array_length(static_cast<int32_t>(request.topics.size()), flex);
  for (const auto& t : request.topics) {
    out.string(t.name, flex);
    out.int32(t.count);
    if (!t.assignments) {
      out.array_length(std::nullopt, flex);
    } else {
      out.array_length(static_cast<int32_t>(t.assignments->size()), flex);
      for (const auto& brokers : *t.assignments) {
        out.array_length(static_cast<int32_t>(brokers.size()), flex);
        for (int32_t b : brokers) out.int32(b);
        out.tagged_fields(flex);
      }
    }
    out.tagged_fields(flex);
  }
  out.int32(request.timeout_ms);
  out.boolean(request.validate_only);
  out.tagged_fields(flex);
}

void write_create_partitions_response(Writer& out, const CreatePartitionsResponse& response,
                                      int16_t version) {
  const bool flex = create_partitions_flexible(version);
  out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.results.size()), flex);
  for (const auto& r : response.results) {
    out.string(r.name, flex);
    out.int16(r.error_code);
    out.nullable_string(r.error_message, flex);
    out.tagged_fields(flex);
  }
  out.tagged_fields(flex);
}

CreatePartitionsResponse read_create_partitions_response(Reader& in, int16_t version) {
  const bool flex = create_partitions_flexible(version);
  CreatePartitionsResponse r;
  r.throttle_time_ms = in.int32();
  const int32_t n = in.non_null_array_length(flex);
  for (int32_t i = 0; i < n; ++i) {
    CreatePartitionsResponse::Result result;
    result.name = in.string(flex);
    result.error_code = in.int16();
    result.error_message = in.nullable_string(flex);
    in.tagged_fields(flex);
    r.results.push_back(std::move(result));
  }
  in.tagged_fields(flex);
  return r;
}

}  // namespace lds::kafka
