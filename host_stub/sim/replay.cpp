// replay.cpp: one strategy variant over a trace, step by step, through LogManager and the loaded
// plugin.
#include "sim/replay.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <optional>
#include <set>
#include <unordered_map>

#include "sim/balance_replay.h"
#include "sim/plugin_search.h"
#include "sim/text.h"
#include "sim/virtual_disks.h"
#include "storage/log_manager.h"
#include "strategy/strategy_plugin.h"
#include "strategy/strategy_slot.h"
#include "util/errors.h"
#include "util/splitmix.h"

namespace lds::sim {

namespace fs = std::filesystem;
namespace {

// Each partition's bytes per step: the topic's rate shared with Zipf weights 1/rank^s, the ranks
// a seeded shuffle of the partitions (which partitions are hot is random, not always the first).
std::vector<uint64_t> partition_rates(const TopicSpec& topic, uint64_t seed, size_t topic_index) {
  const uint32_t n = topic.partitions;
  std::vector<uint32_t> rank(n);
  for (uint32_t i = 0; i < n; ++i) rank[i] = i;
  SplitMix64 random(seed ^ (0xD1B54A32D192ED03ull * (topic_index + 1)));
  for (uint32_t i = n; i > 1; --i) {
    const uint32_t j = static_cast<uint32_t>(random.next() % i);
    std::swap(rank[i - 1], rank[j]);
  }
  std::vector<double> weight(n);
  double sum = 0;
  for (uint32_t i = 0; i < n; ++i) {
    weight[i] = 1.0 / std::pow(static_cast<double>(rank[i]) + 1.0, topic.zipf);
    sum += weight[i];
  }
  std::vector<uint64_t> rates(n);
  for (uint32_t i = 0; i < n; ++i) {
    rates[i] = static_cast<uint64_t>(
        std::floor(static_cast<double>(topic.write_bytes_per_step) * weight[i] / sum));
  }
  return rates;
}

struct Placed {
  const TopicSpec* topic;
  int32_t partition;
  uint32_t disk;
  uint64_t size;
  uint64_t rate;
};

// The LogManager of a replay: in memory, over the virtual disks' paths.
LogManager::Options replay_log_options(const VirtualDisks& disks) {
  LogManager::Options options;
  options.log_dirs = disks.paths();
  options.in_memory = true;
  return options;
}

// One variant over a trace: the virtual disks, the LogManager over them with the variant's
// strategy loaded, the partitions placed so far, and the result as it builds up.
class Replay {
 public:
  Replay(const Trace& trace, const StrategyVariant& variant, const std::vector<fs::path>& search,
         const ReplayOutput& output);
  Replay(const Replay&) = delete;
  Replay& operator=(const Replay&) = delete;

  // Every step of the trace, then the result.
  RunResult run();

 private:
  void start_balancer();
  void write_csv_header() const;
  void attach_disks(uint32_t step);
  void apply_cordons(uint32_t step);
  void create_topics(uint32_t step);
  // More than 10% of the attached disks' capacity is free.
  bool has_plenty_free() const;
  // Each placed partition's bytes for the step, up to its retention.
  void append_step();
  // `existing`: data from before the trace, which is no append and counts in no rate.
  void write(Placed& p, uint64_t bytes, bool existing = false);
  // The disks' fills after `step`: into each disk's highest fill, and the CSV row.
  void record_fills(uint32_t step, size_t moving);
  // The disks as the trace ends, the final spread and the balancer's counts, into the result.
  void finish();
  double fill_pct(size_t i) const;
  Placed& placed_at(const TopicPartition& tp);

