// headers.cpp: request and response headers.
#include "kafka/protocol/headers.h"

namespace lds::kafka {

RequestHeader read_request_header(Reader& in, int header_version) {
  RequestHeader h;
  h.api_key = in.int16();
  h.api_version = in.int16();
  h.correlation_id = in.int32();
  if (header_version >= 1) h.client_id = in.nullable_string(false);
  in.tagged_fields(header_version >= 2);
  return h;
}

void write_request_header(Writer& out, const RequestHeader& header, int header_version) {
  out.int16(header.api_key);
  out.int16(header.api_version);
  out.int32(header.correlation_id);
  if (header_version >= 1) out.nullable_string(header.client_id, false);
  out.tagged_fields(header_version >= 2);
}

int32_t read_response_header(Reader& in, int header_version) {
  const int32_t correlation_id = in.int32();
  in.tagged_fields(header_version >= 1);
  return correlation_id;
}

void write_response_header(Writer& out, int32_t correlation_id, int header_version) {
  out.int32(correlation_id);
  out.tagged_fields(header_version >= 1);
}

}  // namespace lds::kafka
