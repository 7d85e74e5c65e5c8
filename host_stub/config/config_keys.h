// config_keys.h: the table of configuration keys: for each key its name, type, default, whether it
// is dynamic, how its value is parsed into BrokerConfig and formatted back, and one line of docs.
//
// ConfigStore reads, validates, describes and persists every key through this table, so a key is
// added or changed in one place. The table of docs/configuration.md is checked against it by
// tests/config/config_keys_test.cpp.
#pragma once

#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "config/config.h"

namespace lds {

// How a key's value is written: in TOML in the file, and as Kafka's text form in requests and the
// dynamic file.
enum class ConfigType {
  kInt,       // a TOML integer; decimal text
  kBool,      // a TOML boolean; true or false
  kString,    // a TOML string
  kPath,      // a TOML string naming a path; relative paths resolve against the config's folder
  kPathList,  // a TOML array of strings or one comma-separated string; comma-separated text
  kScalar,    // a string, integer, boolean or float, kept as text (strategy options)
};

// What a key holds when no layer sets it.
struct ConfigDefault {
  enum class Kind {
    kRequired,          // nothing: the config is refused without the key
    kAbsent,            // nothing, and that is fine (strategy options)
    kText,              // `text`, parsed as if the file said it
    kBesideExecutable,  // `text`, a path resolved against the executable's folder, not the config's
  };
  Kind kind;
  std::string_view text;

  static constexpr ConfigDefault required() { return {Kind::kRequired, {}}; }
  static constexpr ConfigDefault absent() { return {Kind::kAbsent, {}}; }
  static constexpr ConfigDefault text_of(std::string_view value) { return {Kind::kText, value}; }
  static constexpr ConfigDefault beside_executable(std::string_view path) {
    return {Kind::kBesideExecutable, path};
  }
};

// One row of the table.
struct ConfigKey {
  // Validates `value` and stores it in `config`; throws ConfigError naming value.where and `key`.
  // `base` is the folder relative paths resolve against. log.dirs is parsed before every other
  // key and cordoned.log.dirs after them, since a cordon must name one of the log dirs.
  using Parse = void (*)(std::string_view key, const detail::ConfigSetting& value,
                         const std::filesystem::path& base, BrokerConfig& config);
  // The key's effective value in the text form: what DescribeConfigs shows.
  using Format = std::string (*)(std::string_view key, const BrokerConfig& config);

  std::string_view name;
  ConfigType type;
  ConfigDefault default_value;
  bool dynamic;
  Parse parse;
  Format format;
  std::string_view doc;
};

// The type of `key` as Kafka's ConfigDef names it in DescribeConfigs (v3+): BOOLEAN, STRING, INT,
// LONG (integers Kafka defines as longs: durations in ms and byte rates) or LIST. log.dirs is a
// STRING in Kafka, though a list here.
std::string_view kafka_type_name(const ConfigKey& key);

// Every key except the strategy options, in the order DescribeConfigs lists them.
std::span<const ConfigKey> config_keys();

// log.directory.select.<name>.<option>: options passed to strategy <name>, a family of keys rather
// than one. Its name is the pattern; parse and format take the full key.
extern const ConfigKey kStrategyOptionRule;
inline constexpr std::string_view kStrategyOptionPrefix = "log.directory.select.";

// The strategy name and option of a log.directory.select.<name>.<option> key; nullopt for any
// other key (log.directory.select.strategy among them: it has no option part).
struct StrategyOptionName {
  std::string strategy;
  std::string option;
};
std::optional<StrategyOptionName> split_strategy_option(std::string_view name);

// The row of `name`: a table key, kStrategyOptionRule for a strategy option, or nullptr when the
// key is unknown.
const ConfigKey* find_config_key(std::string_view name);

namespace detail {
// Throws ConfigError "<where><key>: <reason>.", with control characters shown as \uXXXX: a key or
// value quoted in an error may hold any, and a NUL would cut the message short, a newline split it.
[[noreturn]] void throw_key_error(const std::string& where, std::string_view key,
                                  const std::string& reason);
// List entries joined with ",", the text form of a list.
std::string join_list(std::span<const std::string> entries);
}  // namespace detail

}  // namespace lds
