// config_file.h: reading a TOML config file into a layer of settings, each with the
// file:line:column it was written at, and the dynamic override file's text and its atomic write.
// Internal to ConfigStore (config/config.cpp), which builds the effective BrokerConfig from layers.
#pragma once

#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "config/config_keys.h"

namespace lds {
namespace detail {

// One layer of ConfigStore (the file, or the dynamic overrides): settings by flat key name.
using ConfigLayer = std::map<std::string, ConfigSetting>;

// A value that arrives as text: a request, the dynamic file, or a default.
ConfigSetting text_setting(const ConfigKey& key, const std::string& text, const std::string& where);

// The keys `file` sets, each known to the key table, set once and of its TOML type. Throws
// ConfigError naming file:line:column and the key.
ConfigLayer read_static_layer(const std::filesystem::path& file);
// The keys the dynamic file sets, each a string in the text form; empty when the file does not
// exist. Throws ConfigError as read_static_layer() does. With `ignored`, an entry whose key is
// unknown or whose value is not a string is left out and its error appended there instead; a
// file that is not TOML still throws.
ConfigLayer read_dynamic_layer(const std::filesystem::path& file,
                               std::vector<std::string>* ignored = nullptr);

// The text of one string-valued key of `file`, read leniently for the admin client: the rest of
// the file is not checked, and when the file is not valid TOML the key is still found on a line of
// its own (`key = "value"`, or `name = "value"` under its `[table]`). nullopt when the key is not
// set. Throws ConfigError only when the file cannot be read.
std::optional<std::string> read_one_string_setting(const std::filesystem::path& file,
                                                   std::string_view key);

// The dynamic file's content for `layer`: one quoted flat key per line with a string value.
std::string dynamic_file_text(const std::filesystem::path& config_file, const ConfigLayer& layer);
// Replaces `file` with `content` so that a crash leaves the old or the new file, never a mix
// (io/durable_file), and says which step failed in the config layer's words.
void write_atomically(const std::filesystem::path& file, const std::string& content);

}  // namespace detail
}  // namespace lds
