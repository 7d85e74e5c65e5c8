// config.h: the broker's configuration: TOML file, dynamic overrides, and the effective values.
//
// Precedence is Kafka's: DYNAMIC (set through IncrementalAlterConfigs, persisted beside the file)
// over STATIC (the file) over DEFAULT. Every path is canonicalised once, here, by canonical_path().
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "config/balance_config.h"
#include "util/errors.h"

namespace lds {

// The one path canonicaliser: `raw` made absolute against `base` (relative paths resolve against
// the config file's folder), then weakly canonical (symlinks and `..` resolved as far as the path
// exists), without a trailing slash.
std::filesystem::path canonical_path(const std::filesystem::path& base,
                                     const std::filesystem::path& raw);

// The admin.socket that `config_file` names, for the admin client. Only that key is read,
// leniently, so that an operator still reaches the broker when something else in the file is wrong.
// Throws ConfigError when the file cannot be read or admin.socket is empty.
std::filesystem::path admin_socket_of_file(const std::filesystem::path& config_file);

namespace detail {
// One key's value in one layer of ConfigStore, as text, with where it was written (for error
// messages). Not part of the API.
struct ConfigSetting {
  std::string text;                     // the value; list entries joined with ","
  std::vector<std::string> items;       // list keys: the entries as written
  std::vector<std::string> item_where;  // list keys: "file:line:column: " of each entry, or ""
  std::string where;                    // "file:line:column: " of the key, or "" for a request
};
}  // namespace detail

// replica.alter.log.dirs.io.max.bytes.per.second's default, Kafka's Long.MAX_VALUE
// (QuotaConfig.QUOTA_BYTES_PER_SECOND_DEFAULT): moves copy as fast as the disks allow. Any value
// at or above it is no throttle.
inline constexpr uint64_t kNoMoveThrottle = 9223372036854775807ull;

// Effective configuration, after DYNAMIC > STATIC > DEFAULT. Only ConfigStore builds one, and it
// sets every field, defaults included, through the key table (config/config_keys.h).
struct BrokerConfig {
  std::filesystem::path file;  // canonical path of the TOML file
  int32_t broker_id = 0;       // broker.id (static)
  // cluster.id (static): the cluster.id new log directories' meta.properties get, and that every
  // existing one must hold; empty: the one the directories hold, or a generated one.
  std::string cluster_id;
  std::vector<std::filesystem::path>
      log_dirs;                        // log.dirs (static), canonical, in file order, never empty
  std::filesystem::path plugin_dir;    // plugin.dir (static), canonical
  std::filesystem::path admin_socket;  // admin.socket (static), canonical

  std::string strategy;                      // log.directory.select.strategy (dynamic)
  int64_t plugin_validation_timeout_ms = 0;  // plugin.validation.timeout.ms (dynamic), >= 1
  // log.directory.select.<name>.<key> = value (dynamic), keyed by strategy name, then option key.
  std::map<std::string, std::map<std::string, std::string>> strategy_options;
  bool cordon_all = false;  // cordoned.log.dirs = "*" (dynamic)
  std::vector<std::filesystem::path>
      cordoned;  // cordoned.log.dirs entries (dynamic), canonical, each in log_dirs
  uint64_t partition_expected_bytes = 0;  // log.partition.expected.bytes (dynamic), 0 = none
  int64_t rate_window_ms = 300000;        // log.dir.rate.window.ms (dynamic), >= 1
  uint64_t segment_bytes = 0;             // log.segment.bytes (dynamic), >= 14
  uint64_t max_message_bytes = 0;         // message.max.bytes (dynamic), 0 to 2^31 - 1
  uint32_t index_interval_bytes = 0;      // log.index.interval.bytes (dynamic), >= 0
  int32_t max_connections = 0;            // max.connections (dynamic), Kafka connections, >= 0
  std::string log_level;                  // log.level (dynamic): trace|debug|info|warn|error|off
  // replica.alter.log.dirs.io.max.bytes.per.second (dynamic): kNoMoveThrottle (Kafka's default,
  // Long.MAX_VALUE) is no throttle; 0 lets no byte through, so moves wait without copying.
  uint64_t alter_log_dirs_bytes_per_second = 0;
  int32_t mover_threads = 0;             // num.replica.alter.log.dirs.threads (static)
  bool never_unload = false;             // plugin.never.unload (static)
  int32_t admin_max_connections = 0;     // admin.max.connections (static)
  int64_t admin_connection_idle_ms = 0;  // admin.connection.idle.ms (static)
  BalanceConfig balance;                 // log.dir.balance.* (dynamic)
  // listeners (static): PLAINTEXT://host:port, the Kafka protocol listener; an empty host means
  // no listener. Port 0 binds a free port.
  std::string listener_host;
  int32_t listener_port = 0;
  // metrics.listener (static): http://host:port, the Prometheus endpoint; an empty host means
  // none. Port 0 binds a free port.
  std::string metrics_host;
  int32_t metrics_port = 0;
  int32_t socket_request_max_bytes = 0;  // socket.request.max.bytes (static), >= 1
  // fetch.max.bytes (static), >= 1024: the most bytes of records one Fetch answers (Kafka caps a
  // consumer's max_bytes with it).
  int32_t fetch_max_bytes = 0;
  // connections.max.idle.ms (static): a Kafka connection with no I/O this long is closed;
  // negative: never.
  int64_t connections_max_idle_ms = 0;

