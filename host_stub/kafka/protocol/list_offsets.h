// list_offsets.h: ListOffsets (key 2) versions 1 and 2, neither flexible. Version 1 answers one
// offset and its timestamp per partition (v0's offset list is gone); version 2 adds the isolation
// level and the throttle time.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

// The special timestamps of ListOffsets versions 1 and 2.
inline constexpr int64_t kLatestTimestamp = -1;    // the log end offset
inline constexpr int64_t kEarliestTimestamp = -2;  // the log start offset

struct ListOffsetsRequest {
  struct Partition {
    int32_t partition_index = 0;
    int64_t timestamp = kLatestTimestamp;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t replica_id = -1;
  int8_t isolation_level = 0;  // v2+
  std::vector<Topic> topics;
};

struct ListOffsetsResponse {
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    int64_t timestamp = -1;
    int64_t offset = -1;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;  // v2+
  std::vector<Topic> topics;
};

ListOffsetsRequest read_list_offsets_request(Reader& in, int16_t version);
void write_list_offsets_request(Writer& out, const ListOffsetsRequest& request, int16_t version);
void write_list_offsets_response(Writer& out, const ListOffsetsResponse& response, int16_t version);
ListOffsetsResponse read_list_offsets_response(Reader& in, int16_t version);

}  // namespace lds::kafka
