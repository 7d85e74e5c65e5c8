// reassignment_file.cpp: Kafka's reassignment JSON, read with the checks and sentences of Kafka's
// ReassignPartitionsCommand and DecodeJson.
#include <limits>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <stdexcept>
#include <utility>

#include "cli/reassign.h"

namespace lds::cli {
namespace {

using nlohmann::json;

template <typename T>
std::string kafka_list(const std::vector<T>& values) {  // Java's List.toString: [a, b]
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << "]";
  return out.str();
}

// Kafka's JSON decoding (DecodeJson): a value of the wrong type, or a number outside int32, is
// refused with "Expected `<type>` value, received <the JSON text>".
[[noreturn]] void expected(const char* type, const json& value) {
  throw std::runtime_error(std::string("Expected `") + type + "` value, received " + value.dump());
}

int32_t json_int32(const json& value) {
  if (value.is_number_integer()) {
    // nlohmann keeps large values unsigned; compare before any narrowing.
    if (value.is_number_unsigned()) {
      const auto u = value.get<uint64_t>();
      if (u <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        return static_cast<int32_t>(u);
      }
    } else {
      const auto i = value.get<int64_t>();
      if (i >= std::numeric_limits<int32_t>::min() && i <= std::numeric_limits<int32_t>::max()) {
        return static_cast<int32_t>(i);
      }
    }
  }
  expected("Integer", value);
}

std::string json_string(const json& value) {
  if (!value.is_string()) expected("String", value);
  return value.get<std::string>();
}

const json& json_array(const json& value) {
  if (!value.is_array()) expected("JSON array", value);
  return value;
}

// The checks Kafka's parseExecuteAssignmentArgs makes once the whole file is read, in its order and
// with its sentences.
void check_reassignment(const std::vector<ReassignmentEntry>& entries) {
  if (entries.empty()) throw std::runtime_error("Partition reassignment list cannot be empty");
  for (const auto& e : entries) {
    if (e.replicas.empty()) throw std::runtime_error("Partition replica list cannot be empty");
  }
  std::set<std::pair<std::string, int32_t>> seen;
  std::vector<std::string> duplicate_partitions;
  for (const auto& e : entries) {
    if (!seen.insert({e.topic, e.partition}).second) {
      duplicate_partitions.push_back(e.topic + "-" + std::to_string(e.partition));
    }
  }
  if (!duplicate_partitions.empty()) {
    throw std::runtime_error("Partition reassignment contains duplicate topic partitions: " +
                             comma_joined(duplicate_partitions));
  }
  std::string duplicate_replicas;
  for (const auto& e : entries) {
    std::set<int32_t> ids;
    std::set<int32_t> repeated;
    for (int32_t r : e.replicas) {
      if (!ids.insert(r).second) repeated.insert(r);
    }
    if (repeated.empty()) continue;
    std::vector<std::string> names;
    names.reserve(repeated.size());
    for (int32_t r : repeated) names.push_back(std::to_string(r));
    duplicate_replicas += (duplicate_replicas.empty() ? "" : ". ") + e.topic + "-" +
                          std::to_string(e.partition) + " contains multiple entries for " +
                          comma_joined(names);
  }
  if (!duplicate_replicas.empty()) {
    throw std::runtime_error("Partition replica lists may not contain duplicate entries: " +
                             duplicate_replicas);
  }
}

}  // namespace

std::vector<ReassignmentEntry> parse_reassignment(const std::string& json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded()) throw std::runtime_error("The reassignment file is not valid JSON.");
  if (!doc.is_object()) throw std::runtime_error("Expected JSON object, received " + doc.dump());
  if (auto v = doc.find("version"); v != doc.end() && (!v->is_number_integer() || *v != 1)) {
    throw std::runtime_error("Not supported version field value " + v->dump());
  }
  // As Kafka's parser: a missing "partitions" is an empty list, refused below.
  const json no_partitions = json::array();
  auto parts = doc.find("partitions");
  const json& partitions = parts == doc.end() ? no_partitions : *parts;
  std::vector<ReassignmentEntry> out;
  for (const auto& p : json_array(partitions)) {
    if (!p.is_object()) throw std::runtime_error("Expected JSON object, received " + p.dump());
    for (const char* key : {"topic", "partition", "replicas"}) {
      if (!p.contains(key)) {
        throw std::runtime_error(std::string("No such field exists: `") + key + "`");
      }
    }
    ReassignmentEntry e;
    e.topic = json_string(p["topic"]);
    e.partition = json_int32(p["partition"]);
    for (const auto& r : json_array(p["replicas"])) e.replicas.push_back(json_int32(r));
    const std::string tp = e.topic + "-" + std::to_string(e.partition);
    if (auto dirs = p.find("log_dirs"); dirs != p.end()) {
      for (const auto& d : json_array(*dirs)) e.log_dirs.push_back(json_string(d));
    } else {
      e.log_dirs.assign(e.replicas.size(), kAnyLogDir);
    }
    if (e.log_dirs.size() != e.replicas.size()) {
      throw std::runtime_error("Size of replicas list " + kafka_list(e.replicas) +
                               " is different from size of log dirs list " +
                               kafka_list(e.log_dirs) + " for partition " + tp);
    }
    for (const auto& d : e.log_dirs) {
      if (d != kAnyLogDir && (d.empty() || d[0] != '/')) {
        throw std::runtime_error("Log dir " + d + " of partition " + tp +
                                 " must be \"any\" or an absolute path starting with /");
      }
    }
    out.push_back(std::move(e));
  }
  check_reassignment(out);
  return out;
}

std::string comma_joined(const std::vector<std::string>& names) {
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ",") + n;
  return all;
}

}  // namespace lds::cli
