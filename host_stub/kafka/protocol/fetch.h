// fetch.h: Fetch (key 1) versions 4 to 11, none of them flexible. Version 4 adds the isolation
// level and the response's LastStableOffset and AbortedTransactions, 5 the log start offsets, 7
// fetch sessions (SessionId, SessionEpoch, ForgottenTopicsData), 9 CurrentLeaderEpoch, 11 RackId
// and the response's PreferredReadReplica.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/file_slice.h"
#include "model/wire.h"

namespace lds::kafka {

struct FetchRequest {
  struct Partition {
    int32_t partition = 0;
    int32_t current_leader_epoch = -1;  // v9+
    int64_t fetch_offset = 0;
    int64_t log_start_offset = -1;  // v5+; followers only
    int32_t partition_max_bytes = 0;
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
  };
  struct ForgottenTopic {
    std::string topic;
    std::vector<int32_t> partitions;
  };
  int32_t replica_id = -1;
  int32_t max_wait_ms = 0;
  int32_t min_bytes = 0;
  int32_t max_bytes = 0x7fffffff;
  int8_t isolation_level = 0;  // 0: READ_UNCOMMITTED, 1: READ_COMMITTED
  int32_t session_id = 0;      // v7+
  int32_t session_epoch = -1;  // v7+; -1: no session, 0: open one
  std::vector<Topic> topics;
  std::vector<ForgottenTopic> forgotten_topics;  // v7+
  std::string rack_id;                           // v11+
};

struct FetchResponse {
  struct AbortedTransaction {
    int64_t producer_id = 0;
    int64_t first_offset = 0;
  };
  struct Partition {
    int32_t partition_index = 0;
    int16_t error_code = 0;
    int64_t high_watermark = -1;
    int64_t last_stable_offset = -1;
    int64_t log_start_offset = -1;  // v5+
    // Null for READ_UNCOMMITTED, as Kafka sends it.
    std::optional<std::vector<AbortedTransaction>> aborted_transactions;
    int32_t preferred_read_replica = -1;  // v11+
    std::optional<std::string> records;
    // The broker's side: when set, the records are these bytes of a segment file instead, put in
    // the response's splices (written as bytes of their length, not copied).
    FileSlice records_file;
  };
  struct Topic {
    std::string topic;
    std::vector<Partition> partitions;
  };
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;  // v7+
  int32_t session_id = 0;  // v7+; 0: no session
  std::vector<Topic> topics;
};

FetchRequest read_fetch_request(Reader& in, int16_t version);
void write_fetch_request(Writer& out, const FetchRequest& request, int16_t version);
// A partition's records_file goes into `splices` at its place in `out` (required then).
void write_fetch_response(Writer& out, const FetchResponse& response, int16_t version,
                          std::vector<FileSplice>* splices = nullptr);
FetchResponse read_fetch_response(Reader& in, int16_t version);

}  // namespace lds::kafka
