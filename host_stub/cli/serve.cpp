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
#include "kafka/server/listener.h"
#include "kafka/server/request_handler.h"
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

// Blocks the signals serve waits for and returns them.
sigset_t block_serve_signals() {
  // Signals are taken synchronously by this thread; every other thread inherits the mask.
  sigset_t signals;
  sigemptyset(&signals);
  for (int s : {SIGINT, SIGTERM, SIGHUP, SIGPIPE}) sigaddset(&signals, s);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  return signals;
}

// The Prometheus endpoint, when the config names a metrics host; null otherwise.
std::unique_ptr<MetricsEndpoint> start_metrics(Broker& broker, const BrokerConfig& config,
                                               const std::shared_ptr<spdlog::logger>& log) {
  std::unique_ptr<MetricsEndpoint> metrics;
  if (!config.metrics_host.empty()) {
    metrics = std::make_unique<MetricsEndpoint>(broker, config.metrics_host, config.metrics_port);
    log->info("Serving Prometheus metrics on http://{}:{}/metrics.", config.metrics_host,
              metrics->port());
  }
  return metrics;
}

// The Kafka listener and the handler its workers call; both null when no listener is configured.
struct KafkaFront {
  // Declared handler first, so the listener (whose workers call the handler) goes first.
  std::unique_ptr<kafka::RequestHandler> handler;
  std::unique_ptr<kafka::KafkaListener> listener;
  std::string listeners;  // "PLAINTEXT://host:port" for the admin API to report; empty without one
};

// Binds and starts the Kafka listener the config names, if any, wired to the broker.
KafkaFront start_kafka(Broker& broker, const BrokerConfig& config) {
  KafkaFront front;
  if (config.listener_host.empty()) return front;
  kafka::KafkaListener::Options options;
  options.host = config.listener_host;
  options.port = config.listener_port;
  options.max_frame_bytes = config.socket_request_max_bytes;
  options.max_connections = config.max_connections;
  options.idle_ms = config.connections_max_idle_ms;
  front.listener = std::make_unique<kafka::KafkaListener>(options);
  // max.connections is dynamic: each change applied reaches the listener. The hook is
  // cleared once the listener has stopped, in stop_serving.
  broker.set_on_config_applied([l = front.listener.get()](const BrokerConfig& c) {
    l->set_max_connections(c.max_connections);
  });
  front.handler = std::make_unique<kafka::RequestHandler>(
      broker, kafka::Endpoint{front.listener->bound_host(), front.listener->bound_port()});
  // A Produce wakes the Fetches waiting for data. The listener stops before it goes.
  front.handler->set_on_append([l = front.listener.get()] { l->wake_waiting(); });
  front.listener->start([h = front.handler.get()](std::string_view frame, auto received) {
    return h->handle(frame, received);
  });
  front.listeners = "PLAINTEXT://" + front.listener->bound_address();
  return front;
}

// Waits for SIGINT or SIGTERM, re-reading the config file on each SIGHUP meanwhile.
void wait_for_shutdown(const sigset_t& signals, Broker& broker,
                       const std::shared_ptr<spdlog::logger>& log) {
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
}

// Stops the admin server, the Kafka listener and the balancer, then shuts the logs down; ends the
// process at once instead when a thread was left behind.
void stop_serving(AdminServer& server, KafkaFront& kafka, Broker& broker,
                  const std::shared_ptr<spdlog::logger>& log) {
  // Handlers get AdminServer::kStopGrace to finish. One that is still running then (stuck in a
  // plugin's rank, or behind a thread that is) keeps using the broker, so the broker must not be
  // destroyed: the process ends here instead. A dry-run thread left inside a plugin by a refused
  // swap uses nothing of the broker, but it is inside plugin code all the same.
  size_t abandoned_handlers = server.stop();
  if (kafka.listener) abandoned_handlers += kafka.listener->stop();
  broker.set_on_config_applied(nullptr);
  broker.balancer().stop();
  const size_t inside = LoadedStrategy::threads_inside();
  if (inside > 0) {
    log->warn("Stopped; {} threads were still inside strategy plugins and were abandoned.", inside);
    leave_now(kExitOk);
  }
  if (abandoned_handlers > 0) {
    log->warn("Stopped; {} admin or Kafka request handlers were still running and were abandoned.",
              abandoned_handlers);
    leave_now(kExitOk);
  }
  // Nothing appends any more: the logs' end offsets and the clean-shutdown marker, so the next
  // start need not read the logs through.
  broker.logs().shutdown();
}

int serve(const std::string& config_file) {
  const sigset_t signals = block_serve_signals();
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
    const std::unique_ptr<MetricsEndpoint> metrics = start_metrics(broker, config, log);
    // The Kafka listener binds next, so the admin API can report the address it got.
    KafkaFront kafka = start_kafka(broker, config);
    AdminApi api(broker, kafka.listeners);
    AdminServer::Limits limits;
    limits.max_connections = static_cast<size_t>(config.admin_max_connections);
    limits.idle = std::chrono::milliseconds(config.admin_connection_idle_ms);
    AdminServer server(
        config.admin_socket, [&api](std::string_view line) { return api.handle_line(line); },
        limits);
    const StrategyInfo s = broker.strategy_info();
    log->info("Broker {} serving {} log directories with strategy {} {}.",
              broker.config().broker_id, broker.config().log_dirs.size(), s.name, s.version);
    wait_for_shutdown(signals, broker, log);
    stop_serving(server, kafka, broker, log);
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
