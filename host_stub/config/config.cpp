// config.cpp: the effective BrokerConfig (DYNAMIC > STATIC > DEFAULT), built from the layers
// config/config_file reads with every value checked by the key table (config/config_keys.h), and
// ConfigStore, which previews, commits, rereads and describes it.
#include "config/config.h"

#include <algorithm>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <string_view>

#include "config/config_file.h"
#include "config/config_keys.h"
#include "util/logging.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using Setting = detail::ConfigSetting;
using Layer = detail::ConfigLayer;

using detail::dynamic_file_text;
using detail::read_dynamic_layer;
using detail::read_static_layer;
using detail::text_setting;
using detail::throw_key_error;
using detail::write_atomically;

std::shared_ptr<spdlog::logger> config_log() {
  static auto l = logger("lds.config");
  return l;
}

// The folder defaults beside the executable resolve against (the working directory if unknown).
fs::path executable_folder() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::current_path(ec) : exe.parent_path();
}

// --- Building the effective config from the layers -------------------------------------------

// Validates one key's value and stores it in `c`.
void apply(BrokerConfig& c, const fs::path& base, const std::string& name, const Setting& s) {
  const ConfigKey* key = find_config_key(name);
  if (!key) throw_key_error(s.where, name, "unknown config key");
  key->parse(name, s, base, c);
}

// The effective config of the two layers over the table's defaults, every value validated. Throws
// ConfigError.
BrokerConfig build(const fs::path& file, const Layer& static_layer, const Layer& dynamic_layer) {
  const fs::path base = file.parent_path();
  Layer merged = static_layer;
  for (const auto& [name, setting] : dynamic_layer) {
    const ConfigKey* key = find_config_key(name);
    if (!key) throw_key_error(setting.where, name, "unknown config key");
    if (!key->dynamic) {
      throw_key_error(
          setting.where, name,
          "cannot be altered dynamically; it is a static config (edit the file and restart)");
    }
    merged.insert_or_assign(name, setting);
  }

  BrokerConfig c;
  c.file = file;
  for (const ConfigKey& key : config_keys()) {
    const std::string name(key.name);
    if (merged.count(name)) continue;
    const ConfigDefault& fallback = key.default_value;
    switch (fallback.kind) {
      case ConfigDefault::Kind::kRequired:
        throw ConfigError(file.string() + ": " + name + ": is required.");
      case ConfigDefault::Kind::kAbsent:
        break;
      case ConfigDefault::Kind::kText:
        key.parse(name, text_setting(key, std::string(fallback.text), ""), base, c);
        break;
      case ConfigDefault::Kind::kBesideExecutable:
        key.parse(name, text_setting(key, std::string(fallback.text), ""), executable_folder(), c);
        break;
    }
  }

  // log.dirs first and cordoned.log.dirs last: the cordon is checked against the log dirs.
  if (auto dirs = merged.find("log.dirs"); dirs != merged.end()) {
    apply(c, base, dirs->first, dirs->second);
  }
  for (const auto& [name, setting] : merged) {
    if (name != "log.dirs" && name != "cordoned.log.dirs") apply(c, base, name, setting);
  }
  if (auto cordon = merged.find("cordoned.log.dirs"); cordon != merged.end()) {
    apply(c, base, cordon->first, cordon->second);
  }
  return c;
}

// Removes from the dynamic cordoned.log.dirs of `layer` its entries that are not in the file's
// log.dirs, and returns them as written. A drained disk is retired by taking it out of log.dirs:
// its cordon has nothing left to guard. "*" is never pruned. When no entry is left the key goes
// too, unless the file sets a cordon the empty dynamic value still overrides.
std::vector<std::string> prune_retired_cordons(const fs::path& file, const Layer& static_layer,
                                               Layer& layer) {
  const std::string name = "cordoned.log.dirs";
  auto cordon = layer.find(name);
  auto dirs = static_layer.find("log.dirs");
  if (cordon == layer.end() || dirs == static_layer.end()) return {};
  const fs::path base = file.parent_path();
  BrokerConfig c;
  try {
    apply(c, base, dirs->first, dirs->second);
  } catch (const ConfigError&) {
    return {};  // build() reports a bad log.dirs
  }
  std::vector<std::string> kept, pruned;
  for (const std::string& entry : cordon->second.items) {
    if (entry == "*") return {};
    const bool listed = std::find(c.log_dirs.begin(), c.log_dirs.end(),
                                  canonical_path(base, entry)) != c.log_dirs.end();
    (listed ? kept : pruned).push_back(entry);
  }
  if (pruned.empty()) return {};
  if (kept.empty() && !static_layer.count(name)) {
    layer.erase(cordon);
  } else {
    std::string text;
    for (const std::string& entry : kept) text += (text.empty() ? "" : ",") + entry;
    cordon->second = text_setting(*find_config_key(name), text, cordon->second.where);
  }
  return pruned;
}

