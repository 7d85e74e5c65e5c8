// framing.cpp: cutting size-prefixed frames out of a byte stream.
#include "kafka/protocol/framing.h"

namespace lds::kafka {

FrameCut cut_frame(std::string_view input, int32_t max_frame_bytes) {
  FrameCut cut;
  if (input.size() < 4) return cut;
  uint32_t size = 0;
  for (size_t i = 0; i < 4; ++i) size = (size << 8) | static_cast<unsigned char>(input[i]);
  cut.size = static_cast<int32_t>(size);
  if (cut.size < 0 || cut.size > max_frame_bytes) {
    cut.state = FrameCut::kInvalid;
  } else if (input.size() - 4 >= static_cast<size_t>(cut.size)) {
    cut.state = FrameCut::kComplete;
  }
  return cut;
}

}  // namespace lds::kafka
