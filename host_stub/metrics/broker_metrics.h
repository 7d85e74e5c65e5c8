// broker_metrics.h: one broker's state as Prometheus metric families, read at each scrape.
//
// Nothing is kept between scrapes: each reads the LogManager, the strategy slot and the balancer
// as describe does, and the counters the placement path keeps lock-free (util/latency_histogram.h,
// StrategySlot's counts). Kafka's log-dir metrics carry the names the Prometheus JMX exporter's
// Kafka rules give Kafka's MBeans; this project's own carry the lds_ prefix.
#pragma once

#include <prometheus/collectable.h>
#include <prometheus/metric_family.h>

#include <vector>

namespace lds {

class Broker;

class BrokerMetrics : public prometheus::Collectable {
 public:
  // `broker` must outlive this collector's use.
  explicit BrokerMetrics(const Broker& broker) : broker_(broker) {}
  std::vector<prometheus::MetricFamily> Collect() const override;

 private:
  const Broker& broker_;
};

}  // namespace lds
