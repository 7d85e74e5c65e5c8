// meta_properties.cpp: the Java .properties reader and Kafka's typed meta.properties over it.
#include "storage/meta_properties.h"

#include <fcntl.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>

#include "io/durable_file.h"
#include "io/log_layout.h"
#include "model/uuid.h"
#include "util/errors.h"
#include "util/quoted_text.h"
#include "util/splitmix.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\f'; }

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// Java's Properties.loadConvert: resolves the escapes of a key or a value.
std::string unescape(std::string_view raw, const fs::path& file, uint64_t line) {
  std::string out;
  uint32_t high_surrogate = 0;
  for (size_t i = 0; i < raw.size(); ++i) {
    char c = raw[i];
    if (c != '\\' || i + 1 == raw.size()) {
      out += c;
      continue;
    }
    c = raw[++i];
    if (c != 'u') {
      high_surrogate = 0;
      out += c == 't' ? '\t' : c == 'n' ? '\n' : c == 'r' ? '\r' : c == 'f' ? '\f' : c;
      continue;
    }
    uint32_t unit = 0;
    const char* begin = raw.data() + i + 1;
    auto [end, ec] = std::from_chars(begin, raw.data() + std::min(raw.size(), i + 5), unit, 16);
    if (ec != std::errc() || end != begin + 4) {
      throw ConfigError(file.string() + ":" + std::to_string(line) +
                        ": Malformed \\uxxxx encoding.");
    }
    i += 4;
    if (unit >= 0xD800 && unit < 0xDC00) {
      high_surrogate = unit;  // written once its low half follows
      continue;
    }
    if (unit >= 0xDC00 && unit < 0xE000 && high_surrogate != 0) {
      unit = 0x10000 + ((high_surrogate - 0xD800) << 10) + (unit - 0xDC00);
    }
    high_surrogate = 0;
    append_utf8(out, unit);
  }
  return out;
}

// Integer.parseInt: an optional sign, then decimal digits, within int32; no blanks around.
std::optional<int32_t> java_int(std::string_view text) {
  const bool plus = !text.empty() && text.front() == '+';
  if (plus) text.remove_prefix(1);
  if (text.empty() || (plus && text.front() == '-')) return std::nullopt;
  int32_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

// Properties.store's escaping of a value: backslash, a leading space, and control characters.
std::string escaped_value(std::string_view value) {
  std::string out;
  for (size_t i = 0; i < value.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(value[i]);
    switch (c) {
      case '\\':
        out += "\\\\";
        break;
      case '\t':
        out += "\\t";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\f':
        out += "\\f";
        break;
      case ' ':
        out += i == 0 ? "\\ " : " ";
        break;
      default:
        append_escaping_control(out, c);
    }
  }
  return out;
}

}  // namespace

