// broker.cpp: applies configuration to the strategy slot and the LogManager, all or nothing.
#include "broker/broker.h"

#include <algorithm>
#include <chrono>

#include "config/config_keys.h"
#include "util/logging.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

// A value as a change's log line shows it: quoted when empty, so that it is seen.
std::string shown_value(const std::string* value) {
  if (value == nullptr) return "(unset)";
  if (value->empty()) return "\"\"";
  return *value;
}

// "balance=fill, keep.free.bytes=0": the log.directory.select.<name>.* values a strategy was
// created with.
std::string options_text(const LoadedStrategy& s) {
  std::string text;
  for (const auto& [key, value] : s.options()) {
    if (!text.empty()) text += ", ";
    text += key;
    text += '=';
    text += value;
  }
  return text.empty() ? "default options" : text;
}

}  // namespace

std::shared_ptr<spdlog::logger> Broker::log() {
  static auto l = logger("lds.broker");
  return l;
}

const char* config_change_source_name(ConfigChangeSource source) noexcept {
  switch (source) {
    case ConfigChangeSource::kAdminApi:
      return "admin API";
    case ConfigChangeSource::kKafkaIncrementalAlterConfigs:
      return "Kafka IncrementalAlterConfigs";
    case ConfigChangeSource::kKafkaAlterConfigs:
      return "Kafka AlterConfigs";
    case ConfigChangeSource::kSighup:
      return "SIGHUP";
  }
  return "unknown";
}

Broker::Broker(const fs::path& config_file, std::shared_ptr<const DiskProbe> probe,
               bool in_memory_logs)
    : store_(config_file), probe_(std::move(probe)) {
  const BrokerConfig& c = store_.current();
  set_log_level(c.log_level);
  LogManager::Options options;
  options.broker_id = c.broker_id;
  options.cluster_id = c.cluster_id;
  options.log_dirs = c.log_dirs;
  options.mover_threads = c.mover_threads;
  options.in_memory = in_memory_logs;
  // Beside the config, as the dynamic overrides are: see PendingDeletions for why.
  options.pending_deletions_file = c.file.string() + ".pending-deletions";
  options.kept_placements = PlacementHistory::kDefaultCapacity;
  logs_ = std::make_unique<LogManager>(std::move(options), probe_, slot_);
  balancer_ = std::make_unique<Balancer>(*logs_, slot_, partition_rates_for_balance(*logs_));
}

BrokerConfig Broker::config() const {
  MutexLock lock(control_mu_);
  return store_.current();
}

void Broker::start() {
  MutexLock lock(control_mu_);
  logs_->startup();
  check_file_strategy_options(store_.current());
  apply(store_.current(), true, [] {});
  log_overridden_file_values();
}

void Broker::check_file_strategy_options(const BrokerConfig& next) {
  for (const std::string& name : store_.strategies_with_file_options()) {
    if (name == next.strategy) continue;  // loaded as the active strategy, checked then
    StrategyLoadSpec spec;
    spec.plugin_dir = next.plugin_dir;
    spec.name = name;
    spec.options = next.options_of(name);
    spec.never_unload = next.never_unload;
    spec.validation_timeout = std::chrono::milliseconds(next.plugin_validation_timeout_ms);
    try {
      std::shared_ptr<const LoadedStrategy> checked =
          logs_->load_strategy(spec, [&](const fs::path& d) { return next.is_cordoned(d); });
      const uint64_t generation = checked->generation();
      checked.reset();  // destroyed and unloaded now: it was only checked
      slot_.release_generation(generation);
    } catch (const PluginError& e) {
      throw ConfigError(next.file.string() + ": " + std::string(kStrategyOptionPrefix) + name +
                        ".* (strategy " + name +
                        " is not active; its options are checked all the "
                        "same): " +
                        e.what());
    }
  }
}

void Broker::log_overridden_file_values() const {
  for (const auto& [key, file_value, dynamic_value] : store_.file_values_overridden()) {
    log()->info("{} = \"{}\" in {} is overridden by the dynamic value \"{}\" kept in {}.", key,
                file_value, store_.current().file.string(), dynamic_value,
                store_.dynamic_file().string());
  }
}

