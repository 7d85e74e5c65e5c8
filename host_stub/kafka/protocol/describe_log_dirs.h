// describe_log_dirs.h: DescribeLogDirs (key 35) versions 0 to 5. Versions 2+ are flexible;
// version 3 adds the top-level ErrorCode, version 4 TotalBytes and UsableBytes (KIP-827),
// version 5 IsCordoned (KIP-1066).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

struct DescribeLogDirsRequest {
  struct Topic {
    std::string topic;
    std::vector<int32_t> partitions;
  };
  std::optional<std::vector<Topic>> topics;  // nullopt: every topic
};

struct DescribeLogDirsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int64_t partition_size = 0;
    int64_t offset_lag = 0;
    bool is_future_key = false;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  struct Result {
    int16_t error_code = 0;
    std::string log_dir;
    std::vector<Topic> topics;
    int64_t total_bytes = -1;   // v4+
    int64_t usable_bytes = -1;  // v4+
    bool is_cordoned = false;   // v5+
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;  // v3+
  std::vector<Result> results;
};

DescribeLogDirsRequest read_describe_log_dirs_request(Reader& in, int16_t version);
void write_describe_log_dirs_request(Writer& out, const DescribeLogDirsRequest& request,
                                     int16_t version);
void write_describe_log_dirs_response(Writer& out, const DescribeLogDirsResponse& response,
                                      int16_t version);
DescribeLogDirsResponse read_describe_log_dirs_response(Reader& in, int16_t version);

}  // namespace lds::kafka
