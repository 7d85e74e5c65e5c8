// reassign.h: `lds-host reassign`, the log_dirs part of Kafka's kafka-reassign-partitions.sh.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace lds::cli {

// The log dir a reassignment file writes to let the broker choose ("any").
inline constexpr const char* kAnyLogDir = "any";

// The names joined with commas and nothing else ("a,b,c"), as Kafka's tool lists replicas.
std::string comma_joined(const std::vector<std::string>& names);

// One entry of a reassignment file.
struct ReassignmentEntry {
  std::string topic;
  int32_t partition = 0;
  std::vector<int32_t> replicas;
  std::vector<std::string> log_dirs;  // "any" or an absolute path, one per replica
};

// Parses Kafka's reassignment JSON ({"version":1,"partitions":[...]}). Throws std::runtime_error
// with Kafka's message for an invalid file, e.g. "Size of replicas list [1, 2] is different from
// size of log dirs list [any] for partition foo-0".
std::vector<ReassignmentEntry> parse_reassignment(const std::string& json_text);

struct ReassignOptions {
  std::filesystem::path socket;
  std::filesystem::path file;
  int64_t timeout_ms = 10000;
  bool verify = false;
  bool wait = false;
  // As Kafka's --preserve-throttles: --verify leaves the move throttle as it is once every move
  // ended, instead of clearing it.
  bool preserve_throttles = false;
};

// Runs the command; returns the process exit code: 0 when the moves started, or for --verify when
// none failed (moves that still run included, as Kafka; with --wait only when all completed); 1
// when a move was refused, failed or is not under way; 2 for a bad file or no broker.
int run_reassign(const ReassignOptions& options);

}  // namespace lds::cli
