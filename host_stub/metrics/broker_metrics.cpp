// broker_metrics.cpp: builds the metric families of one scrape.
#include "metrics/broker_metrics.h"

#include <limits>
#include <stdexcept>
#include <string>
#include <utility>

#include "broker/broker.h"
#include "util/errors.h"

namespace lds {
namespace {

using prometheus::ClientMetric;
using prometheus::MetricFamily;
using prometheus::MetricType;
using Labels = std::vector<ClientMetric::Label>;

// The families of one scrape (33 today); family() hands out references into the vector, so it is
// reserved once to this and never grows past it.
constexpr size_t kMaxFamilies = 64;

MetricFamily& family(std::vector<MetricFamily>& out, std::string name, std::string help,
                     MetricType type) {
  if (out.size() == kMaxFamilies) throw std::logic_error("BrokerMetrics: raise kMaxFamilies");
  out.push_back(MetricFamily{std::move(name), std::move(help), type, {}});
  return out.back();
}

void add(MetricFamily& f, double value, Labels labels = {}) {
  ClientMetric m;
  m.label = std::move(labels);
  if (f.type == MetricType::Counter) {
    m.counter.value = value;
  } else {
    m.gauge.value = value;
  }
  f.metric.push_back(std::move(m));
}

double as_double(uint64_t v) { return static_cast<double>(v); }

// A label name from a strategy option key: "min.free.bytes" -> "option_min_free_bytes".
std::string option_label(const std::string& key) {
  std::string out = "option_";
  for (char c : key) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    out += ok ? c : '_';
  }
  return out;
}

// Kafka's LogManager and Log gauges (kafka.log:type=LogManager and type=Log), named as the JMX
// exporter's Kafka rules name them. The exporter keeps the quotes ObjectName.quote puts around a
// path, so logDirectory carries them too.
void kafka_log_metrics(const std::vector<LogDirDescription>& dirs, std::vector<MetricFamily>& out) {
  auto& offline_count =
      family(out, "kafka_log_logmanager_offlinelogdirectorycount",
             "Log directories offline (Kafka's OfflineLogDirectoryCount).", MetricType::Gauge);
  auto& cordoned_count =
      family(out, "kafka_log_logmanager_cordonedlogdirectorycount",
             "Log directories cordoned (Kafka's CordonedLogDirectoryCount).", MetricType::Gauge);
  auto& offline = family(out, "kafka_log_logmanager_logdirectoryoffline",
                         "1 when the log directory is offline (Kafka's LogDirectoryOffline).",
                         MetricType::Gauge);
  auto& cordoned = family(out, "kafka_log_logmanager_logdirectorycordoned",
                          "1 when the log directory is cordoned (Kafka's LogDirectoryCordoned).",
                          MetricType::Gauge);
  auto& size = family(out, "kafka_log_log_size", "A partition's log size in bytes (Kafka's Size).",
                      MetricType::Gauge);
  double offline_n = 0, cordoned_n = 0;
  for (const LogDirDescription& d : dirs) {
    const bool is_offline = d.error != StorageErrc::kNone;
    offline_n += is_offline ? 1 : 0;
    cordoned_n += d.cordoned ? 1 : 0;
    const std::string quoted = "\"" + d.log_dir + "\"";
    add(offline, is_offline ? 1 : 0, {{"logDirectory", quoted}});
    add(cordoned, d.cordoned ? 1 : 0, {{"logDirectory", quoted}});
    for (const PartitionDescription& p : d.partitions) {
      if (p.is_future) continue;  // Kafka tags a future log is-future=true, another series
      const size_t dash = p.partition.rfind('-');
      add(size, as_double(p.size),
          {{"topic", p.partition.substr(0, dash)}, {"partition", p.partition.substr(dash + 1)}});
    }
  }
  add(offline_count, offline_n);
  add(cordoned_count, cordoned_n);
}

void dir_metrics(const std::vector<LogDirDescription>& dirs, std::vector<MetricFamily>& out) {
  auto& total = family(out, "lds_log_dir_total_bytes", "The log directory's filesystem size.",
                       MetricType::Gauge);
  auto& usable = family(out, "lds_log_dir_usable_bytes",
                        "Bytes the broker may still write in the log directory's filesystem.",
                        MetricType::Gauge);
  auto& reserved = family(out, "lds_log_dir_reserved_bytes",
                          "Bytes promised to the log directory's new partitions and moves in, "
                          "not written yet.",
                          MetricType::Gauge);
  auto& fill = family(out, "lds_log_dir_fill_ratio",
                      "Used share of the log directory's filesystem, 0 to 1.", MetricType::Gauge);
  auto& partitions =
      family(out, "lds_log_dir_partitions",
             "Replicas in the log directory, future copies included.", MetricType::Gauge);
  auto& placements =
      family(out, "lds_log_dir_placements_total",
             "Partitions created in the log directory since start.", MetricType::Counter);
  for (const LogDirDescription& d : dirs) {
    const Labels dir{{"dir", d.log_dir}};
    add(placements, as_double(d.placements), dir);
    if (d.error != StorageErrc::kNone) continue;  // an offline dir has no sizes to show
    add(partitions, as_double(d.partitions.size()), dir);
    add(reserved, as_double(d.reserved_bytes), dir);
    if (!d.space_known || d.total_bytes == 0) continue;
    add(total, as_double(d.total_bytes), dir);
    add(usable, as_double(d.usable_bytes), dir);
    const uint64_t used = d.total_bytes > d.usable_bytes ? d.total_bytes - d.usable_bytes : 0;
    add(fill, as_double(used) / as_double(d.total_bytes), dir);
  }
}

void strategy_metrics(const Broker& broker, std::vector<MetricFamily>& out) {
  const StrategySlot& slot = broker.slot();
  auto& info = family(out, "lds_strategy_info",
                      "The active strategy: its name, version and options as labels; always 1.",
                      MetricType::Gauge);
  auto& generation =
      family(out, "lds_strategy_generation",
             "The active strategy's generation; each swap raises it.", MetricType::Gauge);
  if (auto active = slot.current()) {
    Labels labels{{"name", active->name()}, {"version", active->version()}};
    for (const auto& [key, value] : active->options()) labels.push_back({option_label(key), value});
    add(info, 1, std::move(labels));
    add(generation, as_double(active->generation()));
  }
  add(family(out, "lds_strategy_swaps_total", "Strategy swaps since start.", MetricType::Counter),
      as_double(slot.swaps()));
  add(family(out, "lds_strategy_refused_swaps_total",
             "Strategy changes refused since start (the load or dry run failed); the active "
             "strategy stayed.",
             MetricType::Counter),
      as_double(slot.refused_swaps()));
  auto& placed = family(out, "lds_placements_total",
                        "Partitions created since start where a strategy of this name placed "
                        "them (its fallbacks included).",
                        MetricType::Counter);
  for (const auto& [name, count] : slot.placements_by_strategy()) {
    add(placed, as_double(count), {{"strategy", name}});
  }
  add(family(out, "lds_preferred_placements_total",
             "Partitions created in the dir an AlterReplicaLogDirs named before they existed.",
             MetricType::Counter),
      as_double(broker.logs().preferred_placements()));
  auto& fallbacks =
      family(out, "lds_placement_fallbacks_total",
             "Rankings refused and replaced by the built-in order, by why.", MetricType::Counter);
  const StrategySlot::FallbackReasons reasons = slot.fallback_reasons();
  add(fallbacks, as_double(reasons.plugin_error), {{"reason", "plugin_error"}});
  add(fallbacks, as_double(reasons.invalid_ranking), {{"reason", "invalid_ranking"}});

  const LatencyHistogram::Snapshot latency = broker.logs().placement_latency().snapshot();
  auto& duration =
      family(out, "lds_placement_duration_seconds",
             "Time to decide a placement: snapshot, ranking and fallback.", MetricType::Histogram);
  ClientMetric h;
  uint64_t cumulative = 0;
  for (size_t i = 0; i < LatencyHistogram::kBoundsNs.size(); ++i) {
    cumulative += latency.buckets[i];
    h.histogram.bucket.push_back({cumulative, as_double(LatencyHistogram::kBoundsNs[i]) / 1e9});
  }
  h.histogram.bucket.push_back({latency.count, std::numeric_limits<double>::infinity()});
  h.histogram.sample_count = latency.count;
  h.histogram.sample_sum = as_double(latency.sum_ns) / 1e9;
  duration.metric.push_back(std::move(h));
}

void move_metrics(const Broker& broker, std::vector<MetricFamily>& out) {
  const LogManager& logs = broker.logs();
  const LogManager::MoveCounters moves = logs.move_counters();
  add(family(out, "lds_moves_in_flight", "Replica moves queued or running.", MetricType::Gauge),
      as_double(logs.moves_in_progress()));
  add(family(out, "lds_move_copied_bytes_total", "Bytes replica moves copied since start.",
             MetricType::Counter),
      as_double(moves.copied_bytes));
  auto& failures = family(out, "lds_move_failures_total", "Replica moves that failed, by why.",
                          MetricType::Counter);
  add(failures, as_double(moves.failed_no_space), {{"reason", "no_space"}});
  add(failures, as_double(moves.failed_no_descriptors), {{"reason", "no_descriptors"}});
  add(failures, as_double(moves.failed_disk_error), {{"reason", "disk_error"}});
  add(failures, as_double(moves.failed_dir_offline), {{"reason", "dir_offline"}});
  const uint64_t throttle = broker.config().alter_log_dirs_bytes_per_second;
  auto& limit = family(out, "lds_move_throttle_bytes_per_second",
                       "replica.alter.log.dirs.io.max.bytes.per.second; absent when unlimited.",
                       MetricType::Gauge);
  if (throttle < kNoMoveThrottle) add(limit, as_double(throttle));
  add(family(out, "lds_pending_deletions",
             "Replicas deleted while their log directory was offline, removed at the next start.",
             MetricType::Gauge),
      as_double(logs.pending_deletion_count()));
}

void balancer_metrics(const BalanceStatus& s, std::vector<MetricFamily>& out) {
  auto& state =
      family(out, "lds_balancer_state", "1 for the balancer's current state.", MetricType::Gauge);
  for (const char* name : {"disabled", "idle", "balancing", "stuck", "draining", "cancelled"}) {
    add(state, s.state == name ? 1 : 0, {{"state", name}});
  }
  add(family(out, "lds_balancer_spread_points",
             "Fill spread of the online, uncordoned log dirs, in percentage points.",
             MetricType::Gauge),
      s.spread_percent);
  add(family(out, "lds_balancer_threshold_points",
             "log.dir.balance.threshold.percent: the spread the balancer acts above.",
             MetricType::Gauge),
      s.threshold_percent);
  add(family(out, "lds_balancer_rounds_total", "Balancer rounds planned since start.",
             MetricType::Counter),
      as_double(s.rounds));
  add(family(out, "lds_balancer_moves_total", "Balancer moves finished since start.",
             MetricType::Counter),
      as_double(s.moves));
  add(family(out, "lds_balancer_moved_bytes_total", "Bytes of the balancer's finished moves.",
             MetricType::Counter),
      as_double(s.bytes_moved));
  add(family(out, "lds_balancer_lower_bound_bytes_total",
             "The sum over rounds of the fewest bytes each round had to move.",
             MetricType::Counter),
      as_double(s.lower_bound_bytes));
  add(family(out, "lds_balancer_blocked_moves",
             "Moves left out of plans after they failed, until something changes.",
             MetricType::Gauge),
      as_double(s.blocked));
}

}  // namespace

std::vector<MetricFamily> BrokerMetrics::Collect() const {
  std::vector<MetricFamily> out;
  out.reserve(kMaxFamilies);
  const std::vector<LogDirDescription> dirs = broker_.logs().describe();
  const BalanceStatus status = broker_.balancer().status();
  kafka_log_metrics(dirs, out);
  dir_metrics(dirs, out);
  strategy_metrics(broker_, out);
  move_metrics(broker_, out);
  balancer_metrics(status, out);
  return out;
}

}  // namespace lds
