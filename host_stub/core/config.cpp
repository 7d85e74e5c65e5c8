// config.cpp: reads broker.toml and its dynamic overrides, validates every key, and builds the
// effective BrokerConfig (DYNAMIC > STATIC > DEFAULT).
#include "core/config.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>
#include <string_view>
#include <tuple>

#ifndef LDS_DEFAULT_PLUGIN_DIR_RELATIVE
#define LDS_DEFAULT_PLUGIN_DIR_RELATIVE "../lib/lds/plugins"
#endif

namespace lds {
namespace {

using Setting = detail::ConfigSetting;
using Layer = std::map<std::string, Setting>;

// How a key's value is written in TOML. Text forms (requests, the dynamic file) follow Kafka.
enum class Kind { kInt, kBool, kString, kPathList, kOption };

struct KeySpec {
  std::string_view name;
  Kind kind;
  bool dynamic;
};

// Every known key except log.directory.select.<name>.<key>, in the order describe() lists them.
constexpr KeySpec kKeys[] = {
    {"broker.id", Kind::kInt, false},
    {"log.dirs", Kind::kPathList, false},
    {"plugin.dir", Kind::kString, false},
    {"admin.socket", Kind::kString, false},
    {"num.replica.alter.log.dirs.threads", Kind::kInt, false},
    {"plugin.never.unload", Kind::kBool, false},
    {"log.directory.select.strategy", Kind::kString, true},
    {"cordoned.log.dirs", Kind::kPathList, true},
    {"log.partition.expected.bytes", Kind::kInt, true},
    {"log.level", Kind::kString, true},
    {"replica.alter.log.dirs.io.max.bytes.per.second", Kind::kInt, true},
};

constexpr std::string_view kOptionPrefix = "log.directory.select.";
constexpr std::string_view kLogLevels[] = {"trace", "debug", "info", "warn", "error", "off"};

// log.directory.select.<name>.<key> split into name and key; nullopt for any other key.
std::optional<std::pair<std::string, std::string>> split_option_key(std::string_view name) {
  if (name.substr(0, kOptionPrefix.size()) != kOptionPrefix) return std::nullopt;
  std::string_view rest = name.substr(kOptionPrefix.size());
  size_t dot = rest.find('.');
  if (dot == std::string_view::npos || dot == 0 || dot + 1 == rest.size()) return std::nullopt;
  return std::make_pair(std::string(rest.substr(0, dot)), std::string(rest.substr(dot + 1)));
}

std::optional<KeySpec> find_spec(std::string_view name) {
  for (const KeySpec& spec : kKeys) {
    if (spec.name == name) return spec;
  }
  if (split_option_key(name)) return KeySpec{name, Kind::kOption, true};
  return std::nullopt;
}

// Whether a table with this flat name may be empty: a folder of known keys, such as [log] or
// [log.directory.select.size].
bool is_known_table(std::string_view name) {
  std::string prefix = std::string(name) + ".";
  for (const KeySpec& spec : kKeys) {
    if (spec.name.substr(0, prefix.size()) == prefix) return true;
  }
  return name.size() > kOptionPrefix.size() &&
         name.substr(0, kOptionPrefix.size()) == kOptionPrefix &&
         name.find('.', kOptionPrefix.size()) == std::string_view::npos;
}

bool is_plugin_name(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '_';
  });
}

std::string in_quotes(std::string_view s) { return "\"" + std::string(s) + "\""; }

std::string join(const std::vector<std::string>& parts) {
  std::string out;
  for (const std::string& part : parts) {
    if (!out.empty()) out += ',';
    out += part;
  }
  return out;
}