std::shared_ptr<const LoadedStrategy> Broker::load_if_changed(const BrokerConfig& next,
                                                              bool reload) {
  auto active = slot_.current();
  const bool strategy_changed =
      reload || !active || active->name() != next.strategy ||
      next.options_of(next.strategy) != store_.current().options_of(store_.current().strategy);
  if (!strategy_changed) return nullptr;
  StrategyLoadSpec spec;
  spec.plugin_dir = next.plugin_dir;
  spec.name = next.strategy;
  spec.options = next.options_of(next.strategy);
  spec.never_unload = next.never_unload;
  spec.validation_timeout = std::chrono::milliseconds(next.plugin_validation_timeout_ms);
  // The dry run ranks the directories as they will be once the new cordons apply; the live
  // cordons stay as they are until the whole change is accepted.
  return logs_->load_strategy(spec, [&](const fs::path& d) { return next.is_cordoned(d); });
}

void Broker::apply(const BrokerConfig& next, bool reload, const std::function<void()>& commit) {
  auto active = slot_.current();
  std::shared_ptr<const LoadedStrategy> loaded;
  try {
    loaded = load_if_changed(next, reload);
  } catch (const PluginError&) {
    slot_.count_refused_swap();
    throw;
  }
  const BrokerConfig& before = store_.current();
  const bool cordons_changed =
      before.cordon_all != next.cordon_all || before.cordoned != next.cordoned;
  commit();
  logs_->set_cordoned([&](const fs::path& d) { return next.is_cordoned(d); });
  logs_->set_partition_expected_bytes(next.partition_expected_bytes);
  logs_->set_rate_window(std::chrono::milliseconds(next.rate_window_ms));
  logs_->set_segment_bytes(next.segment_bytes);
  logs_->set_max_message_bytes(next.max_message_bytes);
  logs_->set_index_interval_bytes(next.index_interval_bytes);
  logs_->set_move_throttle(next.alter_log_dirs_bytes_per_second);
  balancer_->configure(next.balance, next.alter_log_dirs_bytes_per_second);
  set_log_level(next.log_level);
  const bool swapped = loaded != nullptr;
  if (loaded) {
    log()->info("Strategy {} {} ({}) is active (generation {}){}.", loaded->name(),
                loaded->version(), options_text(*loaded), loaded->generation(),
                active ? ", replacing " + active->name() : "");
    slot_.publish(std::move(loaded));
  }
  if (swapped || cordons_changed) note_cordons_kept_by_broker();
  if (on_config_applied_) on_config_applied_(next);
}

void Broker::set_on_config_applied(std::function<void(const BrokerConfig&)> hook) {
  MutexLock lock(control_mu_);
  on_config_applied_ = std::move(hook);
}

void Broker::note_cordons_kept_by_broker() const {
  const BrokerConfig& c = store_.current();
  auto active = slot_.current();
  if ((c.cordon_all || !c.cordoned.empty()) && active && !active->honors_cordon()) {
    // Not a warning: nothing is wrong. The ABI asks the host to tell the operator
    // (LDS_CAP_HONORS_CORDON), and the cordon holds whatever the strategy ranks.
    log()->info(
        "cordoned.log.dirs is set and strategy {} does not honour cordons itself "
        "(LDS_CAP_HONORS_CORDON); the broker leaves cordoned directories out of its ranking.",
        active->name());
  }
}

void Broker::log_changed_values(const std::vector<DescribedConfig>& before,
                                ConfigChangeSource source) const {
  const std::vector<DescribedConfig> after = store_.describe();
  auto value_in = [](const std::vector<DescribedConfig>& rows,
                     const std::string& name) -> const std::string* {
    for (const DescribedConfig& d : rows) {
      if (d.name == name) return &d.value;
    }
    return nullptr;
  };
  auto log_change = [&](const std::string& name, const std::string* old_value,
                        const std::string* new_value) {
    if (old_value != nullptr && new_value != nullptr && *old_value == *new_value) return;
    log()->info("{}: {} → {} ({})", name, shown_value(old_value), shown_value(new_value),
                config_change_source_name(source));
  };
  for (const DescribedConfig& d : after) {
    if (d.dynamic) log_change(d.name, value_in(before, d.name), &d.value);
  }
  for (const DescribedConfig& d : before) {
    if (d.dynamic && value_in(after, d.name) == nullptr) log_change(d.name, &d.value, nullptr);
  }
}

