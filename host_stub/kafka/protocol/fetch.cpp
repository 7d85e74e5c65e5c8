// fetch.cpp: Fetch request and response, from Kafka's FetchRequest.json and FetchResponse.json
// (versions 4 to 11).
#include "kafka/protocol/fetch.h"

namespace lds::kafka {

FetchRequest read_fetch_request(Reader& in, int16_t version) {
  FetchRequest r;
  r.replica_id = in.int32();
  r.max_wait_ms = in.int32();
  r.min_bytes = in.int32();
  r.max_bytes = in.int32();
  r.isolation_level = in.int8();
  if (version >= 7) {
    r.session_id = in.int32();
    r.session_epoch = in.int32();
  }
  const int32_t topics = in.non_null_array_length(false);
  for (int32_t i = 0; i < topics; ++i) {
    FetchRequest::Topic t;
    t.topic = in.string(false);
    const int32_t partitions = in.non_null_array_length(false);
    for (int32_t j = 0; j < partitions; ++j) {
      FetchRequest::Partition p;
      p.partition = in.int32();
      if (version >= 9) p.current_leader_epoch = in.int32();
      p.fetch_offset = in.int64();
      if (version >= 5) p.log_start_offset = in.int64();
      p.partition_max_bytes = in.int32();
      t.partitions.push_back(p);
    }
    r.topics.push_back(std::move(t));
  }
  if (version >= 7) {
    const int32_t forgotten = in.non_null_array_length(false);
    for (int32_t i = 0; i < forgotten; ++i) {
      FetchRequest::ForgottenTopic t;
      t.topic = in.string(false);
      const int32_t partitions = in.non_null_array_length(false);
      for (int32_t j = 0; j < partitions; ++j) t.partitions.push_back(in.int32());
      r.forgotten_topics.push_back(std::move(t));
    }
  }
  if (version >= 11) r.rack_id = in.string(false);
  return r;
}

void write_fetch_request(Writer& out, const FetchRequest& request, int16_t version) {
  out.int32(request.replica_id);
  out.int32(request.max_wait_ms);
  out.int32(request.min_bytes);
  out.int32(request.max_bytes);
  out.int8(request.isolation_level);
  if (version >= 7) {
    out.int32(request.session_id);
    out.int32(request.session_epoch);
  }
  out.array_length(static_cast<int32_t>(request.topics.size()), false);
  for (const auto& t : request.topics) {
    out.string(t.topic, false);
    out.array_length(static_cast<int32_t>(t.partitions.size()), false);
    for (const auto& p : t.partitions) {
      out.int32(p.partition);
      if (version >= 9) out.int32(p.current_leader_epoch);
      out.int64(p.fetch_offset);
      if (version >= 5) out.int64(p.log_start_offset);
      out.int32(p.partition_max_bytes);
    }
  }
  if (version >= 7) {
    out.array_length(static_cast<int32_t>(request.forgotten_topics.size()), false);
    for (const auto& t : request.forgotten_topics) {
      out.string(t.topic, false);
      out.array_length(static_cast<int32_t>(t.partitions.size()), false);
      for (int32_t p : t.partitions) out.int32(p);
    }
  }
  if (version >= 11) out.string(request.rack_id, false);
}

void write_fetch_response(Writer& out, const FetchResponse& response, int16_t version,
                          std::vector<FileSplice>* splices) {
  out.int32(response.throttle_time_ms);
  if (version >= 7) {
    out.int16(response.error_code);
    out.int32(response.session_id);
  }
  out.array_length(static_cast<int32_t>(response.topics.size()), false);
  for (const auto& t : response.topics) {
    out.string(t.topic, false);
    out.array_length(static_cast<int32_t>(t.partitions.size()), false);
    for (const auto& p : t.partitions) {
      out.int32(p.partition_index);
      out.int16(p.error_code);
      out.int64(p.high_watermark);
      out.int64(p.last_stable_offset);
      if (version >= 5) out.int64(p.log_start_offset);
      if (!p.aborted_transactions) {
        out.array_length(std::nullopt, false);
      } else {
        out.array_length(static_cast<int32_t>(p.aborted_transactions->size()), false);
        for (const auto& a : *p.aborted_transactions) {
          out.int64(a.producer_id);
          out.int64(a.first_offset);
        }
      }
      if (version >= 11) out.int32(p.preferred_read_replica);
      if (p.records_file.file && splices != nullptr) {
        out.int32(static_cast<int32_t>(p.records_file.length));
        splices->push_back(FileSplice{out.size(), p.records_file});
      } else if (p.records_file.file) {
        out.nullable_bytes(read_slice(p.records_file), false);
      } else {
        out.nullable_bytes(p.records, false);
      }
    }
  }
}

FetchResponse read_fetch_response(Reader& in, int16_t version) {
  FetchResponse r;
  r.throttle_time_ms = in.int32();
  if (version >= 7) {
    r.error_code = in.int16();
    r.session_id = in.int32();
  }
  const int32_t topics = in.non_null_array_length(false);
  for (int32_t i = 0; i < topics; ++i) {
    FetchResponse::Topic t;
    t.topic = in.string(false);
    const int32_t partitions = in.non_null_array_length(false);
    for (int32_t j = 0; j < partitions; ++j) {
      FetchResponse::Partition p;
      p.partition_index = in.int32();
      p.error_code = in.int16();
      p.high_watermark = in.int64();
      p.last_stable_offset = in.int64();
      if (version >= 5) p.log_start_offset = in.int64();
      if (const std::optional<int32_t> n = in.array_length(false)) {
        p.aborted_transactions.emplace();
        for (int32_t k = 0; k < *n; ++k) {
          FetchResponse::AbortedTransaction a;
          a.producer_id = in.int64();
          a.first_offset = in.int64();
          p.aborted_transactions->push_back(a);
        }
      }
      if (version >= 11) p.preferred_read_replica = in.int32();
      p.records = in.nullable_bytes(false);
      t.partitions.push_back(std::move(p));
    }
    r.topics.push_back(std::move(t));
  }
  return r;
}

}  // namespace lds::kafka
