// init_producer_id.h: InitProducerId (key 22) versions 0 to 5: version 2 is flexible, and 3 adds
// the producer's current id and epoch (KIP-360); 1, 4 and 5 change nothing in the layout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/wire.h"

namespace lds::kafka {

struct InitProducerIdRequest {
  std::optional<std::string> transactional_id;  // null: an idempotent producer
  int32_t transaction_timeout_ms = 0;
  int64_t producer_id = -1;     // v3+
  int16_t producer_epoch = -1;  // v3+
};

struct InitProducerIdResponse {
  int32_t throttle_time_ms = 0;
  int16_t error_code = 0;
  int64_t producer_id = -1;
  int16_t producer_epoch = -1;
};

InitProducerIdRequest read_init_producer_id_request(Reader& in, int16_t version);
void write_init_producer_id_request(Writer& out, const InitProducerIdRequest& request,
                                    int16_t version);
void write_init_producer_id_response(Writer& out, const InitProducerIdResponse& response,
                                     int16_t version);
InitProducerIdResponse read_init_producer_id_response(Reader& in, int16_t version);

}  // namespace lds::kafka