// The dynamic layer less the entries that no longer validate on top of `static_layer` (a key this
// version does not know, a value of the wrong form): each is logged as a warning naming
// file:line:column and why, and left out. The file itself is not touched; the next commit() writes
// the layer without them. A cordon of a directory since removed from log.dirs is pruned instead:
// one info line, and the file is rewritten at once. A fault of the static layer alone still throws.
Layer usable_dynamic_layer(const fs::path& file, const Layer& static_layer,
                           const fs::path& dynamic_file) {
  std::vector<std::string> ignored;
  Layer layer = read_dynamic_layer(dynamic_file, &ignored);
  const std::vector<std::string> pruned = prune_retired_cordons(file, static_layer, layer);
  try {
    build(file, static_layer, layer);
  } catch (const ConfigError&) {
    build(file, static_layer, {});
    Layer kept;
    for (const auto& [name, setting] : layer) {
      Layer trial = kept;
      trial.insert_or_assign(name, setting);
      try {
        build(file, static_layer, trial);
        kept = std::move(trial);
      } catch (const ConfigError& e) {
        ignored.push_back(e.what());
      }
    }
    layer = std::move(kept);
  }
  // In file order: each message starts with "<file>:<line>:<column>: ".
  auto line_of = [&](const std::string& why) {
    const std::string prefix = dynamic_file.string() + ":";
    return why.starts_with(prefix) ? std::strtoull(why.c_str() + prefix.size(), nullptr, 10) : 0;
  };
  std::stable_sort(ignored.begin(), ignored.end(), [&](const std::string& a, const std::string& b) {
    return line_of(a) < line_of(b);
  });
  for (const std::string& why : ignored) {
    if (pruned.empty()) {
      config_log()->warn(
          "{} The broker starts without this dynamic entry; {} keeps it until the next "
          "configuration change through the admin API, which rewrites the file without it.",
          why, dynamic_file.string());
    } else {
      config_log()->warn(
          "{} The broker starts without this dynamic entry, and {} is rewritten without it.", why,
          dynamic_file.string());
    }
  }
  if (!pruned.empty()) {
    std::string dirs;
    for (const std::string& dir : pruned) dirs += (dirs.empty() ? "" : ", ") + dir;
    const bool one = pruned.size() == 1;
    try {
      write_atomically(dynamic_file, dynamic_file_text(file, layer));
      config_log()->info("Pruned {} from cordoned.log.dirs: {} no longer in log.dirs.", dirs,
                         one ? "it is" : "they are");
    } catch (const ConfigError& e) {
      config_log()->warn(
          "{} The broker starts with {} left out of cordoned.log.dirs: {} no longer "
          "in log.dirs.",
          e.what(), dirs, one ? "it is" : "they are");
    }
  }
  return layer;
}

}  // namespace

fs::path admin_socket_of_file(const fs::path& config_file) {
  constexpr std::string_view kKey = "admin.socket";
  const ConfigKey* key = find_config_key(kKey);
  const std::optional<std::string> text = detail::read_one_string_setting(config_file, kKey);
  const fs::path base = canonical_path(fs::current_path(), config_file).parent_path();
  if (text && text->empty()) {
    throw ConfigError(config_file.string() + ": " + std::string(kKey) + " must not be empty.");
  }
  return canonical_path(base, text ? *text : std::string(key->default_value.text));
}

fs::path canonical_path(const fs::path& base, const fs::path& raw) {
  std::error_code ec;
  fs::path joined = raw.is_absolute() ? raw : base / raw;
  if (!joined.is_absolute()) {
    fs::path absolute = fs::absolute(joined, ec);
    if (!ec) joined = absolute;
  }
  fs::path canonical = fs::weakly_canonical(joined, ec);
  if (ec) canonical = joined.lexically_normal();
  std::string text = canonical.string();
  while (text.size() > 1 && text.back() == '/') text.pop_back();
  return fs::path(text);
}

