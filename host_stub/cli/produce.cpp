// produce.cpp: `lds-host produce`: appends bytes to one partition (Produce), as requests of at most
// socket.request.max.bytes each.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>

#include "admin/admin_client.h"
#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"
#include "core/config.h"
#include "core/config_keys.h"

namespace lds::cli {
namespace {

using nlohmann::json;

struct ProduceArgs {
  Target target;
  std::string topic;
  int32_t partition = 0;
  std::string bytes;
};

// The broker's cap on one request: socket.request.max.bytes of --config, else the key's default.
uint64_t request_cap(const Target& target) {
  if (!target.config.empty()) {
    return static_cast<uint64_t>(ConfigStore(target.config).current().socket_request_max_bytes);
  }
  return std::stoull(std::string(find_config_key("socket.request.max.bytes")->default_value.text));
}

int produce(const ProduceArgs& args) {
  const uint64_t total = parse_bytes_option(args.bytes);
  uint64_t cap = 0;
  std::filesystem::path socket;
  try {
    cap = request_cap(args.target);
    socket = socket_of(args.target);
  } catch (const CLI::Error&) {
    throw;
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  const uint64_t requests = total == 0 ? 1 : (total + cap - 1) / cap;
  uint64_t written = 0;
  json last;
  try {
    AdminClient client(socket);
    for (uint64_t k = 1; k <= requests; ++k) {
      const uint64_t part = std::min(cap, total - written);
      last = json::parse(client.call(json{
          {"api", "Produce"}, {"topic", args.topic}, {"partition", args.partition}, {"bytes", part}}
                                         .dump()));
      const std::string error = last.value("error", kUnknownServerError);
      if (error != kNone) {
        last["bytesWrittenBefore"] = written;
        if (args.target.json) std::cout << last.dump(2) << "\n";
        std::cerr << "lds-host: " << error << ": " << last.value("message", "") << "\n"
                  << "lds-host: request " << k << " of " << requests << " was refused; " << written
                  << " bytes were written before it.\n";
        return kExitRefused;
      }
      written += part;
    }
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    if (written > 0) std::cerr << "lds-host: " << written << " bytes were written before it.\n";
    return kExitUsage;
  }
  if (args.target.json) {
    last["requests"] = requests;
    last["bytesWritten"] = written;
    std::cout << last.dump(2) << "\n";
    return kExitOk;
  }
  if (requests > 1) {
    std::printf("appended %s (%llu bytes) in %llu requests of at most %llu bytes\n",
                human_bytes(written).c_str(), static_cast<unsigned long long>(written),
                static_cast<unsigned long long>(requests), static_cast<unsigned long long>(cap));
  }
  return print_produced(last) == 0 ? kExitOk : kExitRefused;
}

}  // namespace

Command add_produce_command(CLI::App& app) {
  auto args = std::make_shared<ProduceArgs>();
  auto* cmd = app.add_subcommand(
      "produce",
      "Append bytes to a partition (Produce), in requests of at most socket.request.max.bytes");
  add_target_options(cmd, args->target);
  cmd->add_option("--topic", args->topic, "Topic name")->required();
  cmd->add_option("--partition", args->partition, "Partition number")->required();
  cmd->add_option("--bytes", args->bytes, "How many bytes, e.g. 1048576 or 8MiB")->required();
  return {cmd, [args] { return produce(*args); }};
}

}  // namespace lds::cli
