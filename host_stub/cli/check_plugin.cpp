// check_plugin.cpp: `lds-host check-plugin`: runs the conformance checks on a strategy .so in a
// child process, so a plugin that exits, crashes or hangs fails instead of taking the checker with
// it.
#include <chrono>
#include <cmath>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

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
  std::vector<std::string> host_abis;
  for (uint32_t minor = 0; minor <= LDS_ABI_MINOR; ++minor) {
    host_abis.push_back(std::to_string(LDS_ABI_MAJOR) + "." + std::to_string(minor));
  }
  cmd->add_option("--host-abi", args->host_abi,
                  "The host ABI to play: " + args->host_abi +
                      " (this host's), 1.1 or 1.0. An older host passes its smaller structs, each "
                      "a heap block of exactly that size, so that a plugin reading past them (a "
                      "1.1 field on 1.0, scores on 1.0 and 1.1) is caught under ASan or Valgrind")
      ->capture_default_str()
      ->check(CLI::IsMember(host_abis));
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
            // "1.<minor>", one of host_abis.
            options.host_abi_minor = static_cast<uint32_t>(std::stoul(args->host_abi.substr(2)));
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
