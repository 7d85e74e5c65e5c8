// create.cpp: `lds-host create`: places new partitions of a topic (CreatePartitions), or with
// --dry-run shows where they would go and why (DescribePlacement). --partitions is a count, as in
// kafka-topics.sh; --partition-ids names partitions one by one.
#include <charconv>
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
  std::vector<int32_t> partition_ids;
  std::string partition_count;  // --partitions as given
  bool count_given = false;
  bool dry_run = false;
};

constexpr int64_t kMaxPartitionCount = 100000;

int create(const CreateArgs& args) {
  json partitions = json::array();
  if (args.count_given && !args.partition_ids.empty()) {
    std::cerr << "lds-host: create takes --partitions N (a count: partitions 0 to N-1) or "
                 "--partition-ids LIST, not both.\n";
    return kExitUsage;
  }
  if (args.count_given) {
    const std::string& text = args.partition_count;
    int64_t n = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || n < 1 || n > kMaxPartitionCount) {
      // --partitions once took partition ids: `--partitions 0` or `0,3` must not pass silently.
      std::cerr << "lds-host: --partitions " << text << " is not a partition count from 1 to "
                << kMaxPartitionCount
                << " (--partitions N creates partitions 0 to N-1; to name partitions, use "
                   "--partition-ids, e.g. --partition-ids 0,3).\n";
      return kExitUsage;
    }
    for (int64_t p = 0; p < n; ++p) partitions.push_back(p);
  } else {
    for (int32_t p : args.partition_ids) partitions.push_back(p);
  }
  if (partitions.empty()) {
    std::cerr << "lds-host: create needs --partitions N (a count: partitions 0 to N-1) or "
                 "--partition-ids LIST (e.g. 0,3).\n";
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
  // --partition-count is the older spelling of the count, kept so existing scripts still work.
  auto* count =
      cmd->add_option("--partitions,--partition-count", args->partition_count,
                      "How many partitions: creates partitions 0 to N-1, as kafka-topics.sh "
                      "--partitions (those that exist are left where they are)")
          ->type_name("N");
  cmd->add_option("--partition-ids", args->partition_ids,
                  "Partition numbers to create, e.g. 0,3 (instead of --partitions)")
      ->delimiter(',');
  cmd->add_option("--expected-bytes", args->expected_bytes,
                  "Expected size of each partition, e.g. 64MiB (reserved until written)");
  cmd->add_flag("--dry-run", args->dry_run,
                "Create nothing: show where each partition would go, every log dir in rank order "
                "with the figures the strategy read, and why each other dir is left out");
  return {cmd, [args, count] {
            args->count_given = count->count() > 0;
            return create(*args);
          }};
}

}  // namespace lds::cli