  const Trace& trace_;
  const ReplayOutput& output_;
  const size_t disk_count_;
  const double step_seconds_;
  std::shared_ptr<VirtualDisks> disks_;
  StrategySlot slot_;
  LogManager logs_;
  std::vector<bool> attached_;
  RunResult result_;
  std::vector<uint32_t> partitions_;
  std::vector<Placed> placed_;
  std::unordered_map<TopicPartition, size_t, TopicPartitionHash> placed_index_;
  std::optional<ReplayBalancer> balancer_;
  bool plenty_free_ = true;  // more than 10% of the attached capacity free at the start of the step
};

Replay::Replay(const Trace& trace, const StrategyVariant& variant,
               const std::vector<fs::path>& search, const ReplayOutput& output)
    : trace_(trace),
      output_(output),
      disk_count_(trace.disks.size()),
      step_seconds_(trace.step_seconds),
      disks_(std::make_shared<VirtualDisks>(trace.disks)),
      logs_(replay_log_options(*disks_), disks_, slot_),
      attached_(disk_count_),
      partitions_(disk_count_) {
  logs_.set_rate_window(std::chrono::milliseconds(static_cast<int64_t>(kRateWindowSteps) *
                                                  trace.step_seconds * 1000));
  logs_.startup();
  for (size_t i = 0; i < disk_count_; ++i) {
    attached_[i] = trace.disks[i].attach_at == 0;
    if (!attached_[i]) {
      logs_.mark_offline(static_cast<uint32_t>(i),
                         "not attached until step " + std::to_string(trace.disks[i].attach_at));
    }
  }
  logs_.set_partition_expected_bytes(trace.partition_expected_bytes);

  StrategyLoadSpec spec;
  spec.plugin_dir = find_plugin_dir(variant.plugin, search);
  spec.name = variant.plugin;
  spec.options = variant.options;
  slot_.publish(logs_.load_strategy(spec));

  result_.variant = variant;
  result_.disks.resize(disk_count_);
  if (variant.balance || trace.balancer.enable) start_balancer();
}

RunResult Replay::run() {
  write_csv_header();
  for (uint32_t step = 0; step < trace_.steps; ++step) {
    disks_->set_now(step * step_seconds_);
    attach_disks(step);
    apply_cordons(step);
    create_topics(step);
    plenty_free_ = has_plenty_free();
    disks_->set_now((step + 1) * step_seconds_);  // the step's appends, counted as it ends
    append_step();
    const size_t moving = balancer_ ? balancer_->step(step) : 0;
    record_fills(step, moving);
    if (output_.progress) output_.progress(step + 1);
  }
  finish();
  return std::move(result_);
}

Placed& Replay::placed_at(const TopicPartition& tp) { return placed_[placed_index_.at(tp)]; }

void Replay::start_balancer() {
  ReplayBalancer::Partitions view;
  view.size = [this](const TopicPartition& tp) { return placed_at(tp).size; };
  view.rate = [this](const TopicPartition& tp) {
    const Placed& p = placed_at(tp);
    const bool full = p.topic->retention_bytes && p.size >= *p.topic->retention_bytes;
    return full ? 0.0 : static_cast<double>(p.rate) * 1000.0 / static_cast<double>(kStepMillis);
  };
  view.relocated = [this](const TopicPartition& tp, uint32_t to) {
    Placed& p = placed_at(tp);
    --partitions_[p.disk];
    ++partitions_[to];
    p.disk = to;
  };
  balancer_.emplace(logs_, slot_, *disks_, trace_.balancer, std::move(view));
}

void Replay::write_csv_header() const {
  std::ostream* csv = output_.csv;
  if (!csv) return;
  *csv << "step";
  for (const DiskSpec& d : trace_.disks) *csv << ',' << d.name;
  if (balancer_) *csv << ",moves_in_flight";
  *csv << '\n';
}

double Replay::fill_pct(size_t i) const {
  return 100.0 * static_cast<double>(disks_->used(i)) / static_cast<double>(disks_->capacity(i));
}

void Replay::write(Placed& p, uint64_t bytes, bool existing) {
  const uint64_t fits = std::min(bytes, disks_->free(p.disk));
  if (fits < bytes) {
    ++result_.out_of_space;
    if (plenty_free_) ++result_.out_of_space_with_free_space;
  }
  if (fits == 0) return;
  if (existing) {
    logs_.in_memory_storage()->add_existing_bytes({p.topic->name, p.partition}, fits);
  } else {
    logs_.append(p.topic->name, p.partition, fits);
  }
  disks_->add(p.disk, fits);
  p.size += fits;
}

void Replay::attach_disks(uint32_t step) {
  for (size_t i = 0; i < disk_count_; ++i) {
    if (!attached_[i] && trace_.disks[i].attach_at == step) {
      logs_.in_memory_storage()->mark_online(static_cast<uint32_t>(i));
      attached_[i] = true;
    }
  }
}

void Replay::apply_cordons(uint32_t step) {
  for (const CordonEvent& e : trace_.cordons) {
    if (e.at != step) continue;
    std::set<std::string> cordoned;
    for (const std::string& name : e.disks) cordoned.insert(disk_path(name).string());
    logs_.set_cordoned([&](const fs::path& dir) { return cordoned.count(dir.string()) > 0; });
  }
}

void Replay::create_topics(uint32_t step) {
  for (size_t t = 0; t < trace_.topics.size(); ++t) {
    const TopicSpec& topic = trace_.topics[t];
    if (topic.at != step) continue;
    const std::vector<uint64_t> rates = partition_rates(topic, trace_.seed, t);
    for (uint32_t k = 0; k < topic.partitions; ++k) {
      const int32_t partition = static_cast<int32_t>(k);
      if (!topic.disk.empty()) {
        logs_.remember_preferred_dir({topic.name, partition}, disk_path(topic.disk));
      }
      PlacementResult r;
      try {
        r = logs_.create_partition(topic.name, partition, topic.expected_bytes);
      } catch (const StorageError&) {
        ++result_.failed_placements;
        continue;
      }
      const uint32_t disk = static_cast<uint32_t>(logs_.dir_index(r.log_dir));
      ++partitions_[disk];
      placed_index_[{topic.name, partition}] = placed_.size();
      placed_.push_back({&topic, partition, disk, 0, rates[k]});
      if (topic.initial_bytes > 0) write(placed_.back(), topic.initial_bytes, true);
    }
  }
}

bool Replay::has_plenty_free() const {
  uint64_t capacity = 0, free = 0;
  for (size_t i = 0; i < disk_count_; ++i) {
    if (!attached_[i]) continue;
    capacity += disks_->capacity(i);
    free += disks_->free(i);
  }
  return static_cast<double>(free) > 0.1 * static_cast<double>(capacity);
}

void Replay::append_step() {
  for (Placed& p : placed_) {
    uint64_t bytes = p.rate;
    if (p.topic->retention_bytes) {
      bytes =
          std::min(bytes, *p.topic->retention_bytes - std::min(p.size, *p.topic->retention_bytes));
    }
    if (bytes > 0) write(p, bytes);
  }
}

void Replay::record_fills(uint32_t step, size_t moving) {
  std::ostream* csv = output_.csv;
  if (csv) *csv << step;
  for (size_t i = 0; i < disk_count_; ++i) {
    if (csv) *csv << ',';
    if (!attached_[i]) continue;
    const double f = fill_pct(i);
    result_.disks[i].max_fill_pct = std::max(result_.disks[i].max_fill_pct, f);
    if (csv) *csv << fixed(f, 3);
  }
  if (csv && balancer_) *csv << ',' << moving;
  if (csv) *csv << '\n';
}

void Replay::finish() {
  double lo = 100, hi = 0;
  for (size_t i = 0; i < disk_count_; ++i) {
    DiskResult& d = result_.disks[i];
    d.name = trace_.disks[i].name;
    d.capacity = disks_->capacity(i);
    d.used = disks_->used(i);
    d.fill_pct = fill_pct(i);
    d.partitions = partitions_[i];
    d.attached = attached_[i];
    if (!d.attached) continue;
    lo = std::min(lo, d.fill_pct);
    hi = std::max(hi, d.fill_pct);
    result_.max_fill_pct = std::max(result_.max_fill_pct, d.max_fill_pct);
  }
  result_.final_spread_pp = hi - lo;
  if (balancer_) balancer_->report(result_);
}

}  // namespace

RunResult run(const Trace& trace, const StrategyVariant& variant,
              const std::vector<fs::path>& search, const ReplayOutput& output) {
  Replay replay(trace, variant, search, output);
  return replay.run();
}

}  // namespace lds::sim
