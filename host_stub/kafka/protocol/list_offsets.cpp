// list_offsets.cpp: ListOffsets request and response, from Kafka's ListOffsetsRequest.json and
// ListOffsetsResponse.json (versions 1 and 2).
#include "kafka/protocol/list_offsets.h"

namespace lds::kafka {

ListOffsetsRequest read_list_offsets_request(Reader& in, int16_t version) {
  ListOffsetsRequest r;
  r.replica_id = in.int32();
  if (version >= 2) r.isolation_level = in.int8();
  const int32_t topics = in.non_null_array_length(false);
  for (int32_t i = 0; i < topics; ++i) {
    ListOffsetsRequest::Topic t;
    t.name = in.string(false);
    const int32_t partitions = in.non_null_array_length(false);
    for (int32_t j = 0; j < partitions; ++j) {
      ListOffsetsRequest::Partition p;
      p.partition_index = in.int32();
      p.timestamp = in.int64();
      t.partitions.push_back(p);
    }
    r.topics.push_back(std::move(t));
  }
  return r;
}

void write_list_offsets_request(Writer& out, const ListOffsetsRequest& request, int16_t version) {
  out.int32(request.replica_id);
  if (version >= 2) out.int8(request.isolation_level);
  out.array_length(static_cast<int32_t>(request.topics.size()), false);
  for (const auto& t : request.topics) {
    out.string(t.name, false);
    out.array_length(static_cast<int32_t>(t.partitions.size()), false);
    for (const auto& p : t.partitions) {
      out.int32(p.partition_index);
      out.int64(p.timestamp);
    }
  }
}

void write_list_offsets_response(Writer& out, const ListOffsetsResponse& response,
                                 int16_t version) {
  if (version >= 2) out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.topics.size()), false);
  for (const auto& t : response.topics) {
    out.string(t.name, false);
    out.array_length(static_cast<int32_t>(t.partitions.size()), false);
    for (const auto& p : t.partitions) {
      out.int32(p.partition_index);
      out.int16(p.error_code);
      out.int64(p.timestamp);
      out.int64(p.offset);
    }
  }
}

ListOffsetsResponse read_list_offsets_response(Reader& in, int16_t version) {
  ListOffsetsResponse r;
  if (version >= 2) r.throttle_time_ms = in.int32();
  const int32_t topics = in.non_null_array_length(false);
  for (int32_t i = 0; i < topics; ++i) {
    ListOffsetsResponse::Topic t;
    t.name = in.string(false);
    const int32_t partitions = in.non_null_array_length(false);
    for (int32_t j = 0; j < partitions; ++j) {
      ListOffsetsResponse::Partition p;
      p.partition_index = in.int32();
      p.error_code = in.int16();
      p.timestamp = in.int64();
      p.offset = in.int64();
      t.partitions.push_back(p);
    }
    r.topics.push_back(std::move(t));
  }
  return r;
}

}  // namespace lds::kafka
