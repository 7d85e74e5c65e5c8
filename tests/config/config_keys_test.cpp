// config_keys_test.cpp: the key table agrees with the table of docs/configuration.md (names,
// defaults, dynamic flags), and each key's default reads back as the table states it.
#include "config/config_keys.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "host_test_support.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

using test::TempDir;

std::string doc_text() {
  std::ifstream in(fs::path(LDS_SOURCE_DIR) / "docs" / "configuration.md", std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every row the document must hold: the table's keys and the strategy option rule.
std::vector<ConfigKey> documented_keys() {
  std::vector<ConfigKey> keys(config_keys().begin(), config_keys().end());
  keys.push_back(kStrategyOptionRule);
  return keys;
}

std::string without_backticks(std::string_view cell) {
  std::string out;
  std::copy_if(cell.begin(), cell.end(), std::back_inserter(out),
               [](char ch) { return ch != '`'; });
  return out;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\r')) s.remove_suffix(1);
  return s;
}

// The cells of a Markdown table row "| a | b |", trimmed.
std::vector<std::string> cells_of(std::string_view row) {
  std::vector<std::string> cells;
  row = trimmed(row);
  if (row.empty() || row.front() != '|') return cells;
  row.remove_prefix(1);
  while (!row.empty()) {
    size_t bar = row.find('|');
    cells.emplace_back(trimmed(row.substr(0, bar)));
    if (bar == std::string_view::npos) break;
    row.remove_prefix(bar + 1);
  }
  if (!cells.empty() && cells.back().empty()) cells.pop_back();
  return cells;
}

// A key's default as the document's default column words it, backticks aside.
std::string doc_default(const ConfigKey& key) {
  const std::string text(key.default_value.text);
  switch (key.default_value.kind) {
    case ConfigDefault::Kind::kRequired:
      return "(required)";
    case ConfigDefault::Kind::kAbsent:
      return "";
    case ConfigDefault::Kind::kBesideExecutable:
      return text + " beside the executable";
    case ConfigDefault::Kind::kText:
      if (key.type == ConfigType::kPath) return text + " beside the config";
      return text.empty() ? "empty" : text;
  }
  return text;
}

struct DocRow {
  std::string default_text;
  std::string dynamic;
};

// The rows of the first table under "## Broker keys" whose header starts with "key", by key.
// Adds a problem for a missing table or a key listed twice.
std::map<std::string, DocRow> doc_rows(std::string_view doc, std::vector<std::string>& problems) {
  std::map<std::string, DocRow> rows;
  size_t section = doc.find("\n## Broker keys\n");
  if (section == std::string_view::npos) {
    problems.push_back("docs/configuration.md has no \"## Broker keys\" section");
    return rows;
  }
  std::istringstream lines{std::string(doc.substr(section + 1))};
  std::string line;
  std::getline(lines, line);  // the section heading
  size_t key_column = 0, default_column = 0, dynamic_column = 0;
  bool in_table = false;
  while (std::getline(lines, line)) {
    if (line.starts_with("## ")) break;
    std::vector<std::string> cells = cells_of(line);
    if (!in_table) {
      if (cells.empty() || cells.front() != "key") continue;
      auto column = [&](const char* name) {
        return static_cast<size_t>(std::find(cells.begin(), cells.end(), name) - cells.begin());
      };
      key_column = column("key");
      default_column = column("default");
      dynamic_column = column("dynamic");
      if (default_column == cells.size() || dynamic_column == cells.size()) {
        problems.push_back("the configuration table has no default or no dynamic column");
        return rows;
      }
      in_table = true;
      std::getline(lines, line);  // the |---| separator
      continue;
    }
    if (cells.empty()) break;
    if (cells.size() <= std::max({key_column, default_column, dynamic_column})) {
      problems.push_back("docs/configuration.md: a row has too few cells: " + line);
      continue;
    }
    std::string key = without_backticks(cells[key_column]);
    DocRow row{without_backticks(cells[default_column]), cells[dynamic_column]};
    if (!rows.emplace(key, row).second)
      problems.push_back(key + ": listed twice in docs/configuration.md");
  }
  if (!in_table) problems.push_back("docs/configuration.md has no table with a key column");
  return rows;
}

// Every way the table of docs/configuration.md and `keys` disagree, one sentence naming the key
// each; empty when they agree.
std::vector<std::string> doc_disagreements(std::string_view doc,
                                           const std::vector<ConfigKey>& keys) {
  std::vector<std::string> problems;
  std::map<std::string, DocRow> rows = doc_rows(doc, problems);
  for (const ConfigKey& key : keys) {
    const std::string name(key.name);
    auto row = rows.find(name);
    if (row == rows.end()) {
      problems.push_back(name + ": in the key table but not in docs/configuration.md");
      continue;
    }
    if (row->second.default_text != doc_default(key)) {
      problems.push_back(name + ": the default in docs/configuration.md is \"" +
                         row->second.default_text + "\", the key table's \"" + doc_default(key) +
                         "\"");
    }
    const std::string dynamic = key.dynamic ? "yes" : "no";
    if (row->second.dynamic != dynamic) {
      problems.push_back(name + ": dynamic is \"" + row->second.dynamic +
                         "\" in docs/configuration.md, \"" + dynamic + "\" in the key table");
    }
    rows.erase(row);
  }
  for (const auto& [name, row] : rows) {
    problems.push_back(name + ": in docs/configuration.md but not in the key table");
  }
  return problems;
}

std::string joined(const std::vector<std::string>& problems) {
  std::string out;
  for (const std::string& p : problems) out += p + "\n";
  return out;
}

// `doc` without the configuration table's row for `key`.
std::string without_doc_row(std::string doc, std::string_view key) {
  const std::string marker = "| `" + std::string(key) + "` |";
  size_t at = doc.find(marker);
  if (at == std::string::npos) return doc;
  size_t end = doc.find('\n', at);
  return doc.erase(at, end == std::string::npos ? std::string::npos : end - at + 1);
}

bool names(const std::vector<std::string>& problems, std::string_view key) {
  return std::any_of(problems.begin(), problems.end(),
                     [&](const std::string& p) { return p.starts_with(std::string(key) + ": "); });
}

TEST(ConfigKeys, DocumentedTableAgreesWithTheKeyTable) {
  const std::string doc = doc_text();
  ASSERT_FALSE(doc.empty()) << "cannot read docs/configuration.md from " << LDS_SOURCE_DIR;
  EXPECT_EQ(joined(doc_disagreements(doc, documented_keys())), "");
}

TEST(ConfigKeys, ARowMissingFromTheDocumentIsNamed) {
  const std::string doc = doc_text();
  for (const ConfigKey& key : documented_keys()) {
    const std::string shorter = without_doc_row(doc, key.name);
    ASSERT_NE(shorter, doc) << "no row in docs/configuration.md for " << key.name;
    const std::vector<std::string> problems = doc_disagreements(shorter, documented_keys());
    EXPECT_TRUE(names(problems, key.name)) << key.name << ":\n" << joined(problems);
    EXPECT_EQ(problems.size(), 1u) << joined(problems);
  }
}

TEST(ConfigKeys, ARowMissingFromTheKeyTableIsNamed) {
  const std::string doc = doc_text();
  const std::vector<ConfigKey> all = documented_keys();
  for (size_t dropped = 0; dropped < all.size(); ++dropped) {
    std::vector<ConfigKey> fewer = all;
    fewer.erase(fewer.begin() + static_cast<std::ptrdiff_t>(dropped));
    const std::vector<std::string> problems = doc_disagreements(doc, fewer);
    EXPECT_TRUE(names(problems, all[dropped].name)) << all[dropped].name << ":\n"
                                                    << joined(problems);
    EXPECT_EQ(problems.size(), 1u) << joined(problems);
  }
}

TEST(ConfigKeys, ADifferentDefaultOrDynamicFlagIsNamed) {
  const std::string doc = doc_text();
  std::vector<ConfigKey> keys = documented_keys();
  auto log_level = std::find_if(keys.begin(), keys.end(),
                                [](const ConfigKey& key) { return key.name == "log.level"; });
  ASSERT_NE(log_level, keys.end());

  log_level->default_value = ConfigDefault::text_of("debug");
  std::vector<std::string> problems = doc_disagreements(doc, keys);
  EXPECT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_TRUE(names(problems, "log.level")) << joined(problems);

  log_level->default_value = ConfigDefault::text_of("info");
  log_level->dynamic = false;
  problems = doc_disagreements(doc, keys);
  EXPECT_EQ(problems.size(), 1u) << joined(problems);
  EXPECT_TRUE(names(problems, "log.level")) << joined(problems);
}

TEST(ConfigKeys, NamesAreUniqueAndEveryRowIsDocumented) {
  std::vector<std::string> seen;
  for (const ConfigKey& key : documented_keys()) {
    EXPECT_EQ(std::count(seen.begin(), seen.end(), key.name), 0) << key.name;
    seen.emplace_back(key.name);
    EXPECT_FALSE(key.doc.empty()) << key.name;
    EXPECT_EQ(key.doc.find('\n'), std::string_view::npos) << key.name;
    EXPECT_NE(key.parse, nullptr) << key.name;
    EXPECT_NE(key.format, nullptr) << key.name;
  }
}

// A config that sets only the required keys describes every other key with the table's default.
TEST(ConfigKeys, DefaultsReadBackAsTheTableStatesThem) {
  TempDir dir;
  const fs::path folder = canonical_path("/", dir.path());
  const fs::path file = folder / "broker.toml";
  std::ofstream(file) << "log.dirs = [\"d1\"]\n";
  ConfigStore store(file);
  const std::vector<DescribedConfig> rows = store.describe();
  ASSERT_EQ(rows.size(), config_keys().size());
  for (size_t i = 0; i < rows.size(); ++i) {
    const ConfigKey& key = config_keys()[i];
    EXPECT_EQ(rows[i].name, key.name);
    EXPECT_EQ(rows[i].dynamic, key.dynamic) << key.name;
    if (key.default_value.kind == ConfigDefault::Kind::kRequired) continue;
    EXPECT_EQ(rows[i].source, "DEFAULT") << key.name;
    if (key.type == ConfigType::kPath) {
      const fs::path base = key.default_value.kind == ConfigDefault::Kind::kBesideExecutable
                                ? fs::read_symlink("/proc/self/exe").parent_path()
                                : folder;
      EXPECT_EQ(rows[i].value, canonical_path(base, key.default_value.text).string()) << key.name;
    } else {
      EXPECT_EQ(rows[i].value, key.default_value.text) << key.name;
    }
  }
}

TEST(ConfigKeys, StrategyOptionsFollowTheirRule) {
  const ConfigKey* option = find_config_key("log.directory.select.size.keep.free.bytes");
  ASSERT_EQ(option, &kStrategyOptionRule);
  EXPECT_TRUE(option->dynamic);
  EXPECT_NE(find_config_key("log.directory.select.strategy"), &kStrategyOptionRule);
  EXPECT_EQ(find_config_key("log.directory.select.size"), nullptr);
  EXPECT_EQ(find_config_key("log.directory.select..x"), nullptr);
  EXPECT_EQ(find_config_key("log.dirz"), nullptr);
  std::optional<StrategyOptionName> split =
      split_strategy_option("log.directory.select.size.keep.free.bytes");
  ASSERT_TRUE(split);
  EXPECT_EQ(split->strategy, "size");
  EXPECT_EQ(split->option, "keep.free.bytes");
}

}  // namespace
}  // namespace lds