  bool is_cordoned(const std::filesystem::path& canonical_dir) const;
  // Options of the given strategy as (key, value) pairs, empty when none are set.
  std::vector<std::pair<std::string, std::string>> options_of(
      const std::string& strategy_name) const;

  bool operator==(const BrokerConfig&) const = default;
};

// One change from IncrementalAlterConfigs. kAppend and kSubtract (Kafka's APPEND and SUBTRACT)
// apply to list keys only: they add the comma-separated entries of `value` that are missing from,
// or remove them from, the key's dynamic value (its default when it has none), as Kafka does.
struct ConfigAlteration {
  enum class Op { kSet, kDelete, kAppend, kSubtract };
  std::string name;
  Op op = Op::kSet;
  std::string value;  // ignored for kDelete
};

// One dynamic key and its value in the text form, as AlterConfigs names them.
struct ConfigEntry {
  std::string name;
  std::string value;
};

// One row of DescribeConfigs.
struct DescribedConfig {
  std::string name;
  std::string value;
  std::string source;  // "DYNAMIC", "STATIC" or "DEFAULT"
  bool dynamic = false;
  // Every layer that sets the key, the one in effect first, as Kafka's DescribeConfigs synonyms:
  // (DYNAMIC_BROKER_CONFIG | STATIC_BROKER_CONFIG | DEFAULT_CONFIG, the value in text form).
  std::vector<std::pair<std::string, std::string>> synonyms;
  // Its type as Kafka's ConfigDef names it (BOOLEAN, STRING, INT, LONG or LIST), and its
  // documentation: DescribeConfigs v3+.
  std::string type;
  std::string documentation;
};

// Owns the file, the dynamic override file, and the effective BrokerConfig. Not thread-safe: the
// broker calls it from its control path under its own lock.
//
// Values that arrive as text (IncrementalAlterConfigs, the dynamic file) use Kafka's forms: numbers
// in decimal, booleans as true/false, lists comma-separated, and cordoned.log.dirs "*" for all.
class ConfigStore {
 public:
  // Reads `file` and its dynamic overrides (dynamic_file()). Throws ConfigError naming
  // file:line:column and the key for every problem. A dynamic cordoned.log.dirs entry that is no
  // longer in log.dirs (a retired disk) is pruned from the dynamic file, with one info line.
  explicit ConfigStore(const std::filesystem::path& file);

  const BrokerConfig& current() const { return current_; }

  // The config that would result from applying `changes` on top of the current one, validated all
  // or nothing. Only dynamic keys may change. Throws ConfigError ("<key>: <reason>.", or Kafka's
  // exact sentence for a cordoned.log.dirs entry outside log.dirs) and changes nothing.
  BrokerConfig preview(const std::vector<ConfigAlteration>& changes) const;

  // Applies `changes` (validated again, as preview() does) and persists the dynamic layer
  // atomically (temp file, fsync, rename, fsync of the folder). Throws ConfigError if validation or
  // the write fails; then nothing changed.
  void commit(const std::vector<ConfigAlteration>& changes);

  // Re-reads the file (SIGHUP) and returns the config it would give with the current dynamic layer,
  // without adopting it. Static keys that changed are listed in `static_changes` (they need a
  // restart and keep their running values). Throws ConfigError.
  BrokerConfig reread(std::vector<std::string>* static_changes) const;
  // Adopts a config returned by the latest reread(). Throws std::logic_error for any other config.
  void adopt(const BrokerConfig& reread_config);

  // Every known key, then every strategy option that is set, with its effective value.
  std::vector<DescribedConfig> describe() const;

  // The strategies whose options (log.directory.select.<name>.*) the file sets, sorted: of the
  // file the latest reread() read while it is not adopted, else of the current one.
  std::vector<std::string> strategies_with_file_options() const;

  // The keys the file sets whose value a dynamic one overrides: (key, file value, dynamic value).
  std::vector<std::tuple<std::string, std::string, std::string>> file_values_overridden() const;

  // "<config file name>.dynamic" beside the config file (broker.toml.dynamic), in TOML, one quoted
  // flat key per line with a string value in the text form above.
  std::filesystem::path dynamic_file() const;

  // Whether a key may be changed at run time (log.directory.select.<name>.* included).
  static bool is_dynamic_key(const std::string& name);

 private:
  using Layer = std::map<std::string, detail::ConfigSetting>;
  struct PendingReread {
    Layer static_layer;
    BrokerConfig config;
  };

  // The dynamic layer with `changes` applied; checks names and ops, not values.
  Layer altered(const std::vector<ConfigAlteration>& changes) const;

  std::filesystem::path file_;
  Layer static_values_;   // from the file
  Layer dynamic_values_;  // from the dynamic layer
  BrokerConfig current_;
  mutable std::optional<PendingReread> pending_;  // set by reread(), consumed by adopt()
};

}  // namespace lds
