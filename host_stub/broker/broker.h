// broker.h: one broker's control plane: config, the active strategy, and the LogManager together.
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "balance/balancer.h"
#include "config/config.h"
#include "io/disk_probe.h"
#include "storage/log_manager.h"
#include "strategy/strategy_slot.h"
#include "util/mutex.h"

namespace spdlog {
class logger;
}

namespace lds {

struct StrategyInfo {
  std::string name;
  std::string version;
  std::string description;
  uint64_t capabilities = 0;
  uint64_t generation = 0;
  uint64_t swaps = 0;
  uint64_t fallbacks = 0;
  bool honors_cordon = false;
};

// Who asked for a dynamic configuration change; each changed key's log line names it.
enum class ConfigChangeSource {
  kAdminApi,                      // the admin socket's IncrementalAlterConfigs (lds-host configs)
  kKafkaIncrementalAlterConfigs,  // the Kafka listener
  kKafkaAlterConfigs,             // the Kafka listener's legacy AlterConfigs
  kSighup,                        // the config file, re-read
};

// "admin API", "Kafka IncrementalAlterConfigs", "Kafka AlterConfigs", "SIGHUP".
const char* config_change_source_name(ConfigChangeSource source) noexcept;

class Broker {
 public:
  // Reads the config (throws ConfigError). Nothing is touched on disk until start().
  // `in_memory_logs` keeps partitions as bookkeeping only (LogManager::Options::in_memory), for
  // exercising the control plane and the admin API without disk I/O (the admin request fuzzer).
  explicit Broker(const std::filesystem::path& config_file,
                  std::shared_ptr<const DiskProbe> probe = std::make_shared<StatvfsDiskProbe>(),
                  bool in_memory_logs = false);

  // Scans the log directories and loads the configured strategy, after checking the options of
  // every other strategy the file configures (check_file_strategy_options). Logs each file key a
  // dynamic value overrides. Throws ConfigError or PluginError; the caller exits with code 2.
  void start();

  // IncrementalAlterConfigs: validated all or nothing, a strategy change loaded and validated
  // before anything is persisted or published. Setting log.directory.select.strategy, even to its
  // current value, loads the plugin file afresh (a rebuilt .so is picked up). Throws
  // KafkaError(INVALID_CONFIG) and changes nothing. `validate_only` runs the same checks (a
  // strategy change loaded and dry-run ranked, then dropped) and changes nothing either way.
  // Each key whose effective value changed is logged at info as "<key>: <old> → <new> (<source>)",
  // "(unset)" standing for a strategy option that has no value.
  void alter_configs(const std::vector<ConfigAlteration>& changes, ConfigChangeSource source,
                     bool validate_only = false);
  // AlterConfigs: the dynamic layer becomes exactly `configs`; dynamic keys it does not name go
  // back to their file or default values. Validated, applied and logged as alter_configs is.
  void replace_dynamic_configs(const std::vector<ConfigEntry>& configs, ConfigChangeSource source,
                               bool validate_only = false);
  std::vector<DescribedConfig> describe_configs() const;

  // SIGHUP: re-reads the file and applies its dynamic keys as alter_configs would; the strategy is
  // also reloaded when its plugin file changed on disk. Static keys that changed are logged and
  // keep their running values. The options of every strategy the file configures are checked as at
  // start; a reload that fails a check is refused. Errors are logged and change nothing. Logs each
  // dynamic key whose effective value changed, as alter_configs does, and each file key a dynamic
  // value overrides.
  void reload_file(ConfigChangeSource source);

  StrategyInfo strategy_info() const;
  LogManager& logs() { return *logs_; }
  const LogManager& logs() const { return *logs_; }
  StrategySlot& slot() { return slot_; }
  const StrategySlot& slot() const { return slot_; }
  // The intra-broker balancer; its thread runs only once started (lds-host serve starts it).
  Balancer& balancer() { return *balancer_; }
  const Balancer& balancer() const { return *balancer_; }
  BrokerConfig config() const;

  // Called with the whole config after each dynamic change is applied (alter_configs,
  // replace_dynamic_configs, reload_file), with the control lock held: for what lives outside
  // the broker, such as the Kafka listener's max.connections. Set before serving; null: none.
  void set_on_config_applied(std::function<void(const BrokerConfig&)> hook);

 private:
  // The "lds.broker" logger.
  static std::shared_ptr<spdlog::logger> log();
  // Applies a validated config: strategy (loading it if its name or options changed), cordons,
  // expected bytes and log level. `commit` persists `changes` once the strategy has loaded.
  // `reload` forces the strategy to be loaded again even if its name and options are unchanged.
  void apply(const BrokerConfig& next, bool reload, const std::function<void()>& commit)
      REQUIRES(control_mu_);
  // The strategy `next` needs, loaded and dry-run ranked but not published; null when the running
  // one serves `next` unchanged (and `reload` is false). Throws PluginError.
  std::shared_ptr<const LoadedStrategy> load_if_changed(const BrokerConfig& next, bool reload)
      REQUIRES(control_mu_);
  // alter_configs with control_mu_ held.
  void alter_locked(const std::vector<ConfigAlteration>& changes, ConfigChangeSource source,
                    bool validate_only) REQUIRES(control_mu_);
  // One info line per dynamic key whose effective value differs from `before` (describe()'s rows
  // before the change): "<key>: <old> → <new> (<source>)".
  void log_changed_values(const std::vector<DescribedConfig>& before,
                          ConfigChangeSource source) const REQUIRES(control_mu_);
  // With cordons set and a strategy that does not honour them itself: says, at info, that the
  // broker keeps them (the ABI's LDS_CAP_HONORS_CORDON note to the operator).
  void note_cordons_kept_by_broker() const REQUIRES(control_mu_);
  // Loads every strategy other than `next.strategy` whose options the file sets, with those
  // options (create, dry-run rank, destroy) and publishes none, so that a typo in an inactive
  // strategy's options is refused now rather than at the switch. Throws ConfigError naming the
  // file, the options and the plugin's reason.
  void check_file_strategy_options(const BrokerConfig& next) REQUIRES(control_mu_);
  // One line for each key of the file whose value a dynamic value overrides.
  void log_overridden_file_values() const REQUIRES(control_mu_);

  mutable Mutex control_mu_;  // one control operation at a time
  // set_on_config_applied()'s hook.
  std::function<void(const BrokerConfig&)> on_config_applied_ GUARDED_BY(control_mu_);
  ConfigStore store_ GUARDED_BY(control_mu_);
  std::shared_ptr<const DiskProbe> probe_;
  StrategySlot slot_;
  std::unique_ptr<LogManager> logs_;
  std::unique_ptr<Balancer> balancer_;  // after logs_: destroyed first, as it moves their replicas
};

}  // namespace lds