bool BrokerConfig::is_cordoned(const fs::path& canonical_dir) const {
  return cordon_all || std::find(cordoned.begin(), cordoned.end(), canonical_dir) != cordoned.end();
}

std::vector<std::pair<std::string, std::string>> BrokerConfig::options_of(
    const std::string& strategy_name) const {
  auto it = strategy_options.find(strategy_name);
  if (it == strategy_options.end()) return {};
  return {it->second.begin(), it->second.end()};
}

ConfigStore::ConfigStore(const fs::path& file) {
  std::error_code ec;
  fs::path cwd = fs::current_path(ec);
  file_ = canonical_path(cwd, file);
  static_values_ = read_static_layer(file_);
  dynamic_values_ = usable_dynamic_layer(file_, static_values_, dynamic_file());
  current_ = build(file_, static_values_, dynamic_values_);
}

fs::path ConfigStore::dynamic_file() const {
  return file_.parent_path() / (file_.filename().string() + ".dynamic");
}

bool ConfigStore::is_dynamic_key(const std::string& name) {
  const ConfigKey* key = find_config_key(name);
  return key && key->dynamic;
}

namespace {

// The text of list key `key` after Kafka's APPEND or SUBTRACT of `change.value`'s entries, over
// the key's dynamic value, or its default when it has none (Kafka's prepareIncrementalConfigs:
// the file's value is not the base). Throws ConfigError with Kafka's sentence for other keys.
std::string list_altered(const ConfigKey& key, const detail::ConfigLayer& dynamic_layer,
                         const ConfigAlteration& change) {
  const bool append = change.op == ConfigAlteration::Op::kAppend;
  if (key.type != ConfigType::kPathList) {
    throw ConfigError(std::string("Config value ") + (append ? "append" : "subtract") +
                      " is not allowed for config key: " + change.name);
  }
  // Kafka's parseCsvList, as text_setting splits list values: entries trimmed, empty ones dropped.
  auto split = [&](std::string_view text) {
    return text_setting(key, std::string(text), "").items;
  };
  auto it = dynamic_layer.find(change.name);
  std::vector<std::string> items =
      it != dynamic_layer.end()
          ? split(it->second.text)
          : split(key.default_value.kind == ConfigDefault::Kind::kText ? key.default_value.text
                                                                       : std::string_view());
  for (const std::string& entry : split(change.value)) {
    auto found = std::find(items.begin(), items.end(), entry);
    if (append && found == items.end()) items.push_back(entry);
    if (!append && found != items.end()) items.erase(found);
  }
  std::string text;
  for (const std::string& entry : items) text += (text.empty() ? "" : ",") + entry;
  return text;
}

}  // namespace

ConfigStore::Layer ConfigStore::altered(const std::vector<ConfigAlteration>& changes) const {
  Layer layer = dynamic_values_;
  std::set<std::string> seen;
  for (const ConfigAlteration& change : changes) {
    if (!seen.insert(change.name).second) {
      throw_key_error("", change.name, "appears more than once in one request");
    }
    const ConfigKey* key = find_config_key(change.name);
    // Deleting a key this broker does not know changes nothing, as Kafka deletes a config that
    // was never set: kafka-reassign-partitions --verify deletes the replication throttles of
    // every broker, keys a broker without replicas does not have.
    if (!key && change.op == ConfigAlteration::Op::kDelete) continue;
    if (!key) throw_key_error("", change.name, "unknown config key");
    if (!key->dynamic) {
      throw_key_error(
          "", change.name,
          "cannot be altered dynamically; it is a static config (edit the file and restart)");
    }
    switch (change.op) {
      case ConfigAlteration::Op::kDelete:
        layer.erase(change.name);
        break;
      case ConfigAlteration::Op::kSet:
        layer.insert_or_assign(change.name, text_setting(*key, change.value, ""));
        break;
      case ConfigAlteration::Op::kAppend:
      case ConfigAlteration::Op::kSubtract:
        layer.insert_or_assign(change.name,
                               text_setting(*key, list_altered(*key, layer, change), ""));
        break;
    }
  }
  return layer;
}

BrokerConfig ConfigStore::preview(const std::vector<ConfigAlteration>& changes) const {
  return build(file_, static_values_, altered(changes));
}

