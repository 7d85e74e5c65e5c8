// metrics_endpoint.h: the Prometheus endpoint of `lds-host serve` (metrics.listener), serving
// /metrics over HTTP with prometheus-cpp's pull exposer.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace prometheus {
class Exposer;
}

namespace lds {

class Broker;
class BrokerMetrics;

class MetricsEndpoint {
 public:
  // Listens on host:port (port 0: a free one) and serves `broker`'s metrics at /metrics, and turns
  // the broker's placement timing on. Throws ConfigError naming metrics.listener when it cannot
  // listen there.
  MetricsEndpoint(Broker& broker, const std::string& host, int32_t port);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  int32_t port() const { return port_; }

 private:
  Broker& broker_;
  std::shared_ptr<BrokerMetrics> metrics_;
  std::unique_ptr<prometheus::Exposer> exposer_;
  int32_t port_ = 0;
};

}  // namespace lds
