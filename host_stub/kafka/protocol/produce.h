// produce.h: Produce (key 0) versions 3 to 8, none of them flexible. Version 3 is the first that
// carries v2 record batches and a transactional id; versions 4 to 8 change no request field (5
// adds the response's LogStartOffset, 7 allows ZStandard batches, 8 adds the response's
// RecordErrors and ErrorMessage, KIP-467).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

struct ProduceRequest {
  struct Partition {
    int32_t index = 0;
    std::optional<std::string> records;  // record batches, as the client sent them; nullable
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  std::optional<std::string> transactional_id;
  int16_t acks = -1;  // 0: no response at all; 1: the leader; -1: every in-sync replica
  int32_t timeout_ms = 30000;
  std::vector<Topic> topics;
};

struct ProduceResponse {
  struct Partition {
    int32_t index = 0;
    int16_t error_code = 0;
    int64_t base_offset = -1;
    int64_t log_append_time_ms = -1;  // -1: the topic uses CreateTime
    int64_t log_start_offset = -1;    // v5+
    // v8+: the records that made the batch be refused (BatchIndexAndErrorMessage), and one
    // sentence for the whole refusal.
    struct RecordError {
      int32_t batch_index = 0;
      std::optional<std::string> message;
      bool operator==(const RecordError&) const = default;
    };
    std::vector<RecordError> record_errors;
    std::optional<std::string> error_message;
  };
  struct Topic {
    std::string name;
    std::vector<Partition> partitions;
  };
  std::vector<Topic> topics;
  int32_t throttle_time_ms = 0;
};

ProduceRequest read_produce_request(Reader& in, int16_t version);
void write_produce_request(Writer& out, const ProduceRequest& request, int16_t version);
void write_produce_response(Writer& out, const ProduceResponse& response, int16_t version);
ProduceResponse read_produce_response(Reader& in, int16_t version);

}  // namespace lds::kafka
