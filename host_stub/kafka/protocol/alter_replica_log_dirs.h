// alter_replica_log_dirs.h: AlterReplicaLogDirs (key 34) versions 0 to 2; version 1 is the same
// as version 0, and version 2 is version 1 flexible.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

struct AlterReplicaLogDirsRequest {
  struct Topic {
    std::string name;
    std::vector<int32_t> partitions;
  };
  struct Dir {
    std::string path;  // absolute, or "any"
    std::vector<Topic> topics;
  };
  std::vector<Dir> dirs;
};

struct AlterReplicaLogDirsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
  };
  struct Topic {
    std::string topic_name;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Topic> results;
};

AlterReplicaLogDirsRequest read_alter_replica_log_dirs_request(Reader& in, int16_t version);
void write_alter_replica_log_dirs_request(Writer& out, const AlterReplicaLogDirsRequest& request,
                                          int16_t version);
void write_alter_replica_log_dirs_response(Writer& out, const AlterReplicaLogDirsResponse& response,
                                           int16_t version);
AlterReplicaLogDirsResponse read_alter_replica_log_dirs_response(Reader& in, int16_t version);

}  // namespace lds::kafka
