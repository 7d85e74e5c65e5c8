// config_keys.cpp: the table of configuration keys, with each key's validation and text form.
#include "config/config_keys.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <limits>
#include <vector>

#include "config/config_values.h"
#include "model/uuid.h"
#include "util/errors.h"

#ifndef LDS_DEFAULT_PLUGIN_DIR_RELATIVE
#define LDS_DEFAULT_PLUGIN_DIR_RELATIVE "../lib/lds/plugins"
#endif

namespace lds {

namespace fs = std::filesystem;
namespace {

using Setting = detail::ConfigSetting;
using detail::throw_key_error;
using namespace detail;  // the value parsers of config_values.h

// A week: rates decayed over longer than that describe another workload.
constexpr int64_t kMaxRateWindowMs = 7LL * 24 * 3600 * 1000;

constexpr std::string_view kLogLevels[] = {"trace", "debug", "info", "warn", "error", "off"};

constexpr ConfigKey kKeys[] = {
    {.name = "broker.id",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("0"),
     .dynamic = false,
     .parse = [](std::string_view key, const Setting& s, const fs::path&,
                 BrokerConfig& c) { c.broker_id = int32_at_least(s, key, 0); },
     .format = [](std::string_view, const BrokerConfig& c) { return std::to_string(c.broker_id); },
     .doc = "must match node.id (broker.id in version 0 files) in each log directory's "
            "meta.properties"},
    {.name = "cluster.id",
     .type = ConfigType::kString,
     .default_value = ConfigDefault::text_of(""),
     .dynamic = false,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           if (const std::string why = uuid_string_problem(s.text);
               !s.text.empty() && !why.empty()) {
             throw_key_error(s.where, key,
                             in_quotes(s.text) + " is not a Kafka Uuid (" + why +
                                 "); use 22 characters of URL-safe base64, as "
                                 "`kafka-storage.sh random-uuid` prints, or leave it empty");
           }
           c.cluster_id = s.text;
         },
     .format = [](std::string_view, const BrokerConfig& c) { return c.cluster_id; },
     .doc = "the cluster.id of new log directories' meta.properties, which every existing one "
            "must hold; empty: keep the one they hold, or generate one"},
    {.name = "log.dirs",
     .type = ConfigType::kPathList,
     .default_value = ConfigDefault::required(),
     .dynamic = false,
     .parse = parse_log_dirs,
     .format = [](std::string_view, const BrokerConfig& c) { return join_paths(c.log_dirs); },
     .doc = "the log directories; no repeats, no nesting"},
    {.name = "plugin.dir",
     .type = ConfigType::kPath,
     .default_value = ConfigDefault::beside_executable(LDS_DEFAULT_PLUGIN_DIR_RELATIVE),
     .dynamic = false,
     .parse = [](std::string_view key, const Setting& s, const fs::path& base,
                 BrokerConfig& c) { c.plugin_dir = non_empty_path(s, key, base); },
     .format = [](std::string_view, const BrokerConfig& c) { return c.plugin_dir.string(); },
     .doc = "the folder strategy libraries liblds_<name>.so are loaded from"},
    {.name = "admin.socket",
     .type = ConfigType::kPath,
     .default_value = ConfigDefault::text_of("lds-admin.sock"),
     .dynamic = false,
     .parse = [](std::string_view key, const Setting& s, const fs::path& base,
                 BrokerConfig& c) { c.admin_socket = non_empty_path(s, key, base); },
     .format = [](std::string_view, const BrokerConfig& c) { return c.admin_socket.string(); },
     .doc = "the admin API's Unix socket"},
    {.name = "admin.max.connections",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("64"),
     .dynamic = false,
     .parse = [](std::string_view key, const Setting& s, const fs::path&,
                 BrokerConfig& c) { c.admin_max_connections = int32_at_least(s, key, 1); },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.admin_max_connections); },
     .doc = "admin connections open at once; one more gets an error line and is closed"},
    {.name = "admin.connection.idle.ms",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("600000"),
     .dynamic = false,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           c.admin_connection_idle_ms =
               int_in_range(s, key, 1, std::numeric_limits<int32_t>::max());
         },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.admin_connection_idle_ms); },
     .doc = "an admin connection with no request for this long is closed"},
    {.name = "listeners",
     .type = ConfigType::kString,
     .default_value = ConfigDefault::text_of(""),
     .dynamic = false,
     .parse = parse_listeners,
     .format = format_listeners,
     .doc = "the Kafka protocol listener, PLAINTEXT://host:port (port 0: any free port); empty "
            "for none"},
    {.name = "metrics.listener",
     .type = ConfigType::kString,
     .default_value = ConfigDefault::text_of(""),
     .dynamic = false,
     .parse = parse_metrics_listener,
     .format = format_metrics_listener,
     .doc = "the Prometheus endpoint, http://host:port, serving /metrics (port 0: any free port); "
            "empty for none"},
    {.name = "socket.request.max.bytes",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("104857600"),
     // Read-only in Kafka (its dynamic update mode): a restart applies a change.
     .dynamic = false,
     .parse = [](std::string_view key, const Setting& s, const fs::path&,
                 BrokerConfig& c) { c.socket_request_max_bytes = int32_at_least(s, key, 1); },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.socket_request_max_bytes); },
     .doc = "the most bytes one request may carry: a larger Kafka frame closes its connection, "
            "and an admin Produce above it is refused with INVALID_REQUEST"},
    {.name = "fetch.max.bytes",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("57671680"),
     // Read-only in Kafka (ServerConfigs, not among the dynamic configs): a restart applies it.
     .dynamic = false,
     .parse = [](std::string_view key, const Setting& s, const fs::path&,
                 BrokerConfig& c) { c.fetch_max_bytes = int32_at_least(s, key, 1024); },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.fetch_max_bytes); },
     .doc = "the most bytes of records one Fetch answers, whatever its max_bytes asks; the first "
            "batch comes whole all the same"},
    {.name = "connections.max.idle.ms",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("600000"),
     // Read-only in Kafka (not among SocketServer's reconfigurable configs): a restart applies it.
     .dynamic = false,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           // Kafka's type (long) with no bound: negative keeps idle connections open.
           const std::optional<int64_t> value = parse_int(s.text);
           if (!value) {
             throw ConfigError(s.where + "Invalid value " + printable(s.text) +
                               " for configuration " + std::string(key) +
                               ": Not a number of type LONG.");
           }
           c.connections_max_idle_ms = *value;
         },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.connections_max_idle_ms); },
     .doc = "a Kafka connection with no byte read or written for this long is closed; negative: "
            "never"},
    {.name = "num.replica.alter.log.dirs.threads",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("1"),
     .dynamic = false,
     .parse = [](std::string_view key, const Setting& s, const fs::path&,
                 BrokerConfig& c) { c.mover_threads = int32_at_least(s, key, 1); },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.mover_threads); },
     .doc = "threads that move replicas between log directories"},
    {.name = "plugin.never.unload",
     .type = ConfigType::kBool,
     .default_value = ConfigDefault::text_of("false"),
     .dynamic = false,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           if (s.text != "true" && s.text != "false") {
             throw_key_error(s.where, key, "must be true or false, not " + in_quotes(s.text));
           }
           c.never_unload = s.text == "true";
         },
     .format = [](std::string_view, const BrokerConfig& c) { return bool_text(c.never_unload); },
     .doc = "keep replaced strategy libraries mapped instead of closing them"},
    {.name = "log.directory.select.strategy",
     .type = ConfigType::kString,
     .default_value = ConfigDefault::text_of("partition"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           if (!is_plugin_name(s.text)) {
             throw_key_error(
                 s.where, key,
                 "must be a strategy name matching [a-z0-9_]+, not " + in_quotes(s.text));
           }
           c.strategy = s.text;
         },
     .format = [](std::string_view, const BrokerConfig& c) { return c.strategy; },
     .doc = "the strategy that picks a log directory for each new partition"},
    {.name = "plugin.validation.timeout.ms",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("5000"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           // Bounded by int32 so that a deadline this far ahead never overflows the clock.
           c.plugin_validation_timeout_ms =
               int_in_range(s, key, 1, std::numeric_limits<int32_t>::max());
         },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.plugin_validation_timeout_ms); },
     .doc = "how long a strategy's create and dry-run rank may take when it is loaded; past it the "
            "load is refused and the thread inside the plugin is abandoned"},
    {.name = "cordoned.log.dirs",
     .type = ConfigType::kPathList,
     .default_value = ConfigDefault::text_of(""),
     .dynamic = true,
     .parse = parse_cordoned,
     .format =
         [](std::string_view, const BrokerConfig& c) {
           return c.cordon_all ? std::string("*") : join_paths(c.cordoned);
         },
     .doc = "log directories that take no new partitions; \"*\" for all"},
    {.name = "log.partition.expected.bytes",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("0"),
     .dynamic = true,
     .parse = [](std::string_view key, const Setting& s, const fs::path&,
                 BrokerConfig& c) { c.partition_expected_bytes = count_of(s, key); },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.partition_expected_bytes); },
     .doc = "expected size of a partition whose request gives none; 0 for the mean hosted size"},
    {.name = "log.dir.rate.window.ms",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("300000"),
     .dynamic = true,
     .parse = [](std::string_view key, const Setting& s, const fs::path&,
                 BrokerConfig& c) { c.rate_window_ms = int_in_range(s, key, 1, kMaxRateWindowMs); },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.rate_window_ms); },
     .doc = "time constant of the decayed append rates strategies see (lds_dir.bytes_in_per_sec)"},
    {.name = "log.index.interval.bytes",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("4096"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           // Kafka's type (int) and lower bound (0).
           c.index_interval_bytes =
               static_cast<uint32_t>(int_in_range(s, key, 0, std::numeric_limits<int32_t>::max()));
         },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.index_interval_bytes); },
     .doc = "bytes of a segment between two entries of its offset index (.index, .timeindex)"},
    {.name = "log.segment.bytes",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("1073741824"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           // Kafka's lower bound (LegacyRecord.RECORD_OVERHEAD_V0) and int type.
           c.segment_bytes =
               static_cast<uint64_t>(int_in_range(s, key, 14, std::numeric_limits<int32_t>::max()));
         },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.segment_bytes); },
     .doc = "size at which a partition's active segment rolls; an append never splits a request"},
    {.name = "message.max.bytes",
     .type = ConfigType::kInt,
     // Kafka's default: 1 MiB plus the 12-byte log overhead of a batch (Records.LOG_OVERHEAD).
     .default_value = ConfigDefault::text_of("1048588"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           // Kafka's type (int) and lower bound (0).
           c.max_message_bytes =
               static_cast<uint64_t>(int_in_range(s, key, 0, std::numeric_limits<int32_t>::max()));
         },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.max_message_bytes); },
     .doc = "the largest record batch a Produce may carry; a larger one is refused with "
            "MESSAGE_TOO_LARGE and nothing of that partition's records is written"},
    {.name = "max.connections",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("2147483647"),
     // Dynamic in Kafka too (SocketServer.ReconfigurableConfigs).
     .dynamic = true,
     .parse = [](std::string_view key, const Setting& s, const fs::path&,
                 BrokerConfig& c) { c.max_connections = int32_at_least(s, key, 0); },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.max_connections); },
     .doc = "Kafka connections open at once; a client beyond it waits, unaccepted, until one "
            "closes, and lowering it closes the least recently active"},
    {.name = "log.level",
     .type = ConfigType::kString,
     .default_value = ConfigDefault::text_of("info"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           if (std::find(std::begin(kLogLevels), std::end(kLogLevels), s.text) ==
               std::end(kLogLevels)) {
             throw_key_error(
                 s.where, key,
                 "must be one of trace, debug, info, warn, error, off, not " + in_quotes(s.text));
           }
           c.log_level = s.text;
         },
     .format = [](std::string_view, const BrokerConfig& c) { return c.log_level; },
     .doc = "the host's log level: trace, debug, info, warn, error or off"},
    {.name = "replica.alter.log.dirs.io.max.bytes.per.second",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("9223372036854775807"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           c.alter_log_dirs_bytes_per_second = kafka_long_at_least_zero(s, key);
         },
     .format =
         [](std::string_view, const BrokerConfig& c) {
           return std::to_string(c.alter_log_dirs_bytes_per_second);
         },
     .doc =
         "bytes per second all replica moves together may copy; 9223372036854775807 (Kafka's "
         "Long.MAX_VALUE) for no limit; 0 lets no byte through, so moves wait until it is raised"},
    // The intra-broker balancer (balance/balancer.h).
    {.name = "log.dir.balance.enable",
     .type = ConfigType::kBool,
     .default_value = ConfigDefault::text_of("false"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           if (s.text != "true" && s.text != "false") {
             throw_key_error(s.where, key, "must be true or false, not " + in_quotes(s.text));
           }
           c.balance.enable = s.text == "true";
         },
     .format = [](std::string_view, const BrokerConfig& c) { return bool_text(c.balance.enable); },
     .doc = "turns the intra-broker balancer on"},
    {.name = "log.dir.balance.threshold.percent",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("10"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           c.balance.threshold_percent = static_cast<double>(int_in_range(s, key, 1, 100));
         },
     .format =
         [](std::string_view, const BrokerConfig& c) {
           return std::to_string(static_cast<int64_t>(c.balance.threshold_percent));
         },
     .doc = "the allowed spread, max fill minus min fill over online, uncordoned dirs, in "
            "percentage points; a round plans down to half of it"},
    {.name = "log.dir.balance.interval.ms",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("60000"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           c.balance.interval_ms = int_in_range(s, key, 1, std::numeric_limits<int32_t>::max());
         },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.balance.interval_ms); },
     .doc = "how often the balancer checks the spread"},
    {.name = "log.dir.balance.max.concurrent.moves",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("2"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           c.balance.max_concurrent_moves = static_cast<int32_t>(int_in_range(s, key, 1, 1024));
         },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.balance.max_concurrent_moves); },
     .doc = "replica moves the balancer or a drain runs at once"},
    {.name = "log.dir.balance.cooldown.ms",
     .type = ConfigType::kInt,
     .default_value = ConfigDefault::text_of("3600000"),
     .dynamic = true,
     .parse =
         [](std::string_view key, const Setting& s, const fs::path&, BrokerConfig& c) {
           c.balance.cooldown_ms = int_in_range(s, key, 0, std::numeric_limits<int64_t>::max());
         },
     .format = [](std::string_view,
                  const BrokerConfig& c) { return std::to_string(c.balance.cooldown_ms); },
     .doc = "a partition the balancer moved is not moved again before this"},
};

}  // namespace

