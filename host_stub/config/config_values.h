// config_values.h: the parsers, checks and text forms of configuration values that the key table
// (config_keys.cpp) is made of: integers in a range, paths, log-dir lists, cordons, listeners, and
// the quoting and list forms of their error messages. Internal to lds_core.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config_keys.h"

namespace lds::detail {

namespace fs = std::filesystem;

// Built by appending: GCC 12 at -O3 reports a false -Wrestrict on `"\"" + std::string(s)`.
std::string in_quotes(std::string_view s);

std::string join_paths(const std::vector<fs::path>& paths);

// `text` with control characters shown as \uXXXX.
std::string printable(std::string_view text);

// A list as Java prints one (AbstractCollection.toString): "[/a, /b]".
std::string java_list(const std::vector<std::string>& items);

// Kafka's exact sentence (KIP-1066, DynamicLogConfig's validation), in ConfigException's frame
// "Invalid value <value> for configuration <name>: <message>", naming every bad entry at once; the
// admin API returns it as the INVALID_CONFIG message.
[[noreturn]] void throw_cordon_error(const std::string& where,
                                     const std::vector<std::string>& value,
                                     const std::vector<std::string>& invalid);

bool is_plugin_name(std::string_view s);

std::optional<int64_t> parse_int(std::string_view text);

int64_t int_in_range(const ConfigSetting& s, std::string_view key, int64_t min, int64_t max);

int32_t int32_at_least(const ConfigSetting& s, std::string_view key, int32_t min);

// A Kafka LONG config with Range.atLeast(0), refused with the text of Kafka's ConfigException
// ("Invalid value <v> for configuration <key>: <why>") from ConfigDef.parseType and
// Range.ensureValid, with the full stop every error here ends with.
uint64_t kafka_long_at_least_zero(const ConfigSetting& s, std::string_view key);

uint64_t count_of(const ConfigSetting& s, std::string_view key);

fs::path non_empty_path(const ConfigSetting& s, std::string_view key, const fs::path& base);

// Whether `inner` lies strictly inside `outer`; both canonical.
bool is_inside(const fs::path& inner, const fs::path& outer);

void parse_log_dirs(std::string_view key, const ConfigSetting& s, const fs::path& base,
                    BrokerConfig& c);

void parse_cordoned(std::string_view key, const ConfigSetting& s, const fs::path& base,
                    BrokerConfig& c);

void parse_strategy_option(std::string_view key, const ConfigSetting& s, const fs::path&,
                           BrokerConfig& c);

std::string format_strategy_option(std::string_view key, const BrokerConfig& c);

std::string bool_text(bool value);

// Kafka's listener format, PLAINTEXT://host:port (an IPv6 host in brackets). One listener, and
// only PLAINTEXT: this broker speaks no TLS or SASL.
void parse_listeners(std::string_view key, const ConfigSetting& s, const fs::path&,
                     BrokerConfig& c);

std::string format_listeners(std::string_view, const BrokerConfig& c);
// metrics.listener: http://host:port, or empty for none.
void parse_metrics_listener(std::string_view key, const ConfigSetting& s, const fs::path&,
                            BrokerConfig& c);
std::string format_metrics_listener(std::string_view, const BrokerConfig& c);

}  // namespace lds::detail