std::map<std::string, std::string> parse_java_properties(std::string_view text,
                                                         const fs::path& file) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  uint64_t line = 1;  // of the natural line being read
  const size_t n = text.size();
  auto line_end = [&](size_t at) {  // the length of the line end at `at`, 0 if none
    if (at >= n) return size_t{0};
    if (text[at] == '\r') return at + 1 < n && text[at + 1] == '\n' ? size_t{2} : size_t{1};
    return text[at] == '\n' ? size_t{1} : size_t{0};
  };
  while (i < n) {
    // A logical line starts: blank lines and leading whitespace are skipped.
    while (i < n && (is_blank(text[i]) || line_end(i) > 0)) {
      if (size_t e = line_end(i); e > 0) {
        i += e;
        ++line;
      } else {
        ++i;
      }
    }
    if (i >= n) break;
    const uint64_t first_line = line;
    if (text[i] == '#' || text[i] == '!') {  // a comment runs to its line end, never continued
      while (i < n && line_end(i) == 0) ++i;
      continue;
    }
    std::string logical;
    bool preceding_backslash = false;
    while (i < n) {
      if (size_t e = line_end(i); e > 0) {
        i += e;
        ++line;
        if (!preceding_backslash) break;
        logical.pop_back();  // the continuation backslash
        preceding_backslash = false;
        while (i < n && is_blank(text[i])) ++i;
        continue;
      }
      const char c = text[i++];
      preceding_backslash = c == '\\' ? !preceding_backslash : false;
      logical += c;
    }
    if (i >= n && preceding_backslash) logical.pop_back();  // a backslash ending the file

    // Properties.load0: the key ends at the first unescaped '=', ':' or blank.
    size_t key_len = 0, value_start = logical.size();
    bool has_separator = false;
    preceding_backslash = false;
    for (; key_len < logical.size(); ++key_len) {
      const char c = logical[key_len];
      if ((c == '=' || c == ':') && !preceding_backslash) {
        value_start = key_len + 1;
        has_separator = true;
        break;
      }
      if (is_blank(c) && !preceding_backslash) {
        value_start = key_len + 1;
        break;
      }
      preceding_backslash = c == '\\' ? !preceding_backslash : false;
    }
    for (; value_start < logical.size(); ++value_start) {
      const char c = logical[value_start];
      if (is_blank(c)) continue;
      if (!has_separator && (c == '=' || c == ':')) {
        has_separator = true;
        continue;
      }
      break;
    }
    std::string key = unescape(std::string_view(logical).substr(0, key_len), file, first_line);
    out.insert_or_assign(std::move(key),
                         unescape(std::string_view(logical).substr(value_start), file, first_line));
  }
  return out;
}

MetaProperties meta_properties_of(const std::map<std::string, std::string>& props,
                                  const fs::path& file) {
  const std::string where = file.string() + ": ";
  // Kafka writes every file with a version line or an id: without both, the bytes are something
  // else (another program's, or garbage) and the directory cannot be told whose it is.
  if (props.count("version") == 0 && props.count("node.id") == 0 && props.count("broker.id") == 0) {
    throw ConfigError(where +
                      "No version, node.id or broker.id line is found, so this is not a "
                      "meta.properties Kafka writes; restore the directory's own file, or remove "
                      "it to have a new one written, and start again.");
  }
  MetaProperties m;
  // MetaPropertiesVersion.fromNumberString: trimmed, and 0 when the line is missing.
  std::string_view version = "0";
  if (auto it = props.find("version"); it != props.end()) version = it->second;
  std::string_view trimmed = version;
  while (!trimmed.empty() && static_cast<unsigned char>(trimmed.front()) <= ' ') {
    trimmed.remove_prefix(1);
  }
  while (!trimmed.empty() && static_cast<unsigned char>(trimmed.back()) <= ' ') {
    trimmed.remove_suffix(1);
  }
  std::optional<int32_t> number = java_int(trimmed);
  if (!number) {
    throw ConfigError(where + "Invalid meta.properties version string " + quoted_text(version) +
                      ".");
  }
  if (*number < 0 || *number > 2) {
    throw ConfigError(where + "Unknown meta.properties version number " + std::to_string(*number) +
                      "; Kafka writes version 0, 1 or 2.");
  }
  m.version = *number;

  auto id_of = [&](const char* key) -> std::optional<int32_t> {
    auto it = props.find(key);
    if (it == props.end()) return std::nullopt;
    std::optional<int32_t> id = java_int(it->second);
    if (!id) {
      throw ConfigError(where + "Unable to read " + key +
                        " as a base-10 number: " + quoted_text(it->second) + ".");
    }
    return id;
  };
  const std::optional<int32_t> broker_id = id_of("broker.id");
  const std::optional<int32_t> node_id = id_of("node.id");
  if (broker_id && node_id && *broker_id != *node_id) {
    throw ConfigError(where + "broker.id " + std::to_string(*broker_id) + " and node.id " +
                      std::to_string(*node_id) + " disagree; they name the same node.");
  }
  m.node_id = node_id ? node_id : broker_id;
  // lds-host 0.1 wrote "version=1" with broker.id and no node.id or cluster.id. Its data dirs keep
  // working: the file is read as that release meant it, and never rewritten.
  if (m.version == 1 && broker_id && !node_id && props.count("cluster.id") == 0) {
    m.written_by_lds_host_0_1 = true;
    if (auto it = props.find("directory.id"); it != props.end()) {
      if (std::string why = uuid_problem(it->second); !why.empty()) {
        throw ConfigError(where + "Unable to read directory.id as a Uuid: " + why + ".");
      }
      m.directory_id = it->second;
    }
    return m;
  }
  if (m.version >= 1 && !node_id) {
    throw ConfigError(
        where + "node.id was not specified in this version " + std::to_string(m.version) + " file" +
        (broker_id ? " (version 1 and later name the node node.id, not broker.id)" : "") + ".");
  }
  if (auto it = props.find("cluster.id"); it != props.end()) m.cluster_id = it->second;
  if (m.version == 1 && !m.cluster_id) {
    throw ConfigError(where + "cluster.id was not specified in this version 1 file.");
  }
  if (auto it = props.find("directory.id"); it != props.end()) {
    if (std::string why = uuid_problem(it->second); !why.empty()) {
      throw ConfigError(where + "Unable to read directory.id as a Uuid: " + why + ".");
    }
    m.directory_id = it->second;
  }
  if (m.version == 2 && !m.directory_id) {
    throw ConfigError(where + "directory.id was not specified in this version 2 file.");
  }
  return m;
}