void Broker::alter_configs(const std::vector<ConfigAlteration>& changes, ConfigChangeSource source,
                           bool validate_only) {
  MutexLock lock(control_mu_);
  alter_locked(changes, source, validate_only);
}

void Broker::replace_dynamic_configs(const std::vector<ConfigEntry>& configs,
                                     ConfigChangeSource source, bool validate_only) {
  MutexLock lock(control_mu_);
  std::vector<ConfigAlteration> changes;
  changes.reserve(configs.size());
  for (const ConfigEntry& c : configs)
    changes.push_back({c.name, ConfigAlteration::Op::kSet, c.value});
  for (const DescribedConfig& d : store_.describe()) {
    const bool named = std::any_of(configs.begin(), configs.end(),
                                   [&](const ConfigEntry& c) { return c.name == d.name; });
    if (d.source == "DYNAMIC" && !named)
      changes.push_back({d.name, ConfigAlteration::Op::kDelete, ""});
  }
  alter_locked(changes, source, validate_only);
}

void Broker::alter_locked(const std::vector<ConfigAlteration>& changes, ConfigChangeSource source,
                          bool validate_only) {
  try {
    BrokerConfig next = store_.preview(changes);
    const bool reload = std::any_of(changes.begin(), changes.end(), [](const ConfigAlteration& c) {
      return c.name == "log.directory.select.strategy" && c.op == ConfigAlteration::Op::kSet;
    });
    if (validate_only) {
      // Loaded to be checked, then dropped: its generation number is given back, as for a refused
      // swap, so a validation uses none up.
      if (auto loaded = load_if_changed(next, reload)) {
        const uint64_t generation = loaded->generation();
        loaded.reset();
        slot_.release_generation(generation);
      }
      return;
    }
    // Logged as soon as committed: before log.level applies, so that a change that quietens the
    // log is still seen.
    const std::vector<DescribedConfig> before = store_.describe();
    apply(next, reload, [&] {
      control_mu_.assert_held();  // apply() runs this under the lock
      store_.commit(changes);
      log_changed_values(before, source);
    });
  } catch (const ConfigError& e) {
    throw KafkaError(ErrorCode::kInvalidConfig, e.what());
  } catch (const PluginError& e) {
    log()->error("Configuration change refused, strategy {} stays active: {}",
                 slot_.current() ? slot_.current()->name() : "none", e.what());
    throw KafkaError(ErrorCode::kInvalidConfig, e.what());
  }
}

std::vector<DescribedConfig> Broker::describe_configs() const {
  MutexLock lock(control_mu_);
  return store_.describe();
}

void Broker::reload_file(ConfigChangeSource source) {
  MutexLock lock(control_mu_);
  try {
    std::vector<std::string> static_changes;
    BrokerConfig next = store_.reread(&static_changes);
    for (const auto& key : static_changes) {
      log()->warn("{} changed in {} but is a static config; restart the broker to apply it.", key,
                  store_.current().file.string());
    }
    check_file_strategy_options(next);
    auto active = slot_.current();
    const std::vector<DescribedConfig> before = store_.describe();
    apply(next, active && active->file_changed(), [&] {
      control_mu_.assert_held();  // apply() runs this under the lock
      store_.adopt(next);
      log_changed_values(before, source);
    });
    log()->info("Reloaded {}.", store_.current().file.string());
    log_overridden_file_values();
  } catch (const std::exception& e) {
    log()->error("Reload of {} refused, nothing changed: {}", store_.current().file.string(),
                 e.what());
  }
}

StrategyInfo Broker::strategy_info() const {
  StrategyInfo info;
  auto s = slot_.current();
  if (s) {
    info.name = s->name();
    info.version = s->version();
    info.description = s->description();
    info.capabilities = s->capabilities();
    info.generation = s->generation();
    info.honors_cordon = s->honors_cordon();
    info.fallbacks = s->fallbacks();  // this generation's; a swap starts again at 0
  }
  info.swaps = slot_.swaps();
  return info;
}

}  // namespace lds
