// serve.cpp: `lds-host serve`: runs the broker and its admin API until SIGINT or SIGTERM.
#include <signal.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>

#include "admin/admin_api.h"
#include "admin/admin_server.h"
#include "broker/broker.h"
#include "cli/client.h"
#include "cli/command.h"
#include "kafka/listener.h"
#include "kafka/request_handler.h"
#include "metrics/metrics_endpoint.h"
#include "strategy/strategy_plugin.h"
#include "util/logging.h"

namespace lds::cli {
namespace {

// Ends the process at once with `code`, without destructors or atexit handlers: threads were left
// inside strategy plugins (or in handlers waiting on them), and a thread that returns into a
// destroyed broker, a freed logger or an unloaded library would crash the process on its way out.
[[noreturn]] void leave_now(int code) {
  spdlog::apply_all([](const std::shared_ptr<spdlog::logger>& l) { l->flush(); });
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
  std::_Exit(code);
}

// The status of a broker whose every log directory failed while it ran: Kafka's Exit.halt(1).
constexpr int kExitAllLogDirsFailed = 1;

int serve(const std::string& config_file) {
  // Signals are taken synchronously by this thread; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto log = logger("lds.server");
  try {
    Broker broker(config_file);
    // Kafka halts (status 1) when its last log directory fails: nothing is left to serve, and
    // staying up would hide the failure from whatever restarts brokers.
    broker.logs().set_on_all_dirs_offline([log](const std::string& sentence) {
      log->critical("{}", sentence);
      leave_now(kExitAllLogDirsFailed);
    });
    broker.start();
    broker.balancer().start();
    const BrokerConfig config = broker.config();
    // The metrics port binds before any client may connect: a port it cannot have refuses the start
    // before the Kafka listener has accepted anyone.
    std::unique_ptr<MetricsEndpoint> metrics;
    if (!config.metrics_host.empty()) {
      metrics = std::make_unique<MetricsEndpoint>(broker, config.metrics_host, config.metrics_port);
      log->info("Serving Prometheus metrics on http://{}:{}/metrics.", config.metrics_host,
                metrics->port());
    }
    // The Kafka listener binds next, so the admin API can report the address it got.
    // Declared handler first, so the listener (whose workers call the handler) goes first.
    std::unique_ptr<kafka::RequestHandler> kafka_handler;
    std::unique_ptr<kafka::KafkaListener> kafka_listener;
    std::string listeners;
    if (!config.listener_host.empty()) {
      kafka::KafkaListener::Options options;
      options.host = config.listener_host;
      options.port = config.listener_port;
      options.max_frame_bytes = config.socket_request_max_bytes;
      options.max_connections = config.max_connections;
      options.idle_ms = config.connections_max_idle_ms;
      kafka_listener = std::make_unique<kafka::KafkaListener>(options);
      // max.connections is dynamic: each change applied reaches the listener. The hook is
      // cleared once the listener has stopped, below.
      broker.set_on_config_applied([l = kafka_listener.get()](const BrokerConfig& c) {
        l->set_max_connections(c.max_connections);
      });
      kafka_handler = std::make_unique<kafka::RequestHandler>(
          broker, kafka::Endpoint{kafka_listener->bound_host(), kafka_listener->bound_port()});
      // A Produce wakes the Fetches waiting for data. The listener stops before it goes.
      kafka_handler->set_on_append([l = kafka_listener.get()] { l->wake_waiting(); });
      kafka_listener->start([h = kafka_handler.get()](std::string_view frame, auto received) {
        return h->handle(frame, received);
      });
      listeners = "PLAINTEXT://" + kafka_listener->bound_address();
    }
    AdminApi api(broker, listeners);
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
        broker.reload_file(ConfigChangeSource::kSighup);
        continue;
      }
      if (sig == SIGPIPE) continue;
      log->info("Signal {} received; shutting down.", sig == SIGINT ? "SIGINT" : "SIGTERM");
      break;
    }
    // Handlers get AdminServer::kStopGrace to finish. One that is still running then (stuck in a
    // plugin's rank, or behind a thread that is) keeps using the broker, so the broker must not be
    // destroyed: the process ends here instead. A dry-run thread left inside a plugin by a refused
    // swap uses nothing of the broker, but it is inside plugin code all the same.
    size_t abandoned_handlers = server.stop();
    if (kafka_listener) abandoned_handlers += kafka_listener->stop();
    broker.set_on_config_applied(nullptr);
    broker.balancer().stop();
    const size_t inside = LoadedStrategy::threads_inside();
    if (inside > 0) {
      log->warn("Stopped; {} threads were still inside strategy plugins and were abandoned.",
                inside);
      leave_now(kExitOk);
    }
    if (abandoned_handlers > 0) {
      log->warn(
          "Stopped; {} admin or Kafka request handlers were still running and were abandoned.",
          abandoned_handlers);
      leave_now(kExitOk);
    }
    // Nothing appends any more: the logs' end offsets and the clean-shutdown marker, so the next
    // start need not read the logs through.
    broker.logs().shutdown();
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    // A refused startup may leave a validation thread inside the plugin.
    if (LoadedStrategy::threads_inside() > 0) leave_now(kExitUsage);
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
