// configs.cpp: `lds-host configs`: lists the broker's configs (DescribeConfigs) or changes its
// dynamic ones (IncrementalAlterConfigs).
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

struct ConfigsArgs {
  Target target;
  bool describe = false;
  bool alter = false;
  std::vector<std::string> add_configs;
  std::vector<std::string> delete_configs;
};

int alter(const ConfigsArgs& args) {
  json configs = json::array();
  for (const auto& kv : args.add_configs) {
    auto eq = kv.find('=');
    if (eq == std::string::npos) {
      std::cerr << "lds-host: --add-config '" << kv << "' must be name=value.\n";
      return kExitUsage;
    }
    configs.push_back({{"name", kv.substr(0, eq)}, {"op", "SET"}, {"value", kv.substr(eq + 1)}});
  }
  for (const auto& k : args.delete_configs) configs.push_back({{"name", k}, {"op", "DELETE"}});
  if (configs.empty()) {
    std::cerr << "lds-host: configs --alter needs --add-config or --delete-config.\n";
    return kExitUsage;
  }
  return call(args.target, {{"api", "IncrementalAlterConfigs"}, {"configs", configs}},
              print_altered);
}

}  // namespace

Command add_configs_command(CLI::App& app) {
  auto args = std::make_shared<ConfigsArgs>();
  auto* cmd = app.add_subcommand(
      "configs", "Describe or alter configs (DescribeConfigs, IncrementalAlterConfigs)");
  add_target_options(cmd, args->target);
  auto* describe = cmd->add_flag("--describe", args->describe, "List every config");
  auto* alter_flag = cmd->add_flag("--alter", args->alter, "Change dynamic configs");
  describe->excludes(alter_flag);
  cmd->add_option("--add-config", args->add_configs, "name=value to set (repeatable)");
  cmd->add_option("--delete-config", args->delete_configs, "name to reset (repeatable)");
  return {cmd, [args] {
            if (args->alter) return alter(*args);
            return call(args->target, {{"api", "DescribeConfigs"}}, print_configs);
          }};
}

}  // namespace lds::cli
