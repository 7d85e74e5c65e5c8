// headers.h: Kafka's request header (versions 0 to 2) and response header (versions 0 and 1).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "model/wire.h"

namespace lds::kafka {

struct RequestHeader {
  int16_t api_key = 0;
  int16_t api_version = 0;
  int32_t correlation_id = 0;
  std::optional<std::string> client_id;  // versions 1+; nullable, and never compact
};

// Version 0 has no client id; version 2 adds a tagged-field section after it.
RequestHeader read_request_header(Reader& in, int header_version);
void write_request_header(Writer& out, const RequestHeader& header, int header_version);

// Version 1 adds a tagged-field section after the correlation id.
int32_t read_response_header(Reader& in, int header_version);
void write_response_header(Writer& out, int32_t correlation_id, int header_version);

}  // namespace lds::kafka
