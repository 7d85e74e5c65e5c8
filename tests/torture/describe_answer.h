// describe_answer.h: what the steps read from a DescribeLogDirs answer of the admin API.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

namespace lds::torture {

// The log dirs of the answer's one broker; none when it names no broker.
inline nlohmann::json log_dirs_of(const nlohmann::json& describe) {
  if (!describe.contains("brokers") || describe["brokers"].empty()) return nlohmann::json::array();
  return describe["brokers"][0]["logDirs"];
}

// Whether a move's future copy is listed anywhere: a move is in flight.
inline bool any_future(const nlohmann::json& describe) {
  for (const auto& d : log_dirs_of(describe)) {
    for (const auto& p : d["partitions"]) {
      if (p["isFuture"].get<bool>()) return true;
    }
  }
  return false;
}

// "t-12" -> ("t", 12); false for any other name.
inline bool parse_partition_name(const std::string& name, std::string* topic, int32_t* number) {
  const size_t dash = name.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == name.size()) return false;
  for (size_t i = dash + 1; i < name.size(); ++i) {
    if (name[i] < '0' || name[i] > '9') return false;
  }
  *topic = name.substr(0, dash);
  *number = std::stoi(name.substr(dash + 1));
  return true;
}

}  // namespace lds::torture
