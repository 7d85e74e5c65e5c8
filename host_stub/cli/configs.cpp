// configs.cpp: `lds-host configs`: lists the broker's configs (DescribeConfigs) or changes its
// dynamic ones (IncrementalAlterConfigs), with kafka-configs.sh's syntax and output, over the
// admin socket or, with --bootstrap-server, the broker's Kafka listener.
#include "kafka/protocol/configs.h"

#include <algorithm>
#include <cctype>
#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "admin/admin_client.h"
#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/kafka_client.h"
#include "model/wire.h"

namespace lds::cli {
namespace {

using kafka::kafka_error_name;
using kafka::KafkaClient;
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

// Where the config requests go: the admin socket, or with --bootstrap-server the broker's Kafka
// listener. Either way a request and its answer are the admin API's DescribeConfigs and
// IncrementalAlterConfigs JSON, so one flow serves both.
using Send = std::function<json(const json& request)>;

std::string source_name(int8_t source) {
  if (source == kafka::config_source::kDynamicBrokerConfig) return "DYNAMIC";
  if (source == kafka::config_source::kStaticBrokerConfig) return "STATIC";
  return "DEFAULT";
}

std::string synonym_source_name(int8_t source) {
  if (source == kafka::config_source::kDynamicBrokerConfig) return "DYNAMIC_BROKER_CONFIG";
  if (source == kafka::config_source::kStaticBrokerConfig) return "STATIC_BROKER_CONFIG";
  return "DEFAULT_CONFIG";
}

json refused(int16_t code, const std::optional<std::string>& message) {
  return {{"error", kafka_error_name(code)}, {"message", message.value_or("")}};
}

// DescribeConfigs (version 1, with synonyms) of broker `entity` on the Kafka listener.
json describe_over_kafka(KafkaClient& client, const std::string& entity) {
  kafka::DescribeConfigsRequest request;
  request.resources.push_back({kafka::resource_type::kBroker, entity, std::nullopt});
  request.include_synonyms = true;
  kafka::Writer out;
  kafka::write_describe_configs_request(out, request, 1);
  const std::string body =
      client.call(static_cast<int16_t>(kafka::ApiKey::kDescribeConfigs), 1, out.bytes());
  kafka::Reader in(body);
  const kafka::DescribeConfigsResponse response = kafka::read_describe_configs_response(in, 1);
  if (response.results.size() != 1) throw std::runtime_error("the broker answered no resource.");
  const auto& result = response.results[0];
  if (result.error_code != 0) return refused(result.error_code, result.error_message);
  json configs = json::array();
  for (const auto& c : result.configs) {
    json synonyms = json::array();
    for (const auto& syn : c.synonyms) {
      synonyms.push_back(
          {{"source", synonym_source_name(syn.source)}, {"value", syn.value.value_or("")}});
    }
    configs.push_back({{"name", c.name},
                       {"value", c.value.value_or("")},
                       {"source", source_name(c.config_source)},
                       {"dynamic", !c.read_only},
                       {"sensitive", c.is_sensitive},
                       {"synonyms", std::move(synonyms)}});
  }
  return {{"error", kNone}, {"message", ""}, {"configs", std::move(configs)}};
}

// IncrementalAlterConfigs (version 0) of broker `entity` on the Kafka listener.
json alter_over_kafka(KafkaClient& client, const std::string& entity, const json& configs) {
  kafka::AlterConfigsRequest request;
  kafka::AlterConfigsRequest::Resource resource;
  resource.resource_type = kafka::resource_type::kBroker;
  resource.resource_name = entity;
  for (const auto& c : configs) {
    kafka::AlterConfigsRequest::Config config;
    config.name = c["name"].get<std::string>();
    const bool set = c["op"] == "SET";
    config.config_operation =
        set ? kafka::config_operation::kSet : kafka::config_operation::kDelete;
    if (set) config.value = c["value"].get<std::string>();
    resource.configs.push_back(std::move(config));
  }
  request.resources.push_back(std::move(resource));
  kafka::Writer out;
  kafka::write_alter_configs_request(out, request, true, 0);
  const std::string body =
      client.call(static_cast<int16_t>(kafka::ApiKey::kIncrementalAlterConfigs), 0, out.bytes());
  kafka::Reader in(body);
  const kafka::AlterConfigsResponse response = kafka::read_alter_configs_response(in, true, 0);
  if (response.responses.size() != 1) throw std::runtime_error("the broker answered no resource.");
  const auto& result = response.responses[0];
  if (result.error_code != 0) return refused(result.error_code, result.error_message);
  return {{"error", kNone}, {"message", ""}};
}

Send sender_for(const ConfigsArgs& args) {
  if (!args.addressing.bootstrap_server.empty()) {
    auto client = std::make_shared<KafkaClient>(args.addressing.bootstrap_server);
    const std::string entity = args.addressing.entity_name;
    return [client, entity](const json& request) {
      if (request["api"] == "DescribeConfigs") return describe_over_kafka(*client, entity);
      return alter_over_kafka(*client, entity, request["configs"]);
    };
  }
  auto client = std::make_shared<AdminClient>(socket_of(args.target));
  return [client](const json& request) { return json::parse(client->call(request.dump())); };
}

// The response, unless it is refused: then its error on stderr (and with --json, the response on
// stdout) and nothing.
std::optional<json> accepted(const json& response, bool json_output) {
  const std::string error = response.value("error", kUnknownServerError);
  if (error == kNone) return response;
  if (json_output) std::cout << response.dump(2) << "\n";
  std::cerr << "lds-host: " << error << ": " << response.value("message", "") << "\n";
  return std::nullopt;
}

int describe_configs(const ConfigsArgs& args, const Send& send) {
  const std::optional<json> r = accepted(send({{"api", "DescribeConfigs"}}), args.target.json);
  if (!r) return kExitRefused;
  if (args.target.json) {
    std::cout << r->dump(2) << "\n";
    return kExitOk;
  }
  if (args.table) return print_configs(*r);
  return args.all ? print_all_configs(*r) : print_dynamic_configs(*r);
}

int alter(const ConfigsArgs& args, const Send& send) {
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
    const std::optional<json> r = accepted(send(alter_request), true);
    if (r) std::cout << r->dump(2) << "\n";
    return r ? kExitOk : kExitRefused;
  }
  const std::optional<json> before = accepted(send({{"api", "DescribeConfigs"}}), false);
  if (!before) return kExitRefused;
  // As kafka-configs.sh: only a key set dynamically can be deleted.
  std::string invalid;
  for (const auto& k : deletes) {
    const bool dynamic =
        std::any_of((*before)["configs"].begin(), (*before)["configs"].end(),
                    [&](const json& c) { return c["name"] == k && c["source"] == "DYNAMIC"; });
    if (!dynamic) invalid += (invalid.empty() ? "" : ",") + k;
  }
  if (!invalid.empty()) {
    std::cerr << "lds-host: Invalid config(s): " << invalid << "\n";
    return kExitRefused;
  }
  if (!accepted(send(alter_request), false)) return kExitRefused;
  const std::optional<json> after = accepted(send({{"api", "DescribeConfigs"}}), false);
  if (!after) return kExitRefused;
  return print_altered(*before, *after, names);
}

int run_configs(const ConfigsArgs& args) {
  if (auto refused_here = refuse_kafka_addressing("configs", args.addressing, args.target, true)) {
    return *refused_here;
  }
  try {
    const Send send = sender_for(args);
    return args.alter ? alter(args, send) : describe_configs(args, send);
  } catch (const CLI::Error&) {
    throw;
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
  return {cmd, [args] { return run_configs(*args); }};
}

}  // namespace lds::cli