std::string join(const std::vector<fs::path>& paths) {
  std::vector<std::string> parts;
  for (const fs::path& p : paths) parts.push_back(p.string());
  return join(parts);
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

// Kafka's parseCsvList: entries are trimmed and empty entries dropped.
std::vector<std::string> split_csv(std::string_view text) {
  std::vector<std::string> out;
  while (true) {
    size_t comma = text.find(',');
    std::string_view entry = trim(text.substr(0, comma));
    if (!entry.empty()) out.emplace_back(entry);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// "file:line:column: ", the prefix of every error about something written in a file.
std::string position(const fs::path& file, uint64_t line, uint64_t column) {
  return file.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
}

// `text` with control characters shown as \uXXXX: a key or value quoted in an error may hold any
// (a TOML escape, a request), and a NUL would cut the message short, a newline split it.
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

[[noreturn]] void fail(const std::string& where, std::string_view key, const std::string& reason) {
  throw ConfigError(where + printable(std::string(key) + ": " + reason) + ".");
}

// Kafka's exact sentence (KIP-1066); the admin API returns it as the INVALID_CONFIG message.
[[noreturn]] void fail_cordon(const std::string& where, std::string_view entry) {
  throw ConfigError(where + "Invalid entry in cordoned.log.dirs: " + printable(entry) +
                    ". All cordoned log dirs must be entries of log.dirs or log.dir.");
}

std::optional<int64_t> parse_int(std::string_view text) {
  int64_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (text.empty() || ec != std::errc() || ptr != end) return std::nullopt;
  return value;
}

int64_t int_in_range(const Setting& s, std::string_view key, int64_t min, int64_t max) {
  std::optional<int64_t> value = parse_int(s.text);
  if (!value || *value < min || *value > max) {
    std::string range =
        max == std::numeric_limits<int64_t>::max()
            ? "an integer >= " + std::to_string(min)
            : "an integer from " + std::to_string(min) + " to " + std::to_string(max);
    fail(s.where, key, "must be " + range + ", not " + in_quotes(s.text));
  }
  return *value;
}

// Whether `inner` lies strictly inside `outer`; both canonical.
bool is_inside(const fs::path& inner, const fs::path& outer) {
  auto [o, i] = std::mismatch(outer.begin(), outer.end(), inner.begin(), inner.end());
  return o == outer.end() && i != inner.end();
}

fs::path default_plugin_dir() {
  std::error_code ec;
  fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  fs::path base = ec ? fs::current_path(ec) : exe.parent_path();
  return canonical_path(base, LDS_DEFAULT_PLUGIN_DIR_RELATIVE);
}

// --- Building the effective config from the layers -------------------------------------------

std::vector<fs::path> canonical_log_dirs(const fs::path& base, const Setting& s) {
  if (s.items.empty()) fail(s.where, "log.dirs", "must not be empty");
  std::vector<fs::path> dirs;
  for (size_t i = 0; i < s.items.size(); ++i) {
    fs::path dir = canonical_path(base, s.items[i]);
    for (size_t j = 0; j < dirs.size(); ++j) {
      if (dir == dirs[j]) {
        fail(s.item_where[i], "log.dirs",
             in_quotes(s.items[i]) + " is the same directory as " + in_quotes(s.items[j]) + " (" +
                 dir.string() + ")");
      }
      if (is_inside(dir, dirs[j]) || is_inside(dirs[j], dir)) {
        bool inner = is_inside(dir, dirs[j]);
        fail(s.item_where[i], "log.dirs",
             in_quotes(s.items[i]) + (inner ? " is inside " : " contains ") +
                 in_quotes(s.items[j]) + "; log directories must not nest");
      }
    }
    dirs.push_back(std::move(dir));
  }
  return dirs;
}

void apply_cordon(BrokerConfig& c, const fs::path& base, const Setting& s) {
  for (size_t i = 0; i < s.items.size(); ++i) {
    if (s.items[i] == "*") {
      if (s.items.size() != 1) {
        fail(s.item_where[i], "cordoned.log.dirs", "\"*\" must be the only entry");
      }
      c.cordon_all = true;
      return;
    }
    fs::path dir = canonical_path(base, s.items[i]);
    if (std::find(c.log_dirs.begin(), c.log_dirs.end(), dir) == c.log_dirs.end()) {
      fail_cordon(s.item_where[i], s.items[i]);
    }
    if (std::find(c.cordoned.begin(), c.cordoned.end(), dir) == c.cordoned.end()) {
      c.cordoned.push_back(std::move(dir));
    }
  }
}

// Validates one key's text and stores it in `c`. log.dirs must already be in `c`.
void apply(BrokerConfig& c, const fs::path& base, const std::string& key, const Setting& s) {
  constexpr int64_t kInt32Max = std::numeric_limits<int32_t>::max();
  constexpr int64_t kInt64Max = std::numeric_limits<int64_t>::max();
  if (key == "broker.id") {
    c.broker_id = static_cast<int32_t>(int_in_range(s, key, 0, kInt32Max));
  } else if (key == "log.dirs") {
    c.log_dirs = canonical_log_dirs(base, s);
  } else if (key == "plugin.dir" || key == "admin.socket") {
    if (s.text.empty()) fail(s.where, key, "must not be empty");
    (key == "plugin.dir" ? c.plugin_dir : c.admin_socket) = canonical_path(base, s.text);
  } else if (key == "num.replica.alter.log.dirs.threads") {
    c.mover_threads = static_cast<int32_t>(int_in_range(s, key, 1, kInt32Max));
  } else if (key == "plugin.never.unload") {
    if (s.text != "true" && s.text != "false") {
      fail(s.where, key, "must be true or false, not " + in_quotes(s.text));
    }
    c.never_unload = s.text == "true";
  } else if (key == "log.directory.select.strategy") {
    if (!is_plugin_name(s.text)) {
      fail(s.where, key, "must be a strategy name matching [a-z0-9_]+, not " + in_quotes(s.text));
    }
    c.strategy = s.text;
  } else if (key == "cordoned.log.dirs") {
    apply_cordon(c, base, s);
  } else if (key == "log.partition.expected.bytes") {
    c.partition_expected_bytes = static_cast<uint64_t>(int_in_range(s, key, 0, kInt64Max));
  } else if (key == "log.level") {
    if (std::find(std::begin(kLogLevels), std::end(kLogLevels), s.text) == std::end(kLogLevels)) {
      fail(s.where, key,
           "must be one of trace, debug, info, warn, error, off, not " + in_quotes(s.text));
    }
    c.log_level = s.text;
  } else if (key == "replica.alter.log.dirs.io.max.bytes.per.second") {
    c.alter_log_dirs_bytes_per_second = static_cast<uint64_t>(int_in_range(s, key, 0, kInt64Max));
  } else if (auto option = split_option_key(key)) {
    if (!is_plugin_name(option->first)) {
      fail(s.where, key, "strategy name " + in_quotes(option->first) + " must match [a-z0-9_]+");
    }
    c.strategy_options[option->first][option->second] = s.text;
  } else {
    fail(s.where, key, "unknown config key");
  }
}

// The effective config of the two layers, every value validated. Throws ConfigError.
BrokerConfig build(const fs::path& file, const Layer& static_layer, const Layer& dynamic_layer) {
  const fs::path base = file.parent_path();
  BrokerConfig c;
  c.file = file;
  c.plugin_dir = default_plugin_dir();
  c.admin_socket = canonical_path(base, "lds-admin.sock");

  Layer merged = static_layer;
  for (const auto& [key, setting] : dynamic_layer) {
    std::optional<KeySpec> spec = find_spec(key);
    if (!spec) fail(setting.where, key, "unknown config key");
    if (!spec->dynamic) {
      fail(setting.where, key,
           "cannot be altered dynamically; it is a static config (edit the file and restart)");
    }
    merged.insert_or_assign(key, setting);
  }

  auto dirs = merged.find("log.dirs");
  if (dirs == merged.end()) throw ConfigError(file.string() + ": log.dirs: is required.");
  apply(c, base, dirs->first, dirs->second);
  // log.dirs first and cordoned.log.dirs last: the cordon is checked against the log dirs.
  for (const auto& [key, setting] : merged) {
    if (key != "log.dirs" && key != "cordoned.log.dirs") apply(c, base, key, setting);
  }
  if (auto cordon = merged.find("cordoned.log.dirs"); cordon != merged.end()) {
    apply(c, base, cordon->first, cordon->second);
  }
  return c;
}

// The value of one key in `c`, as describe() shows it.
std::string value_text(const BrokerConfig& c, std::string_view key) {
  if (key == "broker.id") return std::to_string(c.broker_id);
  if (key == "log.dirs") return join(c.log_dirs);
  if (key == "plugin.dir") return c.plugin_dir.string();
  if (key == "admin.socket") return c.admin_socket.string();
  if (key == "num.replica.alter.log.dirs.threads") return std::to_string(c.mover_threads);
  if (key == "plugin.never.unload") return c.never_unload ? "true" : "false";
  if (key == "log.directory.select.strategy") return c.strategy;
  if (key == "cordoned.log.dirs") return c.cordon_all ? "*" : join(c.cordoned);
  if (key == "log.partition.expected.bytes") return std::to_string(c.partition_expected_bytes);
  if (key == "log.level") return c.log_level;
  if (key == "replica.alter.log.dirs.io.max.bytes.per.second") {
    return std::to_string(c.alter_log_dirs_bytes_per_second);
  }
  if (auto option = split_option_key(key)) {
    auto strategy = c.strategy_options.find(option->first);
    if (strategy != c.strategy_options.end()) {
      auto value = strategy->second.find(option->second);
      if (value != strategy->second.end()) return value->second;
    }
  }
  return "";
}

// A value that arrives as text: a request, or the dynamic file.
Setting text_setting(const KeySpec& spec, const std::string& text, const std::string& where) {
  Setting s;
  s.text = text;
  s.where = where;
  if (spec.kind == Kind::kPathList) {
    s.items = split_csv(text);
    s.item_where.assign(s.items.size(), where);
  }
  return s;
}

// --- Reading files -----------------------------------------------------------------------------

// The whole file; nullopt when it does not exist and `missing_ok`. Throws ConfigError otherwise.
std::optional<std::string> read_text(const fs::path& file, bool missing_ok) {
  int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT && missing_ok) return std::nullopt;
  std::string content;
  if (fd >= 0) {
    char buffer[8192];
    while (true) {
      ssize_t n = ::read(fd, buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        int saved = errno;
        ::close(fd);
        if (n == 0) return content;
        errno = saved;
        break;
      }
      content.append(buffer, static_cast<size_t>(n));
    }
  }
  throw ConfigError(file.string() + ": cannot read the config file: " + std::strerror(errno) + ".");
}

// The key a line of TOML assigns, for a syntax error; empty when the line is no `key = value`.
std::string key_of_line(std::string_view line) {
  line = trim(line);
  size_t eq = line.find('=');
  if (line.empty() || line.front() == '[' || eq == std::string_view::npos) return "";
  std::string key;
  for (char ch : trim(line.substr(0, eq))) {
    if (ch == '"' || ch == '\'') continue;
    bool bare = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
                ch == '_' || ch == '-' || ch == '.';
    if (!bare) return "";
    key += ch;
  }
  return key;
}

std::vector<std::string_view> split_lines(std::string_view content) {
  std::vector<std::string_view> lines;
  while (true) {
    size_t nl = content.find('\n');
    lines.push_back(content.substr(0, nl));
    if (nl == std::string_view::npos) break;
    content.remove_prefix(nl + 1);
  }
  return lines;
}

toml::table parse_toml(const std::string& content, const fs::path& file) {
  try {
    return toml::parse(content, file.string());
  } catch (const toml::parse_error& e) {
    const toml::source_position begin = e.source().begin;
    std::vector<std::string_view> lines = split_lines(content);
    std::string key = begin.line >= 1 && begin.line <= lines.size()
                          ? key_of_line(lines[begin.line - 1])
                          : std::string();
    std::string description(e.description());
    while (!description.empty() && (description.back() == '.' || description.back() == ' ')) {
      description.pop_back();
    }
    throw ConfigError(position(file, begin.line, begin.column) + (key.empty() ? "" : key + ": ") +
                      "invalid TOML: " + description + ".");
  }
}

// Byte offset of a 1-based code-point column within `line`.
size_t byte_of_column(std::string_view line, uint64_t column) {
  size_t offset = 0;
  for (uint64_t at = 1; at < column && offset < line.size(); ++at) {
    ++offset;
    while (offset < line.size() && (static_cast<unsigned char>(line[offset]) & 0xC0) == 0x80) {
      ++offset;
    }
  }
  return offset;
}

// The 1-based code-point column of a byte offset within `line`.
uint64_t column_of_byte(std::string_view line, size_t offset) {
  uint64_t column = 1;
  for (size_t i = 0; i < offset && i < line.size(); ++i) {
    if ((static_cast<unsigned char>(line[i]) & 0xC0) != 0x80) ++column;
  }
  return column;
}

bool is_bare_key_char(char ch) {
  return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
         ch == '_' || ch == '-';
}

// toml++ gives the position of a dotted key's last segment; errors point at its first segment, so
// `log.dirs = []` is reported at column 1, not at `dirs`.
uint64_t key_start_column(std::string_view line, uint64_t leaf_column) {
  size_t start = byte_of_column(line, leaf_column);
  while (true) {
    size_t i = start;
    while (i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t')) --i;
    if (i == 0 || line[i - 1] != '.') break;
    --i;
    while (i > 0 && (line[i - 1] == ' ' || line[i - 1] == '\t')) --i;
    if (i == 0) break;
    size_t segment = i;
    char last = line[i - 1];
    if (last == '"' || last == '\'') {
      if (i < 2) break;
      size_t open = line.rfind(last, i - 2);
      if (open == std::string_view::npos) break;
      segment = open;
    } else {
      while (segment > 0 && is_bare_key_char(line[segment - 1])) --segment;
      if (segment == i) break;
    }
    start = segment;
  }
  return column_of_byte(line, start);
}

struct FlatEntry {
  std::string name;
  const toml::node* node;
  uint64_t line;
  uint64_t column;
};

// The table's keys as dotted names ("log.dirs"), whether written nested, dotted or quoted.
void flatten(const toml::table& table, const std::string& prefix,
             const std::vector<std::string_view>& lines, std::vector<FlatEntry>& out) {
  for (const auto& [key, node] : table) {
    std::string name =
        prefix.empty() ? std::string(key.str()) : prefix + "." + std::string(key.str());
    uint64_t line = key.source().begin.line;
    uint64_t column = key.source().begin.column;
    if (line >= 1 && line <= lines.size()) column = key_start_column(lines[line - 1], column);
    const toml::table* child = node.as_table();
    if (child && !child->empty()) {
      flatten(*child, name, lines, out);
    } else {
      out.push_back({std::move(name), &node, line, column});
    }
  }
}

std::string type_with_article(const toml::node& node) {
  switch (node.type()) {
    case toml::node_type::string:
      return "a string";
    case toml::node_type::integer:
      return "an integer";
    case toml::node_type::floating_point:
      return "a float";
    case toml::node_type::boolean:
      return "a boolean";
    case toml::node_type::array:
      return "an array";
    case toml::node_type::table:
      return "a table";
    case toml::node_type::date:
      return "a date";
    case toml::node_type::time:
      return "a time";
    case toml::node_type::date_time:
      return "a date-time";
    default:
      return "nothing";
  }
}

std::string float_text(double value) {
  char buffer[64];
  auto [ptr, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  return ec == std::errc() ? std::string(buffer, ptr) : std::to_string(value);
}

// One key of the file as a Setting, checking its TOML type.
Setting file_setting(const FlatEntry& entry, Kind kind, const fs::path& file) {
  const toml::node& node = *entry.node;
  Setting s;
  s.where = position(file, entry.line, entry.column);
  auto wrong = [&](const std::string& expected) {
    fail(s.where, entry.name, "must be " + expected + ", not " + type_with_article(node));
  };
  switch (kind) {
    case Kind::kInt:
      if (!node.is_integer()) wrong("an integer");
      s.text = std::to_string(node.as_integer()->get());
      break;
    case Kind::kBool:
      if (!node.is_boolean()) wrong("true or false");
      s.text = node.as_boolean()->get() ? "true" : "false";
      break;
    case Kind::kString:
      if (!node.is_string()) wrong("a string");
      s.text = node.as_string()->get();
      break;
    case Kind::kOption:
      if (node.is_string()) {
        s.text = node.as_string()->get();
      } else if (node.is_integer()) {
        s.text = std::to_string(node.as_integer()->get());
      } else if (node.is_boolean()) {
        s.text = node.as_boolean()->get() ? "true" : "false";
      } else if (node.is_floating_point()) {
        s.text = float_text(node.as_floating_point()->get());
      } else {
        wrong("a string, integer, boolean or float");
      }
      break;
    case Kind::kPathList:
      if (node.is_string()) {
        s.text = node.as_string()->get();
        s.items = split_csv(s.text);
        s.item_where.assign(s.items.size(), s.where);
        break;
      }
      if (!node.is_array()) wrong("an array of strings or a comma-separated string");
      for (const toml::node& element : *node.as_array()) {
        std::string where =
            position(file, element.source().begin.line, element.source().begin.column);
        if (!element.is_string()) {
          fail(where, entry.name, "entries must be strings, not " + type_with_article(element));
        }
        const std::string& text = element.as_string()->get();
        if (text.empty()) fail(where, entry.name, "entries must not be empty strings");
        s.items.push_back(text);
        s.item_where.push_back(std::move(where));
      }
      s.text = join(s.items);
      break;
  }
  return s;
}

// A parsed TOML file and its keys as dotted names, in file order.
class ParsedFile {
 public:
  ParsedFile(const fs::path& file, std::string content)
      : content_(std::move(content)), table_(parse_toml(content_, file)) {
    flatten(table_, "", split_lines(content_), entries_);
    std::sort(entries_.begin(), entries_.end(), [](const FlatEntry& a, const FlatEntry& b) {
      return std::tie(a.line, a.column) < std::tie(b.line, b.column);
    });
  }
  const std::vector<FlatEntry>& entries() const { return entries_; }

 private:
  std::string content_;
  toml::table table_;
  std::vector<FlatEntry> entries_;
};

// Checks one flat key of a file: known, set once. Returns its spec, or nullopt for an empty table
// that may stay empty.
std::optional<KeySpec> check_entry(const FlatEntry& entry, const fs::path& file,
                                   const std::map<std::string, uint64_t>& seen_lines) {
  std::string where = position(file, entry.line, entry.column);
  const toml::table* table = entry.node->as_table();
  if (table && is_known_table(entry.name)) return std::nullopt;
  std::optional<KeySpec> spec = find_spec(entry.name);
  if (!spec) fail(where, entry.name, "unknown config key");
  if (auto seen = seen_lines.find(entry.name); seen != seen_lines.end()) {
    fail(where, entry.name, "is set twice (first at line " + std::to_string(seen->second) + ")");
  }
  return spec;
}

Layer read_static_layer(const fs::path& file) {
  ParsedFile parsed(file, *read_text(file, false));
  Layer layer;
  std::map<std::string, uint64_t> seen_lines;
  for (const FlatEntry& entry : parsed.entries()) {
    std::optional<KeySpec> spec = check_entry(entry, file, seen_lines);
    if (!spec) continue;
    seen_lines.emplace(entry.name, entry.line);
    layer.emplace(entry.name, file_setting(entry, spec->kind, file));
  }
  return layer;
}

Layer read_dynamic_layer(const fs::path& file) {
  std::optional<std::string> content = read_text(file, true);
  if (!content) return {};
  ParsedFile parsed(file, std::move(*content));
  Layer layer;
  std::map<std::string, uint64_t> seen_lines;
  for (const FlatEntry& entry : parsed.entries()) {
    std::optional<KeySpec> spec = check_entry(entry, file, seen_lines);
    if (!spec) continue;
    seen_lines.emplace(entry.name, entry.line);
    std::string where = position(file, entry.line, entry.column);
    if (!entry.node->is_string()) {
      fail(where, entry.name,
           "must be a string in the dynamic config file, not " + type_with_article(*entry.node));
    }
    layer.emplace(entry.name, text_setting(*spec, entry.node->as_string()->get(), where));
  }
  return layer;
}

// --- Writing the dynamic file ------------------------------------------------------------------

std::string toml_string(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    unsigned char u = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (u < 0x20 || u == 0x7F) {
      char escape[8];
      std::snprintf(escape, sizeof escape, "\\u%04X", u);
      out += escape;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string dynamic_file_text(const fs::path& config_file, const Layer& layer) {
  std::string out = "# Dynamic overrides of " + config_file.filename().string() +
                    ", set through IncrementalAlterConfigs; they win over the file.\n"
                    "# Written by lds-host; do not edit while it runs.\n";
  for (const auto& [key, setting] : layer) {
    out += toml_string(key) + " = " + toml_string(setting.text) + "\n";
  }
  return out;
}

// Replaces `file` with `content` so that a crash leaves the old or the new file, never a mix: a
// temp file in the same folder, fsync, rename over, fsync of the folder.
void write_atomically(const fs::path& file, const std::string& content) {
  auto failure = [&](const char* step) {
    return ConfigError(file.string() + ": cannot write the dynamic config file: " + step +
                       " failed: " + std::strerror(errno) + ".");
  };
  std::string temp = (file.parent_path() / ("." + file.filename().string() + ".XXXXXX")).string();
  int fd = ::mkstemp(temp.data());
  if (fd < 0) throw failure("creating a temp file");
  auto abandon = [&](const char* step) {
    ConfigError error = failure(step);
    if (fd >= 0) ::close(fd);
    ::unlink(temp.c_str());
    throw error;
  };
  if (::fchmod(fd, 0644) != 0) abandon("chmod");
  for (size_t done = 0; done < content.size();) {
    ssize_t n = ::write(fd, content.data() + done, content.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) abandon("write");
    done += static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0) abandon("fsync");
  int closed = ::close(fd);
  fd = -1;
  if (closed != 0) abandon("close");
  if (::rename(temp.c_str(), file.c_str()) != 0) abandon("rename");
  int dir = ::open(file.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) throw failure("opening the folder");
  int synced = ::fsync(dir);
  int saved = errno;
  ::close(dir);
  errno = saved;
  if (synced != 0) throw failure("fsync of the folder");
}

}  // namespace

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
  dynamic_values_ = read_dynamic_layer(dynamic_file());
  current_ = build(file_, static_values_, dynamic_values_);
}

fs::path ConfigStore::dynamic_file() const {
  return file_.parent_path() / (file_.filename().string() + ".dynamic");
}

bool ConfigStore::is_dynamic_key(const std::string& name) {
  std::optional<KeySpec> spec = find_spec(name);
  return spec && spec->dynamic;
}

ConfigStore::Layer ConfigStore::altered(const std::vector<ConfigAlteration>& changes) const {
  Layer layer = dynamic_values_;
  std::set<std::string> seen;
  for (const ConfigAlteration& change : changes) {
    if (!seen.insert(change.name).second) {
      fail("", change.name, "appears more than once in one request");
    }
    std::optional<KeySpec> spec = find_spec(change.name);
    if (!spec) fail("", change.name, "unknown config key");
    if (!spec->dynamic) {
      fail("", change.name,
           "cannot be altered dynamically; it is a static config (edit the file and restart)");
    }
    if (change.op == ConfigAlteration::Op::kDelete) {
      layer.erase(change.name);
    } else {
      layer.insert_or_assign(change.name, text_setting(*spec, change.value, ""));
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
  write_atomically(dynamic_file(), dynamic_file_text(file_, layer));
  dynamic_values_ = std::move(layer);
  current_ = std::move(config);
  pending_.reset();  // a reread() result was built on the old dynamic layer
}

BrokerConfig ConfigStore::reread(std::vector<std::string>* static_changes) const {
  Layer fresh = read_static_layer(file_);
  BrokerConfig file_only = build(file_, fresh, {});
  std::vector<std::string> changed;
  for (const KeySpec& spec : kKeys) {
    if (spec.dynamic || value_text(file_only, spec.name) == value_text(current_, spec.name))
      continue;
    std::string key(spec.name);
    changed.push_back(key);
    // A changed static key keeps its running value until a restart.
    if (auto old = static_values_.find(key); old != static_values_.end()) {
      fresh.insert_or_assign(key, old->second);
    } else {
      fresh.erase(key);
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

std::vector<DescribedConfig> ConfigStore::describe() const {
  auto source = [&](const std::string& key) -> std::string {
    if (dynamic_values_.count(key)) return "DYNAMIC";
    if (static_values_.count(key)) return "STATIC";
    return "DEFAULT";
  };
  std::vector<DescribedConfig> rows;
  for (const KeySpec& spec : kKeys) {
    std::string key(spec.name);
    rows.push_back({key, value_text(current_, key), source(key), spec.dynamic});
  }
  for (const auto& [strategy, options] : current_.strategy_options) {
    for (const auto& [option, value] : options) {
      std::string key = std::string(kOptionPrefix) + strategy + "." + option;
      rows.push_back({key, value, source(key), true});
    }
  }
  return rows;
}

}  // namespace lds
