// main.cpp: the lds-host command line: registers every subcommand and runs the one given.
#include <CLI/CLI.hpp>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "cli/client.h"
#include "cli/command.h"
#include <lds/logdir_strategy.h>

namespace {

int run(int argc, char** argv) {
  using namespace lds::cli;
  CLI::App app{"lds-host: a Kafka-style broker LogManager with pluggable log-directory selection"};
  app.set_version_flag("--version", std::string("lds-host ") + LDS_VERSION + " (strategy ABI " +
                                        std::to_string(LDS_ABI_MAJOR) + "." +
                                        std::to_string(LDS_ABI_MINOR) + ")");
  app.require_subcommand(1);

  // Registration order is the order --help lists them in.
  const std::vector<Command> commands = {
      add_serve_command(app),    add_describe_command(app), add_create_command(app),
      add_explain_command(app),  add_produce_command(app),  add_delete_command(app),
      add_configs_command(app),  add_reassign_command(app), add_check_plugin_command(app),
      add_simulate_command(app), add_balance_command(app),  add_drain_command(app),
  };

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kExitOk : kExitUsage;
  }

  try {
    for (const Command& command : commands) {
      if (*command.subcommand) return command.run();
    }
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  return kExitUsage;
}

}  // namespace

// No exception leaves main: whatever escapes a subcommand is one line on stderr and exit code 2.
int main(int argc, char** argv) {
  try {
    return run(argc, argv);
  } catch (...) {
    std::cerr << "lds-host: an unexpected error stopped the command.\n";
    return lds::cli::kExitUsage;
  }
}
