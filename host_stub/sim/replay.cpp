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

}  // namespace

RunResult run(const Trace& trace, const StrategyVariant& variant,
              const std::vector<fs::path>& search, const ReplayOutput& output) {
  const size_t disk_count = trace.disks.size();
  auto disks = std::make_shared<VirtualDisks>(trace.disks);
  StrategySlot slot;
  LogManager::Options options;
  options.log_dirs = disks->paths();
  options.in_memory = true;
  LogManager logs(options, disks, slot);
  const double step_seconds = trace.step_seconds;
  logs.set_rate_window(std::chrono::milliseconds(static_cast<int64_t>(kRateWindowSteps) *
                                                 trace.step_seconds * 1000));
  logs.startup();
  std::vector<bool> attached(disk_count);
  for (size_t i = 0; i < disk_count; ++i) {
    attached[i] = trace.disks[i].attach_at == 0;
    if (!attached[i]) {
      logs.mark_offline(static_cast<uint32_t>(i),
                        "not attached until step " + std::to_string(trace.disks[i].attach_at));
    }
  }
  logs.set_partition_expected_bytes(trace.partition_expected_bytes);

  StrategyLoadSpec spec;
  spec.plugin_dir = find_plugin_dir(variant.plugin, search);
  spec.name = variant.plugin;
  spec.options = variant.options;
  slot.publish(logs.load_strategy(spec));

  RunResult result;
  result.variant = variant;
  result.disks.resize(disk_count);
  std::vector<uint32_t> partitions(disk_count);
  std::vector<Placed> placed;
  std::unordered_map<TopicPartition, size_t, TopicPartitionHash> placed_index;
  std::optional<ReplayBalancer> balancer;
  if (variant.balance || trace.balancer.enable) {
    auto at = [&](const TopicPartition& tp) -> Placed& { return placed[placed_index.at(tp)]; };
    ReplayBalancer::Partitions view;
    view.size = [at](const TopicPartition& tp) { return at(tp).size; };
    view.rate = [at](const TopicPartition& tp) {
      const Placed& p = at(tp);
      const bool full = p.topic->retention_bytes && p.size >= *p.topic->retention_bytes;
      return full ? 0.0 : static_cast<double>(p.rate) * 1000.0 / static_cast<double>(kStepMillis);
    };
    view.relocated = [&, at](const TopicPartition& tp, uint32_t to) {
      Placed& p = at(tp);
      --partitions[p.disk];
      ++partitions[to];
      p.disk = to;
    };
    balancer.emplace(logs, slot, *disks, trace.balancer, std::move(view));
  }
  std::ostream* csv = output.csv;
  if (csv) {
    *csv << "step";
    for (const DiskSpec& d : trace.disks) *csv << ',' << d.name;
    if (balancer) *csv << ",moves_in_flight";
    *csv << '\n';
  }

  auto fill_pct = [&](size_t i) {
    return 100.0 * static_cast<double>(disks->used(i)) / static_cast<double>(disks->capacity(i));
  };
  bool plenty_free = true;  // more than 10% of the attached capacity free at the start of the step
  // `existing`: data from before the trace, which is no append and counts in no rate.
  auto write = [&](Placed& p, uint64_t bytes, bool existing = false) {
    const uint64_t fits = std::min(bytes, disks->free(p.disk));
    if (fits < bytes) {
      ++result.out_of_space;
      if (plenty_free) ++result.out_of_space_with_free_space;
    }
    if (fits == 0) return;
    if (existing) {
      logs.add_existing_bytes(p.topic->name, p.partition, fits);
    } else {
      logs.append(p.topic->name, p.partition, fits);
    }
    disks->add(p.disk, fits);
    p.size += fits;
  };

  for (uint32_t step = 0; step < trace.steps; ++step) {
    disks->set_now(step * step_seconds);
    for (size_t i = 0; i < disk_count; ++i) {
      if (!attached[i] && trace.disks[i].attach_at == step) {
        logs.mark_online(static_cast<uint32_t>(i));
        attached[i] = true;
      }
    }
    for (const CordonEvent& e : trace.cordons) {
      if (e.at != step) continue;
      std::set<std::string> cordoned;
      for (const std::string& name : e.disks) cordoned.insert(disk_path(name).string());
      logs.set_cordoned([&](const fs::path& dir) { return cordoned.count(dir.string()) > 0; });
    }
    for (size_t t = 0; t < trace.topics.size(); ++t) {
      const TopicSpec& topic = trace.topics[t];
      if (topic.at != step) continue;
      const std::vector<uint64_t> rates = partition_rates(topic, trace.seed, t);
      for (uint32_t k = 0; k < topic.partitions; ++k) {
        const int32_t partition = static_cast<int32_t>(k);
        if (!topic.disk.empty()) {
          logs.remember_preferred_dir({topic.name, partition}, disk_path(topic.disk));
        }
        PlacementResult r;
        try {
          r = logs.create_partition(topic.name, partition, topic.expected_bytes);
        } catch (const KafkaError&) {
          ++result.failed_placements;
          continue;
        }
        const uint32_t disk = static_cast<uint32_t>(logs.dir_index(r.log_dir));
        ++partitions[disk];
        placed_index[{topic.name, partition}] = placed.size();
        placed.push_back({&topic, partition, disk, 0, rates[k]});
        if (topic.initial_bytes > 0) write(placed.back(), topic.initial_bytes, true);
      }
    }
    uint64_t capacity = 0, free = 0;
    for (size_t i = 0; i < disk_count; ++i) {
      if (!attached[i]) continue;
      capacity += disks->capacity(i);
      free += disks->free(i);
    }
    plenty_free = static_cast<double>(free) > 0.1 * static_cast<double>(capacity);
    disks->set_now((step + 1) * step_seconds);  // the step's appends, counted as it ends
    for (Placed& p : placed) {
      uint64_t bytes = p.rate;
      if (p.topic->retention_bytes) {
        bytes = std::min(bytes,
                         *p.topic->retention_bytes - std::min(p.size, *p.topic->retention_bytes));
      }
      if (bytes > 0) write(p, bytes);
    }
    const size_t moving = balancer ? balancer->step(step) : 0;
    if (csv) *csv << step;
    for (size_t i = 0; i < disk_count; ++i) {
      if (csv) *csv << ',';
      if (!attached[i]) continue;
      const double f = fill_pct(i);
      result.disks[i].max_fill_pct = std::max(result.disks[i].max_fill_pct, f);
      if (csv) *csv << fixed(f, 3);
    }
    if (csv && balancer) *csv << ',' << moving;
    if (csv) *csv << '\n';
    if (output.progress) output.progress(step + 1);
  }

  double lo = 100, hi = 0;
  for (size_t i = 0; i < disk_count; ++i) {
    DiskResult& d = result.disks[i];
    d.name = trace.disks[i].name;
    d.capacity = disks->capacity(i);
    d.used = disks->used(i);
    d.fill_pct = fill_pct(i);
    d.partitions = partitions[i];
    d.attached = attached[i];
    if (!d.attached) continue;
    lo = std::min(lo, d.fill_pct);
    hi = std::max(hi, d.fill_pct);
    result.max_fill_pct = std::max(result.max_fill_pct, d.max_fill_pct);
  }
  result.final_spread_pp = hi - lo;
  if (balancer) balancer->report(result);
  return result;
}

}  // namespace lds::sim
