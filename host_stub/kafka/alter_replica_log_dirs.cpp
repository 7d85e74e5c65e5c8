// alter_replica_log_dirs.cpp: AlterReplicaLogDirs request and response, from Kafka's
// AlterReplicaLogDirsRequest.json and AlterReplicaLogDirsResponse.json (versions 0 and 1).
#include "kafka/alter_replica_log_dirs.h"

namespace lds::kafka {

AlterReplicaLogDirsRequest read_alter_replica_log_dirs_request(Reader& in, int16_t /*version*/) {
  AlterReplicaLogDirsRequest r;
  const int32_t dirs = in.non_null_array_length(false);
  for (int32_t i = 0; i < dirs; ++i) {
    AlterReplicaLogDirsRequest::Dir d;
    d.path = in.string(false);
    const int32_t topics = in.non_null_array_length(false);
    for (int32_t j = 0; j < topics; ++j) {
      AlterReplicaLogDirsRequest::Topic t;
      t.name = in.string(false);
      const int32_t partitions = in.non_null_array_length(false);
      for (int32_t k = 0; k < partitions; ++k) t.partitions.push_back(in.int32());
      d.topics.push_back(std::move(t));
    }
    r.dirs.push_back(std::move(d));
  }
  return r;
}

void write_alter_replica_log_dirs_request(Writer& out, const AlterReplicaLogDirsRequest& request,
                                          int16_t /*version*/) {
  out.array_length(static_cast<int32_t>(request.dirs.size()), false);
  for (const auto& d : request.dirs) {
    out.string(d.path, false);
    out.array_length(static_cast<int32_t>(d.topics.size()), false);
    for (const auto& t : d.topics) {
      out.string(t.name, false);
      out.array_length(static_cast<int32_t>(t.partitions.size()), false);
      for (int32_t p : t.partitions) out.int32(p);
    }
  }
}

void write_alter_replica_log_dirs_response(Writer& out, const AlterReplicaLogDirsResponse& response,
                                           int16_t /*version*/) {
  out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.results.size()), false);
  for (const auto& t : response.results) {
    out.string(t.topic_name, false);
    out.array_length(static_cast<int32_t>(t.partitions.size()), false);
    for (const auto& p : t.partitions) {
      out.int32(p.partition_index);
      out.int16(p.error_code);
    }
  }
}

AlterReplicaLogDirsResponse read_alter_replica_log_dirs_response(Reader& in, int16_t /*version*/) {
  AlterReplicaLogDirsResponse r;
  r.throttle_time_ms = in.int32();
  const int32_t topics = in.non_null_array_length(false);
  for (int32_t i = 0; i < topics; ++i) {
    AlterReplicaLogDirsResponse::Topic t;
    t.topic_name = in.string(false);
    const int32_t partitions = in.non_null_array_length(false);
    for (int32_t j = 0; j < partitions; ++j) {
      AlterReplicaLogDirsResponse::Partition p;
      p.partition_index = in.int32();
      p.error_code = in.int16();
      t.partitions.push_back(p);
    }
    r.results.push_back(std::move(t));
  }
  return r;
}

}  // namespace lds::kafka
