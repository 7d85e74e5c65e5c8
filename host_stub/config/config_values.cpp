// config_values.cpp: the parsers, checks and text forms of configuration values (config_values.h).
#include "config/config_values.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <iterator>
#include <limits>
#include <utility>

#include "util/errors.h"

namespace lds::detail {

// Built by appending: GCC 12 at -O3 reports a false -Wrestrict on `"\"" + std::string(s)`.
std::string in_quotes(std::string_view s) {
  std::string quoted;
  quoted.reserve(s.size() + 2);
  quoted.append(1, '"').append(s).append(1, '"');
  return quoted;
}

std::string join_paths(const std::vector<fs::path>& paths) {
  std::vector<std::string> parts;
  parts.reserve(paths.size());
  for (const fs::path& p : paths) parts.push_back(p.string());
  return detail::join_list(parts);
}

// `text` with control characters shown as \uXXXX.
std::string printable(std::string_view text) {
  std::string out;
  for (char ch : text) {
    const unsigned char u = static_cast<unsigned char>(ch);
    if (u < 0x20 || u == 0x7F) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04X", u);
      out += escape;
    } else {
      out += ch;
    }
  }
  return out;
}

// A list as Java prints one (AbstractCollection.toString): "[/a, /b]".
std::string java_list(const std::vector<std::string>& items) {
  std::string out = "[";
  for (size_t i = 0; i < items.size(); ++i) out += (i > 0 ? ", " : "") + printable(items[i]);
  return out + "]";
}

// Kafka's exact sentence (KIP-1066, DynamicLogConfig's validation), in ConfigException's frame
// "Invalid value <value> for configuration <name>: <message>", naming every bad entry at once; the
// admin API returns it as the INVALID_CONFIG message.
[[noreturn]] void throw_cordon_error(const std::string& where,
                                     const std::vector<std::string>& value,
                                     const std::vector<std::string>& invalid) {
  throw ConfigError(where + "Invalid value " + java_list(value) +
                    " for configuration cordoned.log.dirs: Invalid entries in cordoned.log.dirs: " +
                    java_list(invalid) +
                    ". All cordoned log dirs must be entries of log.dirs or log.dir.");
}

bool is_plugin_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
  });
}

