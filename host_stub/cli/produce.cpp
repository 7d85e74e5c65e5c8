// produce.cpp: `lds-host produce`: appends bytes to one partition (Produce).
#include <cstdint>
#include <memory>
#include <string>

#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"

namespace lds::cli {
namespace {

struct ProduceArgs {
  Target target;
  std::string topic;
  int32_t partition = 0;
  std::string bytes;
};

int produce(const ProduceArgs& args) {
  return call(args.target,
              {{"api", "Produce"},
               {"topic", args.topic},
               {"partition", args.partition},
               {"bytes", parse_bytes_option(args.bytes)}},
              print_produced);
}

}  // namespace

Command add_produce_command(CLI::App& app) {
  auto args = std::make_shared<ProduceArgs>();
  auto* cmd = app.add_subcommand("produce", "Append bytes to a partition (Produce)");
  add_target_options(cmd, args->target);
  cmd->add_option("--topic", args->topic, "Topic name")->required();
  cmd->add_option("--partition", args->partition, "Partition number")->required();
  cmd->add_option("--bytes", args->bytes, "How many bytes, e.g. 1048576 or 8MiB")->required();
  return {cmd, [args] { return produce(*args); }};
}

}  // namespace lds::cli
