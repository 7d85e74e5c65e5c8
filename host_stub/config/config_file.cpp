// config_file.cpp: reads a TOML config file into a layer of settings with their positions, checking
// each key's name and TOML type against the key table, and writes the dynamic override file.
#include "config/config_file.h"

#include <fcntl.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <tuple>

#include "io/durable_file.h"

namespace lds {
namespace detail {

namespace fs = std::filesystem;
namespace {

using Setting = ConfigSetting;
using Layer = ConfigLayer;

// Whether a table with this flat name may be empty: a folder of known keys, such as [log] or
// [log.directory.select.size].
bool is_known_table(std::string_view name) {
  std::string prefix = std::string(name) + ".";
  for (const ConfigKey& key : config_keys()) {
    if (key.name.starts_with(prefix)) return true;
  }
  return name.size() > kStrategyOptionPrefix.size() && name.starts_with(kStrategyOptionPrefix) &&
         name.find('.', kStrategyOptionPrefix.size()) == std::string_view::npos;
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

}  // namespace

Setting text_setting(const ConfigKey& key, const std::string& text, const std::string& where) {
  Setting s;
  s.text = text;
  s.where = where;
  if (key.type == ConfigType::kPathList) {
    s.items = split_csv(text);
    s.item_where.assign(s.items.size(), where);
  }
  return s;
}

// --- Reading files -----------------------------------------------------------------------------
namespace {

// The whole file; nullopt when it does not exist and `missing_ok`. Throws ConfigError otherwise.
std::optional<std::string> read_text(const fs::path& file, bool missing_ok) {
  const Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd && errno == ENOENT && missing_ok) return std::nullopt;
  std::string content;
  if (fd) {
    char buffer[8192];
    for (;;) {
      const ssize_t n = ::read(fd.get(), buffer, sizeof buffer);
      if (n < 0 && errno == EINTR) continue;
      if (n == 0) return content;
      if (n < 0) break;
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
    throw ConfigError(file_position(file, begin.line, begin.column) +
                      (key.empty() ? "" : key + ": ") + "invalid TOML: " + description + ".");
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
Setting file_setting(const FlatEntry& entry, ConfigType type, const fs::path& file) {
  const toml::node& node = *entry.node;
  Setting s;
  s.where = file_position(file, entry.line, entry.column);
  auto wrong = [&](const std::string& expected) {
    throw_key_error(s.where, entry.name,
                    "must be " + expected + ", not " + type_with_article(node));
  };
  switch (type) {
    case ConfigType::kInt:
      if (!node.is_integer()) wrong("an integer");
      s.text = std::to_string(node.as_integer()->get());
      break;
    case ConfigType::kBool:
      if (!node.is_boolean()) wrong("true or false");
      s.text = node.as_boolean()->get() ? "true" : "false";
      break;
    case ConfigType::kString:
    case ConfigType::kPath:
      if (!node.is_string()) wrong("a string");
      s.text = node.as_string()->get();
      break;
    case ConfigType::kScalar:
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
    case ConfigType::kPathList:
      if (node.is_string()) {
        s.text = node.as_string()->get();
        s.items = split_csv(s.text);
        s.item_where.assign(s.items.size(), s.where);
        break;
      }
      if (!node.is_array()) wrong("an array of strings or a comma-separated string");
      for (const toml::node& element : *node.as_array()) {
        std::string where =
            file_position(file, element.source().begin.line, element.source().begin.column);
        if (!element.is_string()) {
          throw_key_error(where, entry.name,
                          "entries must be strings, not " + type_with_article(element));
        }
        const std::string& text = element.as_string()->get();
        if (text.empty()) throw_key_error(where, entry.name, "entries must not be empty strings");
        s.items.push_back(text);
        s.item_where.push_back(std::move(where));
      }
      s.text = detail::join_list(s.items);
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

// Checks one flat key of a file: known, set once. Returns its row, or nullptr for an empty table
// that may stay empty.
const ConfigKey* check_entry(const FlatEntry& entry, const fs::path& file,
                             const std::map<std::string, uint64_t>& seen_lines) {
  std::string where = file_position(file, entry.line, entry.column);
  const toml::table* table = entry.node->as_table();
  if (table && is_known_table(entry.name)) return nullptr;
  const ConfigKey* key = find_config_key(entry.name);
  if (!key) throw_key_error(where, entry.name, "unknown config key");
  if (auto seen = seen_lines.find(entry.name); seen != seen_lines.end()) {
    throw_key_error(where, entry.name,
                    "is set twice (first at line " + std::to_string(seen->second) + ")");
  }
  return key;
}

}  // namespace

Layer read_static_layer(const fs::path& file) {
  ParsedFile parsed(file, *read_text(file, false));
  Layer layer;
  std::map<std::string, uint64_t> seen_lines;
  for (const FlatEntry& entry : parsed.entries()) {
    const ConfigKey* key = check_entry(entry, file, seen_lines);
    if (!key) continue;
    seen_lines.emplace(entry.name, entry.line);
    layer.emplace(entry.name, file_setting(entry, key->type, file));
  }
  return layer;
}

Layer read_dynamic_layer(const fs::path& file, std::vector<std::string>* ignored) {
  std::optional<std::string> content = read_text(file, true);
  if (!content) return {};
  ParsedFile parsed(file, std::move(*content));
  Layer layer;
  std::map<std::string, uint64_t> seen_lines;
  for (const FlatEntry& entry : parsed.entries()) {
    try {
      const ConfigKey* key = check_entry(entry, file, seen_lines);
      if (!key) continue;
      seen_lines.emplace(entry.name, entry.line);
      std::string where = file_position(file, entry.line, entry.column);
      if (!entry.node->is_string()) {
        throw_key_error(
            where, entry.name,
            "must be a string in the dynamic config file, not " + type_with_article(*entry.node));
      }
      layer.emplace(entry.name, text_setting(*key, entry.node->as_string()->get(), where));
    } catch (const ConfigError& e) {
      if (!ignored) throw;
      ignored->push_back(e.what());
    }
  }
  return layer;
}

// --- Reading one key leniently -----------------------------------------------------------------
namespace {

// The value of a one-line TOML string (`"..."` with \\ and \" escapes, or `'...'`); nullopt when
// `text` does not start with one.
std::optional<std::string> one_line_string(std::string_view text) {
  if (text.empty() || (text.front() != '"' && text.front() != '\'')) return std::nullopt;
  const char quote = text.front();
  std::string out;
  for (size_t i = 1; i < text.size(); ++i) {
    if (text[i] == quote) return out;
    if (quote == '"' && text[i] == '\\' && i + 1 < text.size()) ++i;
    out += text[i];
  }
  return std::nullopt;
}

// The table a `[name]` header line opens, as a dotted name; nullopt for any other line.
std::optional<std::string> table_of_line(std::string_view line) {
  line = trim(line);
  if (line.size() < 2 || line.front() != '[' || line[1] == '[') return std::nullopt;
  const size_t close = line.find(']');
  if (close == std::string_view::npos) return std::nullopt;
  std::string name;
  for (char ch : line.substr(1, close - 1)) {
    if (ch != ' ' && ch != '\t' && ch != '"' && ch != '\'') name += ch;
  }
  return name;
}

}  // namespace

std::optional<std::string> read_one_string_setting(const fs::path& file, std::string_view key) {
  const std::string content = *read_text(file, false);
  try {
    const toml::table table = toml::parse(content, file.string());
    const toml::node_view<const toml::node> node = table.at_path(key);
    if (const auto* value = node.as_string()) return value->get();
    // Written as a quoted flat key ("admin.socket" = ...), as the dynamic file does.
    if (const auto* value = table[key].as_string()) return value->get();
    return std::nullopt;
  } catch (const toml::parse_error&) {
    // The file has a syntax error somewhere: look for the key on a line of its own.
  }
  std::string table;
  for (std::string_view line : split_lines(content)) {
    if (std::optional<std::string> header = table_of_line(line)) {
      table = std::move(*header);
      continue;
    }
    const std::string name = key_of_line(line);
    if (name.empty() || (table.empty() ? name : table + "." + name) != key) continue;
    std::string_view value = trim(line.substr(line.find('=') + 1));
    return one_line_string(value);
  }
  return std::nullopt;
}

// --- Writing the dynamic file ------------------------------------------------------------------
namespace {

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

}  // namespace

std::string dynamic_file_text(const fs::path& config_file, const Layer& layer) {
  std::string out = "# Dynamic overrides of " + config_file.filename().string() +
                    ", set through IncrementalAlterConfigs; they win over the file.\n"
                    "# Written by lds-host; do not edit while it runs.\n";
  for (const auto& [key, setting] : layer) {
    out += toml_string(key) + " = " + toml_string(setting.text) + "\n";
  }
  return out;
}

void write_atomically(const fs::path& file, const std::string& content) {
  try {
    write_file_atomically(file, content, 0644);
  } catch (const FileError& e) {
    const bool of_folder = e.path() == file.parent_path();
    throw ConfigError(file.string() + ": cannot write the dynamic config file: " + e.operation() +
                      (of_folder ? " of the folder" : "") + " failed: " + e.code().message() + ".");
  }
}

}  // namespace detail
}  // namespace lds
