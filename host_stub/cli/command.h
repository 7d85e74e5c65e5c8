// command.h: how main.cpp meets the subcommands. Each registers its options on the app and hands
// back what runs it once the command line names it.
#pragma once

#include <CLI/CLI.hpp>
#include <functional>

namespace lds::cli {

struct Command {
  CLI::App* subcommand = nullptr;  // true once the command line names it
  std::function<int()> run;        // returns the process exit code
};

Command add_serve_command(CLI::App& app);
Command add_describe_command(CLI::App& app);
Command add_create_command(CLI::App& app);
Command add_explain_command(CLI::App& app);
Command add_produce_command(CLI::App& app);
Command add_delete_command(CLI::App& app);
Command add_configs_command(CLI::App& app);
Command add_reassign_command(CLI::App& app);
Command add_check_plugin_command(CLI::App& app);
Command add_simulate_command(CLI::App& app);
Command add_balance_command(CLI::App& app);
Command add_drain_command(CLI::App& app);

}  // namespace lds::cli
