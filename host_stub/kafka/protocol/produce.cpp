// produce.cpp: Produce request and response, from Kafka's ProduceRequest.json and
// ProduceResponse.json (versions 3 to 8).
#include "kafka/protocol/produce.h"

namespace lds::kafka {

ProduceRequest read_produce_request(Reader& in, int16_t /*version*/) {
  ProduceRequest r;
  r.transactional_id = in.nullable_string(false);
  r.acks = in.int16();
  r.timeout_ms = in.int32();
  const int32_t topics = in.non_null_array_length(false);
  for (int32_t i = 0; i < topics; ++i) {
    ProduceRequest::Topic t;
    t.name = in.string(false);
    const int32_t partitions = in.non_null_array_length(false);
    for (int32_t j = 0; j < partitions; ++j) {
      ProduceRequest::Partition p;
      p.index = in.int32();
      p.records = in.nullable_bytes(false);
      t.partitions.push_back(std::move(p));
    }
    r.topics.push_back(std::move(t));
  }
  return r;
}

void write_produce_request(Writer& out, const ProduceRequest& request, int16_t /*version*/) {
  out.nullable_string(request.transactional_id, false);
  out.int16(request.acks);
  out.int32(request.timeout_ms);
  out.array_length(static_cast<int32_t>(request.topics.size()), false);
  for (const auto& t : request.topics) {
    out.string(t.name, false);
    out.array_length(static_cast<int32_t>(t.partitions.size()), false);
    for (const auto& p : t.partitions) {
      out.int32(p.index);
      out.nullable_bytes(p.records, false);
    }
  }
}

void write_produce_response(Writer& out, const ProduceResponse& response, int16_t version) {
  out.array_length(static_cast<int32_t>(response.topics.size()), false);
  for (const auto& t : response.topics) {
    out.string(t.name, false);
    out.array_length(static_cast<int32_t>(t.partitions.size()), false);
    for (const auto& p : t.partitions) {
      out.int32(p.index);
      out.int16(p.error_code);
      out.int64(p.base_offset);
      out.int64(p.log_append_time_ms);
      if (version >= 5) out.int64(p.log_start_offset);
      if (version >= 8) {
        out.array_length(static_cast<int32_t>(p.record_errors.size()), false);
        for (const auto& e : p.record_errors) {
          out.int32(e.batch_index);
          out.nullable_string(e.message, false);
        }
        out.nullable_string(p.error_message, false);
      }
    }
  }
  out.int32(response.throttle_time_ms);
}

ProduceResponse read_produce_response(Reader& in, int16_t version) {
  ProduceResponse r;
  const int32_t topics = in.non_null_array_length(false);
  for (int32_t i = 0; i < topics; ++i) {
    ProduceResponse::Topic t;
    t.name = in.string(false);
    const int32_t partitions = in.non_null_array_length(false);
    for (int32_t j = 0; j < partitions; ++j) {
      ProduceResponse::Partition p;
      p.index = in.int32();
      p.error_code = in.int16();
      p.base_offset = in.int64();
      p.log_append_time_ms = in.int64();
      if (version >= 5) p.log_start_offset = in.int64();
      if (version >= 8) {
        const int32_t errors = in.non_null_array_length(false);
        for (int32_t k = 0; k < errors; ++k) {
          ProduceResponse::Partition::RecordError e;
          e.batch_index = in.int32();
          e.message = in.nullable_string(false);
          p.record_errors.push_back(std::move(e));
        }
        p.error_message = in.nullable_string(false);
      }
      t.partitions.push_back(std::move(p));
    }
    r.topics.push_back(std::move(t));
  }
  r.throttle_time_ms = in.int32();
  return r;
}

}  // namespace lds::kafka
