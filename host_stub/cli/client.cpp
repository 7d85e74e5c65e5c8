// client.cpp: the admin client plumbing of lds-host: finding the socket, one request and response,
// and byte-count options.
#include "cli/client.h"

#include <iostream>
#include <optional>

#include "admin/admin_client.h"
#include "cli/output.h"
#include "config/config.h"
#include "util/byte_size.h"

namespace lds::cli {

using nlohmann::json;

void add_target_options(CLI::App* cmd, Target& target, bool json_flag) {
  cmd->add_option("--config", target.config, "Broker config file; its admin.socket is used");
  cmd->add_option("--socket", target.socket, "Admin socket path (instead of --config)");
  if (!json_flag) return;
  cmd->add_flag("--json", target.json, "Print the API's JSON response instead of a table");
}

void add_kafka_addressing_options(CLI::App* cmd, KafkaAddressing& addressing) {
  cmd->add_option("--bootstrap-server", addressing.bootstrap_server,
                  "HOST:PORT of the broker's Kafka listener, instead of --config or --socket "
                  "(configs only)");
  cmd->add_option("--entity-type", addressing.entity_type,
                  "As kafka-configs.sh: only 'brokers' (this broker)");
  auto* name = cmd->add_option("--entity-name", addressing.entity_name,
                               "As kafka-configs.sh: this broker's id (broker.id)");
  auto* default_flag = cmd->add_flag("--entity-default", addressing.entity_default,
                                     "As kafka-configs.sh: not supported (no cluster default)");
  name->excludes(default_flag);
}

std::optional<int> refuse_kafka_addressing(const char* command, const KafkaAddressing& addressing,
                                           const Target& target, bool bootstrap_supported) {
  const bool bootstrap = !addressing.bootstrap_server.empty();
  std::string why;
  if (bootstrap && bootstrap_supported) {
    if (!target.config.empty() || !target.socket.empty()) {
      why = std::string("lds-host ") + command +
            " takes --bootstrap-server (the Kafka listener) or --config/--socket (the admin "
            "socket), not both.";
    } else if (addressing.entity_name.empty() && !addressing.entity_default) {
      why = std::string("lds-host ") + command +
            " --bootstrap-server needs --entity-type brokers --entity-name <broker id>.";
    }
  } else if (bootstrap) {
    why = std::string("lds-host ") + command +
          " talks to the broker's admin socket; --bootstrap-server is not supported here: use "
          "--config <broker.toml> or --socket <path>.";
  }
  if (why.empty() && !addressing.entity_type.empty() && addressing.entity_type != "brokers") {
    why = std::string("lds-host ") + command + " shows this broker only; --entity-type " +
          addressing.entity_type + " is not supported: use --entity-type brokers.";
  }
  if (why.empty() && addressing.entity_default) {
    why = std::string("lds-host ") + command +
          " has no cluster-wide default configs; --entity-default is not supported: name this "
          "broker with --entity-name <broker.id>, or leave it out.";
  }
  if (!why.empty()) {
    std::cerr << why << "\n";
    return kExitUsage;
  }
  // Through the Kafka listener the broker itself refuses another broker's id, in Kafka's words.
  if (addressing.entity_name.empty() || bootstrap) return std::nullopt;
  json response;
  try {
    AdminClient client(socket_of(target));
    response = json::parse(client.call(json{{"api", "DescribeLogDirs"}}.dump()));
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  const json brokers = response.value("brokers", json::array());
  const std::string id =
      brokers.empty() ? "?" : std::to_string(brokers[0].value("broker", int64_t{-1}));
  if (addressing.entity_name == id) return std::nullopt;
  const std::string where =
      !target.socket.empty() ? "--socket " + target.socket : "--config " + target.config;
  std::cerr << "lds-host: " << where << " is broker " << id << "; --entity-name "
            << addressing.entity_name
            << " names another broker: run lds-host against that broker's --config or --socket.\n";
  return kExitUsage;
}

std::filesystem::path socket_of(const Target& target) {
  if (!target.socket.empty()) return target.socket;
  if (target.config.empty())
    throw CLI::ValidationError("--config or --socket", "one of them is required");
  return admin_socket_of_file(target.config);
}

int call(const Target& target, const json& request, const std::function<int(const json&)>& print) {
  json response;
  try {
    AdminClient client(socket_of(target));
    response = json::parse(client.call(request.dump()));
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  const std::string error = response.value("error", kUnknownServerError);
  if (error != kNone) {
    if (target.json) std::cout << response.dump(2) << "\n";
    std::cerr << "lds-host: " << error << ": " << response.value("message", "") << "\n";
    return kExitRefused;
  }
  if (target.json) {
    std::cout << response.dump(2) << "\n";
    return any_partition_failed(response) ? kExitRefused : kExitOk;
  }
  return print(response) == 0 ? kExitOk : kExitRefused;
}

uint64_t parse_bytes_option(const std::string& text) {
  ByteSizeError why{};
  if (const std::optional<uint64_t> bytes = parse_byte_size(text, &why)) return *bytes;
  switch (why) {
    case ByteSizeError::kNotANumber:
      break;
    case ByteSizeError::kUnknownUnit:
      throw CLI::ValidationError("bytes",
                                 "'" + text + "' has an unknown unit; use B, KiB, MiB or GiB");
    case ByteSizeError::kTooLarge:
      throw CLI::ValidationError("bytes", "'" + text + "' is more than 2^64-1 bytes");
  }
  throw CLI::ValidationError("bytes", "'" + text + "' is not a byte count such as 1048576 or 1MiB");
}

}  // namespace lds::cli
