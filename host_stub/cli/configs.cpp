// configs.cpp: `lds-host configs`: lists the broker's configs (DescribeConfigs) or changes its
// dynamic ones (IncrementalAlterConfigs), with kafka-configs.sh's syntax and output.
#include <algorithm>
#include <cctype>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "admin/admin_client.h"
#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"

namespace lds::cli {
namespace {

using nlohmann::json;

struct ConfigsArgs {
  Target target;
  KafkaAddressing addressing;
  bool describe = false;
  bool alter = false;
  bool all = false;
  bool table = false;
  std::vector<std::string> add_configs;
  std::vector<std::string> delete_configs;
};

std::string trimmed(const std::string& s) {
  const auto first = s.find_first_not_of(" \t\n\r\f\v");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\n\r\f\v") - first + 1);
}

// Splits `text` at each `sep` outside square brackets, keeping empty pieces, as kafka-configs.sh's
// split(sep + "(?=[^\\]]*(?:\\[|$))", -1) does.
std::vector<std::string> split_outside_brackets(const std::string& text, char sep) {
  std::vector<std::string> out(1);
  bool in_brackets = false;
  for (char c : text) {
    if (c == '[') in_brackets = true;
    if (c == ']') in_brackets = false;
    if (c == sep && !in_brackets) {
      out.emplace_back();
    } else {
      out.back() += c;
    }
  }
  return out;
}

// The --add-config flags as kafka-configs.sh reads one: 'k1=v1,k2=[a,b]', brackets removed from
// values, both sides trimmed. Throws std::invalid_argument with its sentence.
std::vector<std::pair<std::string, std::string>> parse_add_configs(
    const std::vector<std::string>& flags) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& flag : flags) {
    for (const auto& pair : split_outside_brackets(flag, ',')) {
      const std::vector<std::string> kv = split_outside_brackets(pair, '=');
      if (kv.size() != 2) {
        // kafka-configs.sh's sentence, two spaces included (ConfigCommand.parseConfigsToBeAdded).
        throw std::invalid_argument(
            "Invalid entity config: all configs to be added must be in the format \"key=val\" or  "
            "\"key=[val1,val2]\" to group values which contain commas.");
      }
      const std::string key = trimmed(kv[0]);
      std::string value;
      for (char c : kv[1]) {
        if (c != '[' && c != ']') value += c;
      }
      value = trimmed(value);
      if (!std::all_of(key.begin(), key.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) || c == '$' || c == '.' ||
                   c == '_' || c == '-';
          })) {
        throw std::invalid_argument("Invalid character found for config key: " + key);
      }
      // As java.util.Properties: a key given twice keeps its last value.
      auto same =
          std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == key; });
      if (same != out.end()) {
        same->second = value;
      } else {
        out.emplace_back(key, value);
      }
    }
  }
  return out;
}

// The --delete-config flags: 'k1,k2', each name trimmed.
std::vector<std::string> parse_delete_configs(const std::vector<std::string>& flags) {
  std::vector<std::string> out;
  for (const auto& flag : flags) {
    std::string piece;
    for (size_t i = 0; i <= flag.size(); ++i) {
      if (i == flag.size() || flag[i] == ',') {
        if (!trimmed(piece).empty()) out.push_back(trimmed(piece));
        piece.clear();
      } else {
        piece += flag[i];
      }
    }
  }
  return out;
}

json request(AdminClient& client, const json& req) {
  json response = json::parse(client.call(req.dump()));
  if (response.value("error", kUnknownServerError) != kNone) {
    throw std::runtime_error(response.value("error", kUnknownServerError) + ": " +
                             response.value("message", ""));
  }
  return response;
}

int alter(const ConfigsArgs& args) {
  std::vector<std::pair<std::string, std::string>> adds;
  std::vector<std::string> deletes;
  try {
    adds = parse_add_configs(args.add_configs);
    deletes = parse_delete_configs(args.delete_configs);
  } catch (const std::invalid_argument& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
  if (adds.empty() && deletes.empty()) {
    std::cerr << "lds-host: configs --alter needs --add-config or --delete-config.\n";
    return kExitUsage;
  }
  // Deletes first, then sets, as kafka-configs.sh sends them.
  json configs = json::array();
  std::vector<std::string> names;
  for (const auto& k : deletes) {
    configs.push_back({{"name", k}, {"op", "DELETE"}});
    names.push_back(k);
  }
  for (const auto& [k, v] : adds) {
    configs.push_back({{"name", k}, {"op", "SET"}, {"value", v}});
    if (std::find(names.begin(), names.end(), k) == names.end()) names.push_back(k);
  }
  const json alter_request = {{"api", "IncrementalAlterConfigs"}, {"configs", configs}};
  if (args.target.json) {
    return call(args.target, alter_request, [](const json&) { return 0; });
  }
  try {
    AdminClient client(socket_of(args.target));
    const json before = request(client, {{"api", "DescribeConfigs"}});
    // As kafka-configs.sh: only a key set dynamically can be deleted.
    std::string invalid;
    for (const auto& k : deletes) {
      const bool dynamic =
          std::any_of(before["configs"].begin(), before["configs"].end(),
                      [&](const json& c) { return c["name"] == k && c["source"] == "DYNAMIC"; });
      if (!dynamic) invalid += (invalid.empty() ? "" : ",") + k;
    }
    if (!invalid.empty()) {
      std::cerr << "lds-host: Invalid config(s): " << invalid << "\n";
      return kExitRefused;
    }
    json response = json::parse(client.call(alter_request.dump()));
    if (response.value("error", kUnknownServerError) != kNone) {
      std::cerr << "lds-host: " << response.value("error", kUnknownServerError) << ": "
                << response.value("message", "") << "\n";
      return kExitRefused;
    }
    const json after = request(client, {{"api", "DescribeConfigs"}});
    return print_altered(before, after, names);
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return kExitUsage;
  }
}

}  // namespace

Command add_configs_command(CLI::App& app) {
  auto args = std::make_shared<ConfigsArgs>();
  auto* cmd =
      app.add_subcommand("configs",
                         "Describe or alter configs as kafka-configs.sh does (DescribeConfigs, "
                         "IncrementalAlterConfigs)");
  add_target_options(cmd, args->target);
  add_kafka_addressing_options(cmd, args->addressing);
  auto* describe = cmd->add_flag("--describe", args->describe,
                                 "List the dynamic configs (with --all: every config)");
  auto* alter_flag = cmd->add_flag("--alter", args->alter, "Change dynamic configs");
  describe->excludes(alter_flag);
  cmd->add_flag("--all", args->all, "With --describe: every config, not only the dynamic ones");
  cmd->add_flag("--table", args->table,
                "With --describe: every config as a table of name, source, dynamic and value");
  cmd->add_option("--add-config", args->add_configs,
                  "Configs to set: 'k1=v1,k2=[a,b]' (brackets group a list value; repeatable)");
  cmd->add_option("--delete-config", args->delete_configs,
                  "Dynamic configs to remove: 'k1,k2' (repeatable)");
  return {cmd, [args] {
            if (auto refused = refuse_kafka_addressing("configs", args->addressing, args->target)) {
              return *refused;
            }
            if (args->alter) return alter(*args);
            if (args->table) return call(args->target, {{"api", "DescribeConfigs"}}, print_configs);
            return call(args->target, {{"api", "DescribeConfigs"}},
                        args->all ? print_all_configs : print_dynamic_configs);
          }};
}

}  // namespace lds::cli
