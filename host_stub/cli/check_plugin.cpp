// check_plugin.cpp: `lds-host check-plugin`: runs the conformance checks on a strategy .so.
#include <iostream>
#include <memory>
#include <string>

#include "cli/client.h"
#include "cli/command.h"
#include "conformance/conformance.h"

namespace lds::cli {

Command add_check_plugin_command(CLI::App& app) {
  auto plugin_file = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("check-plugin", "Run the conformance checks on a strategy .so");
  cmd->add_option("file", *plugin_file, "Path to liblds_<name>.so")->required();
  return {cmd, [plugin_file] {
            const ConformanceReport report = run_conformance(*plugin_file);
            std::cout << format_report(report);
            return report.all_passed() ? kExitOk : kExitRefused;
          }};
}

}  // namespace lds::cli