std::optional<int64_t> parse_int(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

int64_t int_in_range(const ConfigSetting& s, std::string_view key, int64_t min, int64_t max) {
  std::optional<int64_t> value = parse_int(s.text);
  if (!value || *value < min || *value > max) {
    std::string range =
        max == std::numeric_limits<int64_t>::max()
            ? "an integer >= " + std::to_string(min)
            : "an integer from " + std::to_string(min) + " to " + std::to_string(max);
    throw_key_error(s.where, key, "must be " + range + ", not " + in_quotes(s.text));
  }
  return *value;
}

int32_t int32_at_least(const ConfigSetting& s, std::string_view key, int32_t min) {
  return static_cast<int32_t>(int_in_range(s, key, min, std::numeric_limits<int32_t>::max()));
}

// A Kafka LONG config with Range.atLeast(0), refused with the text of Kafka's ConfigException
// ("Invalid value <v> for configuration <key>: <why>") from ConfigDef.parseType and
// Range.ensureValid, with the full stop every error here ends with.
uint64_t kafka_long_at_least_zero(const ConfigSetting& s, std::string_view key) {
  std::optional<int64_t> value = parse_int(s.text);
  if (!value || *value < 0) {
    throw ConfigError(s.where + "Invalid value " + printable(s.text) + " for configuration " +
                      std::string(key) +
                      (value ? ": Value must be at least 0." : ": Not a number of type LONG."));
  }
  return static_cast<uint64_t>(*value);
}

uint64_t count_of(const ConfigSetting& s, std::string_view key) {
  return static_cast<uint64_t>(int_in_range(s, key, 0, std::numeric_limits<int64_t>::max()));
}

fs::path non_empty_path(const ConfigSetting& s, std::string_view key, const fs::path& base) {
  if (s.text.empty()) throw_key_error(s.where, key, "must not be empty");
  return canonical_path(base, s.text);
}

// Whether `inner` lies strictly inside `outer`; both canonical.
bool is_inside(const fs::path& inner, const fs::path& outer) {
  auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return o == outer.end() && i != inner.end();
}

void parse_log_dirs(std::string_view key, const ConfigSetting& s, const fs::path& base,
                    BrokerConfig& c) {
  if (s.items.empty()) throw_key_error(s.where, key, "must not be empty");
  std::vector<fs::path> dirs;
  for (size_t i = 0; i < s.items.size(); ++i) {
    fs::path dir = canonical_path(base, s.items[i]);
    for (size_t j = 0; j < dirs.size(); ++j) {
      if (dir == dirs[j]) {
        throw_key_error(s.item_where[i], key,
                        in_quotes(s.items[i]) + " is the same directory as " +
                            in_quotes(s.items[j]) + " (" + dir.string() + ")");
      }
      if (is_inside(dir, dirs[j]) || is_inside(dirs[j], dir)) {
        bool inner = is_inside(dir, dirs[j]);
        throw_key_error(s.item_where[i], key,
                        in_quotes(s.items[i]) + (inner ? " is inside " : " contains ") +
                            in_quotes(s.items[j]) + "; log directories must not nest");
      }
    }
    dirs.push_back(std::move(dir));
  }
  c.log_dirs = std::move(dirs);
}

void parse_cordoned(std::string_view key, const ConfigSetting& s, const fs::path& base,
                    BrokerConfig& c) {
  std::vector<std::string> invalid;
  std::string first_invalid_at;  // where the first bad entry is written
  for (size_t i = 0; i < s.items.size(); ++i) {
    if (s.items[i] == "*") {
      if (s.items.size() != 1)
        throw_key_error(s.item_where[i], key, "\"*\" must be the only entry");
      c.cordon_all = true;
      return;
    }
    fs::path dir = canonical_path(base, s.items[i]);
    if (std::find(c.log_dirs.begin(), c.log_dirs.end(), dir) == c.log_dirs.end()) {
      if (invalid.empty()) first_invalid_at = s.item_where[i];
      invalid.push_back(s.items[i]);
      continue;
    }
    if (std::find(c.cordoned.begin(), c.cordoned.end(), dir) == c.cordoned.end()) {
      c.cordoned.push_back(std::move(dir));
    }
  }
  if (!invalid.empty()) throw_cordon_error(first_invalid_at, s.items, invalid);
}

void parse_strategy_option(std::string_view key, const ConfigSetting& s, const fs::path&,
                           BrokerConfig& c) {
  std::optional<StrategyOptionName> option = split_strategy_option(key);
  if (!option) throw_key_error(s.where, key, "unknown config key");
  if (!is_plugin_name(option->strategy)) {
    throw_key_error(s.where, key,
                    "strategy name " + in_quotes(option->strategy) + " must match [a-z0-9_]+");
  }
  c.strategy_options[option->strategy][option->option] = s.text;
}

std::string format_strategy_option(std::string_view key, const BrokerConfig& c) {
  std::optional<StrategyOptionName> option = split_strategy_option(key);
  if (!option) return "";
  auto strategy = c.strategy_options.find(option->strategy);
  if (strategy == c.strategy_options.end()) return "";
  auto value = strategy->second.find(option->option);
  return value == strategy->second.end() ? "" : value->second;
}

std::string bool_text(bool value) { return value ? "true" : "false"; }

// "host:port" or "[v6]:port" of a listener URL, after its scheme; `expected` completes the error.
static std::pair<std::string, int32_t> host_and_port(std::string_view key, const ConfigSetting& s,
                                                     std::string_view rest,
                                                     const std::string& expected) {
  std::string_view host;
  std::string_view port;
  if (rest.starts_with('[')) {
    const size_t close = rest.find(']');
    if (close == std::string_view::npos || rest.substr(close + 1, 1) != ":") {
      throw_key_error(s.where, key, expected);
    }
    host = rest.substr(1, close - 1);
    port = rest.substr(close + 2);
  } else {
    const size_t colon = rest.rfind(':');
    if (colon == std::string_view::npos) throw_key_error(s.where, key, expected);
    host = rest.substr(0, colon);
    port = rest.substr(colon + 1);
  }
  if (host.empty() || host.find_first_of(" /") != std::string_view::npos) {
    throw_key_error(s.where, key, "must name a host to listen on, " + expected);
  }
  std::optional<int64_t> number = parse_int(port);
  if (!number || *number < 0 || *number > 65535) {
    throw_key_error(s.where, key,
                    "has port " + in_quotes(port) + "; a port is 0 (any free port) to 65535");
  }
  return {std::string(host), static_cast<int32_t>(*number)};
}

// Kafka's listener format, PLAINTEXT://host:port (an IPv6 host in brackets). One listener, and
// only PLAINTEXT: this broker speaks no TLS or SASL.
void parse_listeners(std::string_view key, const ConfigSetting& s, const fs::path&,
                     BrokerConfig& c) {
  c.listener_host.clear();
  c.listener_port = 0;
  const std::string& text = s.text;
  if (text.empty()) return;
  const std::string expected =
      "must be PLAINTEXT://host:port (for example "
      "PLAINTEXT://127.0.0.1:9092), or empty for no listener, not " +
      in_quotes(text);
  if (text.find(',') != std::string::npos) {
    throw_key_error(s.where, key,
                    "names more than one listener in " + in_quotes(text) +
                        "; this broker has one PLAINTEXT listener");
  }
  const size_t scheme_end = text.find("://");
  if (scheme_end == std::string::npos) throw_key_error(s.where, key, expected);
  std::string protocol = text.substr(0, scheme_end);
  std::string upper = protocol;
  std::transform(upper.begin(), upper.end(), upper.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::toupper(ch)); });
  if (upper != "PLAINTEXT") {
    throw_key_error(s.where, key,
                    "only the PLAINTEXT security protocol is supported, not " +
                        in_quotes(protocol) + " in " + in_quotes(text));
  }
  const auto [host, port] =
      host_and_port(key, s, std::string_view(text).substr(scheme_end + 3), expected);
  c.listener_host = host;
  c.listener_port = port;
}

