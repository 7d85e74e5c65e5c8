// metrics_endpoint.cpp: starts and stops prometheus-cpp's exposer.
#include "metrics/metrics_endpoint.h"

#include <prometheus/exposer.h>

#include <exception>
#include <string>
#include <vector>

#include "broker/broker.h"
#include "metrics/broker_metrics.h"
#include "util/errors.h"

namespace lds {

MetricsEndpoint::MetricsEndpoint(Broker& broker, const std::string& host, int32_t port)
    : broker_(broker), metrics_(std::make_shared<BrokerMetrics>(broker)) {
  const bool ipv6 = host.find(':') != std::string::npos;
  const std::string address = (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
  try {
    // Two workers, and a connection that sends no whole request in 10 s is closed: a client that
    // connects and never sends (or never reads) holds one worker that long, not the endpoint.
    exposer_ = std::make_unique<prometheus::Exposer>(std::vector<std::string>{
        "listening_ports", address, "num_threads", "2", "request_timeout_ms", "10000"});
  } catch (const std::exception& e) {
    throw ConfigError("metrics.listener: cannot listen on http://" + address + " (" + e.what() +
                      ").");
  }
  const std::vector<int> ports = exposer_->GetListeningPorts();
  port_ = ports.empty() ? port : ports.front();
  exposer_->RegisterCollectable(metrics_);
  broker_.logs().set_placement_timing(true);
}

MetricsEndpoint::~MetricsEndpoint() {
  broker_.logs().set_placement_timing(false);
  exposer_.reset();  // stops serving before the collector goes
}

}  // namespace lds
