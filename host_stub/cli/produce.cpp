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
#include "cli/progress_bar.h"
#include "config/config_keys.h"
#include "model/record_batch.h"

namespace lds::cli {
namespace {

using nlohmann::json;

struct ProduceArgs {
  Target target;
  std::string topic;
  int32_t partition = 0;
  std::string bytes;
};

// The broker's cap on one request, socket.request.max.bytes, as the broker itself reports it
// (DescribeConfigs), so --socket alone works and the config file is not read; the key's default
// when the broker does not say.
uint64_t request_cap(AdminClient& client) {
  uint64_t cap =
      std::stoull(std::string(find_config_key("socket.request.max.bytes")->default_value.text));
  const json r = json::parse(client.call(json{{"api", "DescribeConfigs"}}.dump()), nullptr, false);
  if (r.is_discarded() || !r.contains("configs")) return cap;
  for (const auto& c : r["configs"]) {
    if (c.value("name", "") != "socket.request.max.bytes") continue;
    const uint64_t value = std::strtoull(c.value("value", "0").c_str(), nullptr, 10);
    if (value > 0) cap = value;
  }
  return cap;
}

int produce(const ProduceArgs& args) {
  const uint64_t total = parse_bytes_option(args.bytes);
  std::filesystem::path socket;
  try {
    socket = socket_of(args.target);
  } catch (const CLI::Error&) {
    throw;
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  const std::string partition = args.topic + "-" + std::to_string(args.partition);
  uint64_t requests = 1;
  uint64_t cap = 0;
  uint64_t written = 0;
  json last;
  try {
    AdminClient client(socket);
    cap = request_cap(client);
    requests = total == 0 ? 1 : (total + cap - 1) / cap;
    // Named by the partition it writes to; drawn only on a terminal, and only for a long run.
    ProgressBar progress(!args.target.json && ProgressBar::stderr_is_terminal());
    progress.start(partition, total, ProgressBar::Unit::kBytes);
    for (uint64_t k = 1; k <= requests; ++k) {
      const uint64_t left = total - written;
      uint64_t part = std::min(cap, left);
      // Every request becomes whole record batches: never leave a last one too small for one.
      if (left - part > 0 && left - part < kafka::kMinBatchBytes) {
        part = left - kafka::kMinBatchBytes;
      }
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
      progress.update(written);
    }
    progress.finish();
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
  std::printf("%s: %s (%llu bytes) written", partition.c_str(), human_bytes(written).c_str(),
              static_cast<unsigned long long>(written));
  if (requests > 1) {
    std::printf(" in %llu requests of at most %llu bytes",
                static_cast<unsigned long long>(requests), static_cast<unsigned long long>(cap));
  }
  std::printf("\n");
  const uint64_t size = last.value("size", 0ull);
  std::printf("%s is now %s (%llu bytes)\n", partition.c_str(), human_bytes(size).c_str(),
              static_cast<unsigned long long>(size));
  return kExitOk;
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
