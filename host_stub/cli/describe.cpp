// describe.cpp: `lds-host describe`: the broker's log directories (DescribeLogDirs).
#include <memory>

#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"

namespace lds::cli {

Command add_describe_command(CLI::App& app) {
  auto target = std::make_shared<Target>();
  auto* cmd = app.add_subcommand("describe", "Show log directories (DescribeLogDirs)");
  add_target_options(cmd, *target);
  return {cmd, [target] {
            const int rc = call(*target, {{"api", "DescribeLogDirs"}}, print_log_dirs);
            if (rc == kExitUsage || target->json) return rc;
            // One line for the balancer; a broker without one leaves it out.
            const int balancer = call(*target, {{"api", "DescribeBalance"}}, print_balancer_line);
            return rc != kExitOk ? rc : balancer;
          }};
}

}  // namespace lds::cli