void parse_metrics_listener(std::string_view key, const ConfigSetting& s, const fs::path&,
                            BrokerConfig& c) {
  c.metrics_host.clear();
  c.metrics_port = 0;
  const std::string& text = s.text;
  if (text.empty()) return;
  const std::string expected =
      "must be http://host:port (for example http://127.0.0.1:9404), or empty for none, not " +
      in_quotes(text);
  if (!text.starts_with("http://")) throw_key_error(s.where, key, expected);
  const auto [host, port] = host_and_port(key, s, std::string_view(text).substr(7), expected);
  c.metrics_host = host;
  c.metrics_port = port;
}

// "<scheme>host:port", an IPv6 host in brackets; "" when there is no host (no listener).
static std::string listener_text(const char* scheme, const std::string& host, int32_t port) {
  if (host.empty()) return "";
  const bool ipv6 = host.find(':') != std::string::npos;
  return scheme + (ipv6 ? "[" + host + "]" : host) + ":" + std::to_string(port);
}

std::string format_metrics_listener(std::string_view, const BrokerConfig& c) {
  return listener_text("http://", c.metrics_host, c.metrics_port);
}

std::string format_listeners(std::string_view, const BrokerConfig& c) {
  return listener_text("PLAINTEXT://", c.listener_host, c.listener_port);
}

}  // namespace lds::detail
