// kafka_request_fuzzer.cpp: libFuzzer target for the Kafka listener's frame and request parser:
// each input is a connection's byte stream, cut into frames as the listener cuts it
// (kafka/protocol/framing.h) and answered by the request handler over an in-memory broker, up to
// the first close. Any crash, sanitizer report or exception out of the handler is a finding, and so
// is a reply a client could not read (kafka_harness.h) or a waiting Fetch still waiting past its
// deadline.
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>

#include "kafka/protocol/framing.h"
#include "kafka_harness.h"

namespace {

[[noreturn]] void finding(const std::string& what, std::string_view frame) {
  std::fprintf(stderr, "kafka_request_fuzzer: %s (a request of %zu bytes)\n", what.c_str(),
               frame.size());
  std::abort();
}

// socket.request.max.bytes for the fuzzer: larger frames are cut off as the listener cuts them.
constexpr int32_t kMaxFrameBytes = 1 << 20;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static lds::fuzz::KafkaHarness harness(LDS_FUZZ_PLUGIN_DIR);
  static uint64_t inputs = 0;
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  for (;;) {
    const lds::kafka::FrameCut cut = lds::kafka::cut_frame(rest, kMaxFrameBytes);
    if (cut.state != lds::kafka::FrameCut::kComplete) break;
    const std::string_view frame = rest.substr(4, static_cast<size_t>(cut.size));
    rest.remove_prefix(4 + static_cast<size_t>(cut.size));
    lds::kafka::Reply reply;
    try {
      const auto now = std::chrono::steady_clock::now();
      reply = harness.handle(frame, now);
      if (reply.retry_at) {
        if (!reply.frame.empty() || !reply.close_reason.empty()) {
          finding("a wait that also answers", frame);
        }
        // Asked again as if max_wait_ms had passed: it must answer now.
        reply = harness.handle(frame, now - std::chrono::hours(24 * 365));
        if (reply.retry_at) finding("a wait past its deadline", frame);
      }
    } catch (const std::exception& e) {
      finding(std::string("an exception out of the handler: ") + e.what(), frame);
    }
    if (const std::string problem = lds::fuzz::reply_problem(frame, reply); !problem.empty()) {
      finding(problem, frame);
    }
    if (!reply.close_reason.empty()) break;
  }
  // Bounded state: partitions and records pile up across inputs otherwise.
  if (++inputs % 2000 == 0 || harness.partition_count() > 20000) harness.reset();
  return 0;
}
