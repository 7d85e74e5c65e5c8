// serve.cpp: `lds-host serve`: runs the broker and its admin API until SIGINT or SIGTERM.
#include <signal.h>

#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include "admin/admin_api.h"
#include "admin/admin_server.h"
#include "cli/client.h"
#include "cli/command.h"
#include "core/broker.h"
#include "core/logging.h"

namespace lds::cli {
namespace {

int serve(const std::string& config_file) {
  // Signals are taken synchronously by this thread; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto log = logger("lds.server");
  try {
    Broker broker(config_file);
    broker.start();
    AdminApi api(broker);
    const BrokerConfig config = broker.config();
    AdminServer::Limits limits;
    limits.max_connections = static_cast<size_t>(config.admin_max_connections);
    limits.idle = std::chrono::milliseconds(config.admin_connection_idle_ms);
    AdminServer server(
        config.admin_socket, [&api](std::string_view line) { return api.handle_line(line); },
        limits);
    const StrategyInfo s = broker.strategy_info();
    log->info("Broker {} serving {} log directories with strategy {} {}.",
              broker.config().broker_id, broker.config().log_dirs.size(), s.name, s.version);
    for (;;) {
      int sig = 0;
      if (sigwait(&signals, &sig) != 0) continue;
      if (sig == SIGHUP) {
        log->info("SIGHUP: re-reading {}.", broker.config().file.string());
        broker.reload_file();
        continue;
      }
      if (sig == SIGPIPE) continue;
      log->info("Signal {} received; shutting down.", sig == SIGINT ? "SIGINT" : "SIGTERM");
      break;
    }
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  log->info("Stopped cleanly.");
  return kExitOk;
}

}  // namespace

Command add_serve_command(CLI::App& app) {
  auto config_file = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("serve", "Run the broker and its admin API until SIGTERM");
  cmd->add_option("--config", *config_file, "Broker config file (TOML)")->required();
  return {cmd, [config_file] { return serve(*config_file); }};
}

}  // namespace lds::cli
