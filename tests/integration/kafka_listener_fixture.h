// kafka_listener_fixture.h: what the Kafka listener's integration tests share: a framed TCP
// connection speaking Kafka request headers, shell commands with a time limit, a ServerFixture that
// starts lds-host with a listener on a free port, and kafka-python's KafkaAdminClient through
// kafka_admin_client.py (LDS_KAFKA_ADMIN_CLIENT, which each test target defines).
#pragma once

#include <stdio.h>
#include <sys/wait.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "frame_client.h"
#include "kafka/protocol/api_versions.h"
#include "kafka/protocol/headers.h"
#include "model/wire.h"
#include "server_fixture.h"

namespace lds::integration {

using namespace std::chrono_literals;
// One TCP connection to the listener, speaking size-prefixed frames, with Kafka request headers.
class KafkaConnection : public test::FrameClient {
 public:
  using FrameClient::FrameClient;

  bool send_raw(const std::string& bytes) { return send_all(bytes); }

  // A request: header (version by flexibility) then `body`, framed.
  bool send_request(int16_t key, int16_t version, int32_t correlation_id, int header_version,
                    const std::string& body) {
    kafka::Writer w;
    kafka::write_request_header(w, {key, version, correlation_id, std::string("lds-test")},
                                header_version);
    w.raw(body);
    return send_raw(frame(w.bytes()));
  }

  std::optional<std::string> read_frame(std::chrono::milliseconds timeout = 10s) {
    return FrameClient::read_frame(timeout);
  }
  bool closed_by_peer(std::chrono::milliseconds timeout = 10s) {
    return FrameClient::closed_by_peer(timeout);
  }
};

// Runs a shell command with a time limit; its stdout and stderr together.
inline ProcessResult run_command(const std::string& command, int timeout_seconds = 60) {
  ProcessResult result;
  FILE* pipe = ::popen(
      ("timeout " + std::to_string(timeout_seconds) + " " + command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n = 0;
  while ((n = std::fread(buffer, 1, sizeof buffer, pipe)) > 0) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

class KafkaListenerTest : public ServerFixture {
 protected:
  // Starts a broker with a listener on a free port; address_ and port_ are what it got, from the
  // admin API's describe JSON.
  void start_with_listener(ServerConfig config, const std::string& extra = "") {
    config.extra_lines.push_back("listeners = \"PLAINTEXT://127.0.0.1:0\"");
    if (!extra.empty()) config.extra_lines.push_back(extra);
    ASSERT_NO_FATAL_FAILURE(start(config));
    ASSERT_NO_FATAL_FAILURE(read_listener());
  }

  // After a restart: the listener's new port.
  void read_listener() {
    const json d = call_ok({{"api", "DescribeLogDirs"}});
    const std::string listeners = d.value("listeners", "");
    const std::string prefix = "PLAINTEXT://127.0.0.1:";
    ASSERT_EQ(listeners.rfind(prefix, 0), 0u) << d.dump();
    address_ = listeners.substr(std::string("PLAINTEXT://").size());
    port_ = std::stoi(listeners.substr(prefix.size()));
    ASSERT_GT(port_, 0);
  }

  // ApiVersions v3 (flexible, header v2) on `c`, returning the decoded response.
  static std::optional<kafka::ApiVersionsResponse> api_versions_v3(KafkaConnection& c,
                                                                   int32_t correlation_id) {
    kafka::Writer body;
    kafka::write_api_versions_request(body, {"lds-test", "1.0"}, 3);
    if (!c.send_request(18, 3, correlation_id, 2, body.bytes())) return std::nullopt;
    std::optional<std::string> reply = c.read_frame();
    if (!reply) return std::nullopt;
    kafka::Reader in(*reply);
    EXPECT_EQ(kafka::read_response_header(in, 0), correlation_id);
    return kafka::read_api_versions_response(in, 3);
  }

  std::string address_;
  int port_ = 0;
};

// Whether Debian's python3-kafka imports (it does only under /usr/bin/python3).
inline bool kafka_python_available() {
  return run_command("/usr/bin/python3 -c 'import kafka'").exit_code == 0;
}

// One KafkaAdminClient call through tests/integration/kafka_admin_client.py; its JSON answer.
inline json admin_client(const std::string& address, const std::string& args) {
  const ProcessResult r =
      run_command("/usr/bin/python3 " LDS_KAFKA_ADMIN_CLIENT " " + address + " " + args);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.out;
  const size_t line = r.out.rfind("{\"error_code\"");
  if (line == std::string::npos) {
    ADD_FAILURE() << args << ": " << r.out;
    return json{{"error_code", -100}};
  }
  return json::parse(r.out.substr(line));
}

class KafkaTopicsTest : public KafkaListenerTest {
 protected:
  // How many partitions of `topic` each log dir hosts, in log.dirs order.
  std::vector<int> partitions_per_dir(const std::string& topic) {
    const json d = call_ok({{"api", "DescribeLogDirs"}});
    std::vector<int> counts;
    for (const fs::path& dir : config_.log_dirs) {
      int n = 0;
      const json entry = dir_entry(d, dir);
      for (const auto& p : entry["partitions"]) {
        const std::string name = p["partition"].get<std::string>();
        if (name.rfind(topic + "-", 0) == 0 &&
            name.find_first_not_of("0123456789", topic.size() + 1) == std::string::npos) {
          ++n;
        }
      }
      counts.push_back(n);
    }
    return counts;
  }
};

}  // namespace lds::integration
