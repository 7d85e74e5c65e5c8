// kafka_client.cpp: runs kafka_produce.py and reads its delivery reports.
#include "kafka_client.h"

#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "environment.h"

namespace lds::torture {

namespace {

constexpr const char* kPython = "/usr/bin/python3";

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
      run_child({kPython, script.string(), address, topic, std::to_string(partition)}, input,
                reports, timeout_seconds);
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
                std::to_string(keys.size()) + " messages without a delivery report (the first " +
                (keys.empty() ? std::string("none") : *keys.begin()) +
                "); its output ends: " + text.substr(text.size() > 1000 ? text.size() - 1000 : 0);
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
