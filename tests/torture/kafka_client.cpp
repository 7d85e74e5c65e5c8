// kafka_client.cpp: runs kafka_produce.py and reads its delivery reports.
#include "kafka_client.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

namespace lds::torture {

namespace {

constexpr const char* kPython = "/usr/bin/python3";

// Runs argv with stdin from `in` and stdout and stderr to `out`; its exit code (128 + signal), or
// nullopt when it ran past `timeout_seconds` (then it is killed and reaped).
std::optional<int> run(const std::vector<std::string>& argv, const fs::path& in,
                       const fs::path& out, int timeout_seconds) {
  const pid_t pid = ::fork();
  if (pid < 0) return 127;
  if (pid == 0) {
    const int input = ::open(in.c_str(), O_RDONLY);
    const int output = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (input < 0 || output < 0) ::_exit(126);
    ::dup2(input, 0);
    ::dup2(output, 1);
    ::dup2(output, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_seconds);
  for (;;) {
    int status = 0;
    if (::waitpid(pid, &status, WNOHANG) == pid) {
      return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    }
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, nullptr, 0);
      return std::nullopt;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

std::string read_all(const fs::path& path) {
  std::stringstream text;
  text << std::ifstream(path).rdbuf();
  return text.str();
}

}  // namespace

Delivery produce_through_listener(const fs::path& script, const std::string& address,
                                  const std::string& topic, int32_t partition,
                                  const std::vector<test::ClientRecord>& messages,
                                  const fs::path& work, int timeout_seconds) {
  const fs::path input = work / "kafka-messages.txt";
  const fs::path reports = work / "kafka-reports.txt";
  {
    std::ofstream out(input, std::ios::trunc);
    for (const auto& m : messages) out << m.key << '\t' << m.value << '\n';
  }
  Delivery d;
  const std::optional<int> code =
      run({kPython, script.string(), address, topic, std::to_string(partition)}, input, reports,
          timeout_seconds);
  const std::string text = read_all(reports);
  if (!code) {
    d.problem = "the Kafka client was still running after " + std::to_string(timeout_seconds) +
                " s: " + text.substr(0, 1000);
    return d;
  }
  std::set<std::string> keys;
  for (const auto& m : messages) keys.insert(m.key);
  bool done = false;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    const nlohmann::json r = nlohmann::json::parse(line, nullptr, false);
    if (r.is_discarded() || !r.is_object()) continue;  // librdkafka's own log lines
    if (r.contains("done")) {
      done = r["done"].get<bool>();
      continue;
    }
    const std::string key = r.value("key", "");
    if (keys.erase(key) == 0) {
      d.problem = "the Kafka client reported a message it did not send, or one twice: " + line;
      return d;
    }
    if (r.contains("offset")) {
      d.offsets[key] = r["offset"].get<int64_t>();
    } else {
      if (d.failed++ == 0) d.first_error = r.value("error", "");
    }
  }
  if (*code != 0 || !done || !keys.empty()) {
    d.problem = "the Kafka client exited with " + std::to_string(*code) + " leaving " +
                std::to_string(keys.size()) +
                " messages without a delivery report: " + text.substr(0, 1000);
  }
  return d;
}

std::string kafka_client_problem(const fs::path& script) {
  if (::access(kPython, X_OK) != 0) return std::string(kPython) + " is not installed";
  const std::string probe = std::string(kPython) + " -c 'import confluent_kafka' 2>/dev/null";
  if (std::system(probe.c_str()) != 0) {
    return std::string("confluent-kafka does not import under ") + kPython;
  }
  if (!fs::exists(script)) return script.string() + " does not exist";
  return "";
}

}  // namespace lds::torture