void ConfigStore::commit(const std::vector<ConfigAlteration>& changes) {
  Layer layer = altered(changes);
  BrokerConfig config = build(file_, static_values_, layer);
  // A change that changes nothing (deleting keys never set, as kafka-reassign-partitions --verify
  // does) writes nothing, so it succeeds on a full or read-only config folder too.
  const std::string text = dynamic_file_text(file_, layer);
  if (text != dynamic_file_text(file_, dynamic_values_)) write_atomically(dynamic_file(), text);
  dynamic_values_ = std::move(layer);
  current_ = std::move(config);
  pending_.reset();  // a reread() result was built on the old dynamic layer
}

BrokerConfig ConfigStore::reread(std::vector<std::string>* static_changes) const {
  Layer fresh = read_static_layer(file_);
  BrokerConfig file_only = build(file_, fresh, {});
  std::vector<std::string> changed;
  for (const ConfigKey& key : config_keys()) {
    if (key.dynamic || key.format(key.name, file_only) == key.format(key.name, current_)) continue;
    std::string name(key.name);
    changed.push_back(name);
    // A changed static key keeps its running value until a restart.
    if (auto old = static_values_.find(name); old != static_values_.end()) {
      fresh.insert_or_assign(name, old->second);
    } else {
      fresh.erase(name);
    }
  }
  BrokerConfig config = build(file_, fresh, dynamic_values_);
  if (static_changes) *static_changes = changed;
  pending_ = PendingReread{std::move(fresh), config};
  return config;
}

void ConfigStore::adopt(const BrokerConfig& reread_config) {
  if (!pending_ || !(pending_->config == reread_config)) {
    throw std::logic_error(
        "ConfigStore::adopt: the config was not returned by the latest reread()");
  }
  static_values_ = std::move(pending_->static_layer);
  current_ = reread_config;
  pending_.reset();
}

std::vector<std::string> ConfigStore::strategies_with_file_options() const {
  const Layer& file_layer = pending_ ? pending_->static_layer : static_values_;
  std::set<std::string> names;
  for (const auto& [key, setting] : file_layer) {
    if (auto option = split_strategy_option(key)) names.insert(std::string(option->strategy));
  }
  return {names.begin(), names.end()};
}

std::vector<std::tuple<std::string, std::string, std::string>> ConfigStore::file_values_overridden()
    const {
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (const auto& [key, setting] : static_values_) {
    if (auto it = dynamic_values_.find(key); it != dynamic_values_.end()) {
      out.emplace_back(key, setting.text, it->second.text);
    }
  }
  return out;
}

std::vector<DescribedConfig> ConfigStore::describe() const {
  auto source = [&](const std::string& key) -> std::string {
    if (dynamic_values_.count(key)) return "DYNAMIC";
    if (static_values_.count(key)) return "STATIC";
    return "DEFAULT";
  };
  auto synonyms = [&](const std::string& name, const ConfigDefault& fallback) {
    std::vector<std::pair<std::string, std::string>> out;
    if (auto it = dynamic_values_.find(name); it != dynamic_values_.end()) {
      out.emplace_back("DYNAMIC_BROKER_CONFIG", it->second.text);
    }
    if (auto it = static_values_.find(name); it != static_values_.end()) {
      out.emplace_back("STATIC_BROKER_CONFIG", it->second.text);
    }
    if (fallback.kind == ConfigDefault::Kind::kText ||
        fallback.kind == ConfigDefault::Kind::kBesideExecutable) {
      out.emplace_back("DEFAULT_CONFIG", std::string(fallback.text));
    }
    return out;
  };
  std::vector<DescribedConfig> rows;
  for (const ConfigKey& key : config_keys()) {
    std::string name(key.name);
    rows.push_back({name, key.format(name, current_), source(name), key.dynamic,
                    synonyms(name, key.default_value), std::string(kafka_type_name(key)),
                    std::string(key.doc)});
  }
  for (const auto& [strategy, options] : current_.strategy_options) {
    for (const auto& [option, value] : options) {
      std::string name = std::string(kStrategyOptionPrefix) + strategy + "." + option;
      rows.push_back({name, kStrategyOptionRule.format(name, current_), source(name),
                      kStrategyOptionRule.dynamic,
                      synonyms(name, kStrategyOptionRule.default_value),
                      std::string(kafka_type_name(kStrategyOptionRule)),
                      std::string(kStrategyOptionRule.doc)});
    }
  }
  return rows;
}

}  // namespace lds
