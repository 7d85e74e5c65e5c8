// init_producer_id.cpp: InitProducerId request and response, from Kafka's
// InitProducerIdRequest.json and InitProducerIdResponse.json (versions 0 to 5).
#include "kafka/protocol/init_producer_id.h"

namespace lds::kafka {
namespace {
bool init_producer_id_flexible(int16_t version) { return version >= 2; }
}  // namespace

InitProducerIdRequest read_init_producer_id_request(Reader& in, int16_t version) {
  const bool flex = init_producer_id_flexible(version);
  InitProducerIdRequest r;
  r.transactional_id = in.nullable_string(flex);
  r.transaction_timeout_ms = in.int32();
  if (version >= 3) {
    r.producer_id = in.int64();
    r.producer_epoch = in.int16();
  }
  in.tagged_fields(flex);
  return r;
}

void write_init_producer_id_request(Writer& out, const InitProducerIdRequest& request,
                                    int16_t version) {
  const bool flex = init_producer_id_flexible(version);
  out.nullable_string(request.transactional_id, flex);
  out.int32(request.transaction_timeout_ms);
  if (version >= 3) {
    out.int64(request.producer_id);
    out.int16(request.producer_epoch);
  }
  out.tagged_fields(flex);
}

void write_init_producer_id_response(Writer& out, const InitProducerIdResponse& response,
                                     int16_t version) {
  out.int32(response.throttle_time_ms);
  out.int16(response.error_code);
  out.int64(response.producer_id);
  out.int16(response.producer_epoch);
  out.tagged_fields(init_producer_id_flexible(version));
}

InitProducerIdResponse read_init_producer_id_response(Reader& in, int16_t version) {
  InitProducerIdResponse r;
  r.throttle_time_ms = in.int32();
  r.error_code = in.int16();
  r.producer_id = in.int64();
  r.producer_epoch = in.int16();
  in.tagged_fields(init_producer_id_flexible(version));
  return r;
}

}  // namespace lds::kafka
