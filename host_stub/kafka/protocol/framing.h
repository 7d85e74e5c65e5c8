// framing.h: Kafka's framing of a connection's bytes: each request (and reply) is a 4-byte
// big-endian size and then that many bytes. The listener cuts its input with it, and the fuzz
// target feeds it whole client streams.
#pragma once

#include <cstdint>
#include <string_view>

namespace lds::kafka {

struct FrameCut {
  enum State {
    kIncomplete,  // fewer than 4 bytes, or fewer than the size says: wait for more
    kComplete,    // a whole frame: `size` bytes after the 4-byte prefix
    kInvalid,     // a size below 0 or above the limit: no frame will ever come of it
  };
  State state = kIncomplete;
  int32_t size = 0;  // the size prefix, once 4 bytes are there
};

// What the start of `input` holds, with frames limited to `max_frame_bytes`
// (socket.request.max.bytes).
FrameCut cut_frame(std::string_view input, int32_t max_frame_bytes);

}  // namespace lds::kafka
