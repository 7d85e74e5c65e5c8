// kafka_fixture.h: what the Kafka listener's integration suites share: a real `lds-host serve`
// with a listener on a free port, and shell commands (the Kafka clients) run with a time limit.
#pragma once

#include <stdio.h>
#include <sys/wait.h>

#include <string>

#include "server_fixture.h"

namespace lds::integration {

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

class KafkaFixture : public ServerFixture {
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

  std::string address_;
  int port_ = 0;
};

}  // namespace lds::integration
