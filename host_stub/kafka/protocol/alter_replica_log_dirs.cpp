// alter_replica_log_dirs.cpp: AlterReplicaLogDirs request and response, from Kafka's
// AlterReplicaLogDirsRequest.json and AlterReplicaLogDirsResponse.json (versions 0 to 2).
#include "kafka/protocol/alter_replica_log_dirs.h"

namespace lds::kafka {
namespace {
bool alter_replica_log_dirs_flexible(int16_t version) { return version >= 2; }
}  // namespace

AlterReplicaLogDirsRequest read_alter_replica_log_dirs_request(Reader& in, int16_t version) {
  const bool flex = alter_replica_log_dirs_flexible(version);
  AlterReplicaLogDirsRequest r;
  const int32_t dirs = in.non_null_array_length(flex);
  for (int32_t i = 0; i < dirs; ++i) {
    AlterReplicaLogDirsRequest::Dir d;
    d.path = in.string(flex);
    const int32_t topics = in.non_null_array_length(flex);
    for (int32_t j = 0; j < topics; ++j) {
      AlterReplicaLogDirsRequest::Topic t;
      t.name = in.string(flex);
      const int32_t partitions = in.non_null_array_length(flex);
      for (int32_t k = 0; k < partitions; ++k) t.partitions.push_back(in.int32());
      in.tagged_fields(flex);
      d.topics.push_back(std::move(t));
    }
    in.tagged_fields(flex);
    r.dirs.push_back(std::move(d));
  }
  in.tagged_fields(flex);
  return r;
}

void write_alter_replica_log_dirs_request(Writer& out, const AlterReplicaLogDirsRequest& request,
                                          int16_t version) {
  const bool flex = alter_replica_log_dirs_flexible(version);
  out.array_length(static_cast<int32_t>(request.dirs.size()), flex);
  for (const auto& d : request.dirs) {
    out.string(d.path, flex);
    out.array_length(static_cast<int32_t>(d.topics.size()), flex);
    for (const auto& t : d.topics) {
      out.string(t.name, flex);
      out.array_length(static_cast<int32_t>(t.partitions.size()), flex);
      for (int32_t p : t.partitions) out.int32(p);
      out.tagged_fields(flex);
    }
    out.tagged_fields(flex);
  }
  out.tagged_fields(flex);
}

void write_alter_replica_log_dirs_response(Writer& out, const AlterReplicaLogDirsResponse& response,
                                           int16_t version) {
  const bool flex = alter_replica_log_dirs_flexible(version);
  out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.results.size()), flex);
  for (const auto& t : response.results) {
    out.string(t.topic_name, flex);
    out.array_length(static_cast<int32_t>(t.partitions.size()), flex);
    for (const auto& p : t.partitions) {
      out.int32(p.partition_index);
      out.int16(p.error_code);
      out.tagged_fields(flex);
    }
    out.tagged_fields(flex);
  }
  out.tagged_fields(flex);
}

AlterReplicaLogDirsResponse read_alter_replica_log_dirs_response(Reader& in, int16_t version) {
  const bool flex = alter_replica_log_dirs_flexible(version);
  AlterReplicaLogDirsResponse r;
  r.throttle_time_ms = in.int32();
  const int32_t topics = in.non_null_array_length(flex);
  for (int32_t i = 0; i < topics; ++i) {
    AlterReplicaLogDirsResponse::Topic t;
    t.topic_name = in.string(flex);
    const int32_t partitions = in.non_null_array_length(flex);
    for (int32_t j = 0; j < partitions; ++j) {
      AlterReplicaLogDirsResponse::Partition p;
      p.partition_index = in.int32();
      p.error_code = in.int16();
      in.tagged_fields(flex);
      t.partitions.push_back(p);
    }
    in.tagged_fields(flex);
    r.results.push_back(std::move(t));
  }
  in.tagged_fields(flex);
  return r;
}

}  // namespace lds::kafka
