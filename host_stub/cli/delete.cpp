// delete.cpp: `lds-host delete`: deletes every partition of a topic (DeleteTopic).
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>

#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"

namespace lds::cli {
namespace {

struct DeleteArgs {
  Target target;
  std::string topic;
};

// "deleted N partitions", then each replica whose deletion waits for its offline directory.
int print_deleted(const nlohmann::json& r) {
  std::printf("deleted %llu partitions\n",
              static_cast<unsigned long long>(r["deleted"].get<uint64_t>()));
  const nlohmann::json pending = r.value("pending", nlohmann::json::array());
  if (!pending.empty()) {
    std::printf(
        "pending on offline log directories (no longer served; removed at the next start "
        "that finds the directory readable):\n");
  }
  for (const auto& p : pending) {
    std::printf("  %s: %s\n", p.value("partition", "").c_str(), p.value("reason", "").c_str());
  }
  return 0;
}

}  // namespace

Command add_delete_command(CLI::App& app) {
  auto args = std::make_shared<DeleteArgs>();
  auto* cmd = app.add_subcommand("delete", "Delete a topic's partitions (DeleteTopic)");
  add_target_options(cmd, args->target);
  cmd->add_option("--topic", args->topic, "Topic name")->required();
  return {
      cmd, [args] {
        return call(args->target, {{"api", "DeleteTopic"}, {"topic", args->topic}}, print_deleted);
      }};
}

}  // namespace lds::cli
