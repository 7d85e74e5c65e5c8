// client.h: what the admin client subcommands share: which broker to talk to (--config, --socket,
// --json), one request and its printed response, byte-count options, and the exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "util/errors.h"

namespace lds::cli {

inline constexpr int kExitOk = 0;
inline constexpr int kExitRefused = 1;
inline constexpr int kExitUsage = 2;

// The Kafka error names a client compares responses with, spelled once, by util/errors.
inline const std::string kNone = error_name(ErrorCode::kNone);
inline const std::string kReplicaNotAvailable = error_name(ErrorCode::kReplicaNotAvailable);
inline const std::string kUnknownServerError = error_name(ErrorCode::kUnknownServerError);

struct Target {
  std::string config;
  std::string socket;
  bool json = false;
};

// --config and --socket, and unless `json_flag` is false, --json: a command given it prints JSON
// alone on stdout (notes and progress go to stderr).
void add_target_options(CLI::App* cmd, Target& target, bool json_flag = true);

// Kafka's addressing flags, as kafka-configs.sh takes them (--bootstrap-server, --entity-type,
// --entity-name, --entity-default), accepted so that a command copied from Kafka's tools gets a
// sentence saying what to change instead of a parse error.
struct KafkaAddressing {
  std::string bootstrap_server;
  std::string entity_type;
  std::string entity_name;
  bool entity_default = false;
};

void add_kafka_addressing_options(CLI::App* cmd, KafkaAddressing& addressing);

// Checks the Kafka addressing flags of `command`: nothing, or the exit code after one sentence on
// stderr. --entity-default and an --entity-type other than brokers are refused. With
// `bootstrap_supported`, --bootstrap-server replaces --config/--socket and needs --entity-name,
// which the broker checks; otherwise it is refused, and --entity-name must be the id of the
// broker `target` names.
std::optional<int> refuse_kafka_addressing(const char* command, const KafkaAddressing& addressing,
                                           const Target& target, bool bootstrap_supported = false);

// The admin socket: --socket, else the admin.socket of --config. Throws CLI::ValidationError when
// neither is given, ConfigError when the config cannot be read.
std::filesystem::path socket_of(const Target& target);

// Sends one request and prints the response, as JSON with --json or else with `print`; returns the
// exit code.
int call(const Target& target, const nlohmann::json& request,
         const std::function<int(const nlohmann::json&)>& print);

// The value of a byte-count option such as --bytes 8MiB. Throws CLI::ValidationError saying what
// is wrong with it.
uint64_t parse_bytes_option(const std::string& text);

}  // namespace lds::cli