const ConfigKey kStrategyOptionRule = {
    .name = "log.directory.select.<name>.<option>",
    .type = ConfigType::kScalar,
    .default_value = ConfigDefault::absent(),
    .dynamic = true,
    .parse = parse_strategy_option,
    .format = format_strategy_option,
    .doc = "an option passed to strategy <name>, which refuses options it does not know"};

std::span<const ConfigKey> config_keys() { return kKeys; }

std::string_view kafka_type_name(const ConfigKey& key) {
  switch (key.type) {
    case ConfigType::kBool:
      return "BOOLEAN";
    case ConfigType::kInt:
      return key.name.ends_with(".ms") || key.name.ends_with(".per.second") ||
                     key.name == "log.partition.expected.bytes"
                 ? "LONG"
                 : "INT";
    case ConfigType::kPathList:
      return key.name == "log.dirs" ? "STRING" : "LIST";
    case ConfigType::kString:
    case ConfigType::kPath:
    case ConfigType::kScalar:
      return "STRING";
  }
  return "STRING";
}

std::optional<StrategyOptionName> split_strategy_option(std::string_view name) {
  if (!name.starts_with(kStrategyOptionPrefix)) return std::nullopt;
  std::string_view rest = name.substr(kStrategyOptionPrefix.size());
  size_t dot = rest.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == rest.size()) return std::nullopt;
  return StrategyOptionName{std::string(rest.substr(0, dot)), std::string(rest.substr(dot + 1))};
}

const ConfigKey* find_config_key(std::string_view name) {
  for (const ConfigKey& key : kKeys) {
    if (key.name == name) return &key;
  }
  return split_strategy_option(name) ? &kStrategyOptionRule : nullptr;
}

namespace detail {

void throw_key_error(const std::string& where, std::string_view key, const std::string& reason) {
  throw ConfigError(where + printable(std::string(key) + ": " + reason) + ".");
}

std::string join_list(std::span<const std::string> entries) {
  std::string out;
  for (const std::string& entry : entries) {
    if (!out.empty()) out += ',';
    out += entry;
  }
  return out;
}

}  // namespace detail
}  // namespace lds
