// kafka_capture.cpp: records the Kafka requests real clients send, as seeds for the Kafka request
// fuzzer. Serves a broker (from a broker.toml) on a Kafka listener at 127.0.0.1:<free port>, prints
// the port, and writes every request frame it serves, size prefix included, to <out>/<n>.bin,
// until stdin closes. Usage: lds_kafka_capture <broker.toml> <out dir>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "broker/broker.h"
#include "kafka/server/listener.h"
#include "kafka/server/request_handler.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: lds_kafka_capture <broker.toml> <out dir>\n";
    return 2;
  }
  const std::filesystem::path out = argv[2];
  std::filesystem::create_directories(out);
  lds::Broker broker(argv[1]);
  broker.start();
  lds::kafka::KafkaListener listener({"127.0.0.1", 0, 104857600, 4});
  lds::kafka::RequestHandler handler(broker, {listener.bound_host(), listener.bound_port()});
  handler.set_on_append([&listener] { listener.wake_waiting(); });
  std::atomic<int> count{0};
  listener.start([&](std::string_view frame, auto received) {
    const lds::kafka::Reply reply = handler.handle(frame, received);
    // Served requests only; a waiting Fetch is written once, when answered.
    if (!reply.retry_at && reply.close_reason.empty()) {
      const auto n = static_cast<uint32_t>(frame.size());
      const char size[4] = {static_cast<char>(n >> 24), static_cast<char>(n >> 16),
                            static_cast<char>(n >> 8), static_cast<char>(n)};
      std::ofstream(out / (std::to_string(count++) + ".bin"), std::ios::binary)
          .write(size, 4)
          .write(frame.data(), static_cast<std::streamsize>(frame.size()));
    }
    return reply;
  });
  std::cout << listener.bound_port() << std::endl;
  char c = 0;
  while (::read(0, &c, 1) > 0) {
  }
  listener.stop();
  return 0;
}
