// check_plugin.cpp: `lds-host check-plugin`: runs the conformance checks on a strategy .so in a
// child process, so a plugin that exits, crashes or hangs fails instead of taking the checker with
// it.
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>

#include "cli/client.h"
#include "cli/command.h"
#include "conformance/conformance.h"
#include "conformance/isolated_run.h"
#include <lds/logdir_strategy.h>

namespace lds::cli {

Command add_check_plugin_command(CLI::App& app) {
  struct Args {
    std::string plugin_file;
    double timeout_s = std::chrono::duration<double>(kDefaultCheckTimeout).count();
    std::string host_abi = std::to_string(LDS_ABI_MAJOR) + "." + std::to_string(LDS_ABI_MINOR);
    std::vector<std::string> options;
  };
  auto args = std::make_shared<Args>();
  auto* cmd = app.add_subcommand(
      "check-plugin",
      "Run the conformance checks on a strategy .so in a child process; a plugin that ends that "
      "process, or spends longer than --timeout seconds in one check, fails");
  cmd->add_option("file", args->plugin_file, "Path to liblds_<name>.so")->required();
  cmd->add_option("--timeout", args->timeout_s, "Seconds each check may take before it fails")
      ->capture_default_str()
      ->check(CLI::Range(0.001, 86400.0));
  cmd->add_option("--host-abi", args->host_abi,
                  "The host ABI to play: 1.1 (this host's) or 1.0, which passes 1.0-sized structs "
                  "so that a plugin reading past them is caught under ASan or Valgrind")
      ->capture_default_str()
      ->check(CLI::IsMember({"1.0", "1.1"}));
  cmd->add_option("--option", args->options,
                  "key=value: create the instance the rank checks use with this option "
                  "(repeatable), as log.directory.select.<name>.key = value would")
      ->check([](const std::string& text) {
        return text.find('=') == std::string::npos || text.front() == '='
                   ? "'" + text + "' is not key=value"
                   : std::string();
      });
  return {cmd, [args] {
            const auto timeout = std::chrono::milliseconds(std::llround(args->timeout_s * 1000));
            ConformanceOptions options;
            options.host_abi_minor = args->host_abi == "1.0" ? 0 : 1;
            for (const std::string& text : args->options) {
              const size_t eq = text.find('=');
              options.plugin_options.emplace_back(text.substr(0, eq), text.substr(eq + 1));
            }
            const ConformanceReport report =
                run_conformance_isolated(args->plugin_file, timeout, options);
            std::cout << format_report(report);
            return report.all_passed() ? kExitOk : kExitRefused;
          }};
}

}  // namespace lds::cli
