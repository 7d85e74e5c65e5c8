// describe_log_dirs.cpp: DescribeLogDirs request and response, from Kafka's
// DescribeLogDirsRequest.json and DescribeLogDirsResponse.json, with KIP-1066's version 5.
#include "kafka/protocol/describe_log_dirs.h"

namespace lds::kafka {
namespace {
constexpr int16_t kDescribeLogDirsFirstFlexible = 2;
}

DescribeLogDirsRequest read_describe_log_dirs_request(Reader& in, int16_t version) {
  const bool flexible = version >= kDescribeLogDirsFirstFlexible;
  DescribeLogDirsRequest r;
  std::optional<int32_t> n = in.array_length(flexible);
  if (n) {
    r.topics.emplace();
    for (int32_t i = 0; i < *n; ++i) {
      DescribeLogDirsRequest::Topic t;
      t.topic = in.string(flexible);
      const int32_t partitions = in.non_null_array_length(flexible);
      for (int32_t j = 0; j < partitions; ++j) t.partitions.push_back(in.int32());
      in.tagged_fields(flexible);
      r.topics->push_back(std::move(t));
    }
  }
  in.tagged_fields(flexible);
  return r;
}

void write_describe_log_dirs_request(Writer& out, const DescribeLogDirsRequest& request,
                                     int16_t version) {
  const bool flexible = version >= kDescribeLogDirsFirstFlexible;
  if (!request.topics) {
    out.array_length(std::nullopt, flexible);
  } else {
    out.array_length(static_cast<int32_t>(request.topics->size()), flexible);
    for (const auto& t : *request.topics) {
      out.string(t.topic, flexible);
      out.array_length(static_cast<int32_t>(t.partitions.size()), flexible);
      for (int32_t p : t.partitions) out.int32(p);
      out.tagged_fields(flexible);
    }
  }
  out.tagged_fields(flexible);
}

void write_describe_log_dirs_response(Writer& out, const DescribeLogDirsResponse& response,
                                      int16_t version) {
  const bool flexible = version >= kDescribeLogDirsFirstFlexible;
  out.int32(response.throttle_time_ms);
  if (version >= 3) out.int16(response.error_code);
  out.array_length(static_cast<int32_t>(response.results.size()), flexible);
  for (const auto& d : response.results) {
    out.int16(d.error_code);
    out.string(d.log_dir, flexible);
    out.array_length(static_cast<int32_t>(d.topics.size()), flexible);
    for (const auto& t : d.topics) {
      out.string(t.name, flexible);
      out.array_length(static_cast<int32_t>(t.partitions.size()), flexible);
      for (const auto& p : t.partitions) {
        out.int32(p.partition_index);
        out.int64(p.partition_size);
        out.int64(p.offset_lag);
        out.boolean(p.is_future_key);
        out.tagged_fields(flexible);
      }
      out.tagged_fields(flexible);
    }
    if (version >= 4) {
      out.int64(d.total_bytes);
      out.int64(d.usable_bytes);
    }
    if (version >= 5) out.boolean(d.is_cordoned);
    out.tagged_fields(flexible);
  }
  out.tagged_fields(flexible);
}

DescribeLogDirsResponse read_describe_log_dirs_response(Reader& in, int16_t version) {
  const bool flexible = version >= kDescribeLogDirsFirstFlexible;
  DescribeLogDirsResponse r;
  r.throttle_time_ms = in.int32();
  if (version >= 3) r.error_code = in.int16();
  const int32_t results = in.non_null_array_length(flexible);
  for (int32_t i = 0; i < results; ++i) {
    DescribeLogDirsResponse::Result d;
    d.error_code = in.int16();
    d.log_dir = in.string(flexible);
    const int32_t topics = in.non_null_array_length(flexible);
    for (int32_t j = 0; j < topics; ++j) {
      DescribeLogDirsResponse::Topic t;
      t.name = in.string(flexible);
      const int32_t partitions = in.non_null_array_length(flexible);
      for (int32_t k = 0; k < partitions; ++k) {
        DescribeLogDirsResponse::Partition p;
        p.partition_index = in.int32();
        p.partition_size = in.int64();
        p.offset_lag = in.int64();
        p.is_future_key = in.boolean();
        in.tagged_fields(flexible);
        t.partitions.push_back(p);
      }
      in.tagged_fields(flexible);
      d.topics.push_back(std::move(t));
    }
    if (version >= 4) {
      d.total_bytes = in.int64();
      d.usable_bytes = in.int64();
    }
    if (version >= 5) d.is_cordoned = in.boolean();
    in.tagged_fields(flexible);
    r.results.push_back(std::move(d));
  }
  in.tagged_fields(flexible);
  return r;
}

}  // namespace lds::kafka
