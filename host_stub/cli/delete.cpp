// delete.cpp: `lds-host delete`: deletes every partition of a topic (DeleteTopic).
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
