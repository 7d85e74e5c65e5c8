// create.cpp: `lds-host create`: places new partitions of a topic (CreatePartitions), or with
// --dry-run shows where they would go and why (DescribePlacement).
#include <cstdint>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"

namespace lds::cli {
namespace {

using nlohmann::json;

struct CreateArgs {
  Target target;
  std::string topic;
  std::string expected_bytes;
  std::vector<int32_t> partitions;
  int32_t partition_count = 0;
  bool dry_run = false;
};

int create(const CreateArgs& args) {
  json partitions = json::array();
  if (args.partition_count > 0) {
    for (int32_t p = 0; p < args.partition_count; ++p) partitions.push_back(p);
  } else {
    for (int32_t p : args.partitions) partitions.push_back(p);
  }
  if (partitions.empty()) {
    std::cerr << "lds-host: create needs --partitions or --partition-count.\n";
    return kExitUsage;
  }
  json request{{"api", args.dry_run ? "DescribePlacement" : "CreatePartitions"},
               {"topic", args.topic},
               {"partitions", partitions}};
  if (!args.expected_bytes.empty()) {
    request["expectedBytes"] = parse_bytes_option(args.expected_bytes);
  }
  return call(args.target, request, args.dry_run ? print_placement : print_created);
}

}  // namespace

Command add_create_command(CLI::App& app) {
  auto args = std::make_shared<CreateArgs>();
  auto* cmd = app.add_subcommand("create", "Create partitions (CreatePartitions)");
  add_target_options(cmd, args->target);
  cmd->add_option("--topic", args->topic, "Topic name")->required();
  auto* partitions =
      cmd->add_option("--partitions", args->partitions, "Partition numbers, e.g. 0,1,2")
          ->delimiter(',');
  auto* count =
      cmd->add_option("--partition-count", args->partition_count, "Create partitions 0..N-1")
          ->check(CLI::Range(1, 100000));
  partitions->excludes(count);
  cmd->add_option("--expected-bytes", args->expected_bytes,
                  "Expected size of each partition, e.g. 64MiB (reserved until written)");
  cmd->add_flag("--dry-run", args->dry_run,
                "Create nothing: show where each partition would go, every log dir in rank order "
                "with the figures the strategy read, and why each other dir is left out");
  return {cmd, [args] { return create(*args); }};
}

}  // namespace lds::cli