std::optional<MetaProperties> read_meta_properties(const fs::path& file) {
  std::optional<std::string> content;
  try {
    content = read_file_if_present(file);
  } catch (const FileError& e) {
    throw ConfigError(file.string() + ": cannot read the log directory's meta.properties: " +
                      std::strerror(e.code().value()) + ".");
  }
  if (!content) return std::nullopt;
  return meta_properties_of(parse_java_properties(*content, file), file);
}

std::string meta_properties_text(int32_t node_id, std::string_view cluster_id,
                                 std::string_view directory_id) {
  return "#Written by lds-host: Kafka's log directory metadata, version 1.\n"
         "version=1\n"
         "node.id=" +
         std::to_string(node_id) + "\ncluster.id=" + escaped_value(cluster_id) +
         "\ndirectory.id=" + escaped_value(directory_id) + "\n";
}

std::string node_id_mismatch(int32_t stored, int32_t configured, const fs::path& file) {
  return "Stored node id " + std::to_string(stored) + " doesn't match previous node id " +
         std::to_string(configured) + " in " + file.string() +
         ". If you moved your data, make sure your configured node id matches. If you intend to "
         "create a new node, you should remove all data in your data directories.";
}

std::string cluster_id_mismatch(const fs::path& file, std::string_view expected,
                                std::string_view stored) {
  return "Invalid cluster.id in: " + file.string() + ". Expected " + std::string(expected) +
         ", but read " + std::string(stored);
}

std::string directory_id_for_path(const fs::path& dir) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a of the path, spread by splitmix64
  for (unsigned char c : dir.string()) h = (h ^ c) * 1099511628211ull;
  const uint64_t a = splitmix64(h), b = splitmix64(h ^ 0x9E3779B97F4A7C15ull);
  std::array<unsigned char, 16> bytes{};
  for (size_t j = 0; j < 8; ++j) {
    bytes[j] = static_cast<unsigned char>(a >> (56 - 8 * j));
    bytes[8 + j] = static_cast<unsigned char>(b >> (56 - 8 * j));
  }
  bytes[6] = static_cast<unsigned char>((bytes[6] & 0x0f) | 0x40);  // version 4: never reserved
  bytes[8] = static_cast<unsigned char>((bytes[8] & 0x3f) | 0x80);  // IETF variant
  // A first character of '-' (the top six bits 111110) is avoided, as Kafka's random ids avoid it.
  if ((bytes[0] >> 2) == 62) bytes[0] = static_cast<unsigned char>(bytes[0] & 0x7F);
  return uuid_text(bytes);
}

}  // namespace lds
