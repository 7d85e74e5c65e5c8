// broker_toml.h: the broker config file a suite starts a broker from, built key by key: its log
// dirs, its plugin folder, then whatever else the suite sets. Suites whose subject is the config
// parser itself keep their text inline: there the text is what is tested.
#pragma once

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace lds::test {

// `s` as a TOML basic string: quoted, with its quotes and backslashes escaped.
inline std::string toml_string(const std::string& s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

class BrokerToml {
 public:
  // log.dirs, in order; relative entries resolve against the file's folder.
  BrokerToml& log_dirs(const std::vector<std::filesystem::path>& dirs) {
    std::string value = "[";
    for (size_t i = 0; i < dirs.size(); ++i) {
      value += (i == 0 ? "" : ", ") + toml_string(dirs[i].string());
    }
    return set_raw("log.dirs", value + "]");
  }
  BrokerToml& plugin_dir(const std::filesystem::path& dir) {
    return set("plugin.dir", dir.string());
  }
  // `key` = `value`, as a TOML string.
  BrokerToml& set(const std::string& key, const std::string& value) {
    return set_raw(key, toml_string(value));
  }
  // `key` = `toml`, written as given: a number, a boolean, an array.
  BrokerToml& set_raw(const std::string& key, const std::string& toml) {
    text_ += key + " = " + toml + "\n";
    return *this;
  }
  // Lines written as given, after the keys set so far ("" adds nothing).
  BrokerToml& lines(const std::string& text) {
    text_ += text;
    if (!text.empty() && text.back() != '\n') text_ += "\n";
    return *this;
  }

  const std::string& text() const { return text_; }
  // Writes the file, replacing any; returns its path.
  std::filesystem::path write(const std::filesystem::path& file) const {
    std::ofstream out(file, std::ios::trunc);
    out << text_;
    out.close();
    if (!out) throw std::runtime_error("Cannot write the broker config " + file.string() + ".");
    return file;
  }

 private:
  std::string text_;
};

}  // namespace lds::test
