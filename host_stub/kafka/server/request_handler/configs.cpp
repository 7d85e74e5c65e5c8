// request_handler/configs.cpp: DescribeConfigs, AlterConfigs and IncrementalAlterConfigs against
// the broker's config (Broker::describe_configs, Broker::alter_configs and
// Broker::replace_dynamic_configs), with Kafka's per-resource checks and sentences
// (ConfigHelper.scala and ConfigAdminManager.scala).
#include "kafka/protocol/configs.h"

#include <algorithm>
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "broker/broker.h"
#include "io/log_layout.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/headers.h"
#include "kafka/server/request_handler.h"
#include "kafka/server/topic_configs.h"

namespace lds::kafka {
namespace {

// A refused resource: its error code and Kafka's message.
struct ConfigRefusal {
  int16_t code = 0;
  std::optional<std::string> message;
};

std::optional<int32_t> parse_int(const std::string& text) {
  int32_t v = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || ptr != text.data() + text.size() || text.empty()) return std::nullopt;
  return v;
}

int8_t source_id(const std::string& source) {
  if (source == "DYNAMIC" || source == "DYNAMIC_BROKER_CONFIG") {
    return config_source::kDynamicBrokerConfig;
  }
  if (source == "STATIC" || source == "STATIC_BROKER_CONFIG") {
    return config_source::kStaticBrokerConfig;
  }
  return config_source::kDefaultConfig;
}

int8_t type_id(const std::string& type) {
  if (type == "BOOLEAN") return config_type::kBoolean;
  if (type == "STRING") return config_type::kString;
  if (type == "INT") return config_type::kInt;
  if (type == "LONG") return config_type::kLong;
  if (type == "LIST") return config_type::kList;
  return config_type::kUnknown;
}

// Keys Kafka defines only as dynamic broker configs (DynamicConfig.Broker), outside its static
// ConfigDef: DescribeConfigs lists them only once set, and without a default synonym.
bool kafka_dynamic_only(const std::string& name) {
  return name == "replica.alter.log.dirs.io.max.bytes.per.second";
}

// The entries of one DescribeConfigs BROKER resource for this broker: every key, or those named,
// with their synonyms and documentation when asked for.
std::vector<DescribeConfigsResponse::Config> broker_configs(
    const std::vector<DescribedConfig>& described,
    const std::optional<std::vector<std::string>>& keys, bool with_synonyms,
    bool with_documentation) {
  std::set<std::string> wanted;
  if (keys) wanted.insert(keys->begin(), keys->end());
  std::vector<DescribeConfigsResponse::Config> out;
  for (const DescribedConfig& d : described) {
    if (!wanted.empty() && wanted.count(d.name) == 0) continue;
    DescribeConfigsResponse::Config c;
    c.name = d.name;
    c.value = d.value;
    c.read_only = !d.dynamic;
    c.config_source = source_id(d.source);
    c.is_default = c.config_source == config_source::kDefaultConfig;
    c.is_sensitive = false;
    const bool dynamic_only = kafka_dynamic_only(d.name);
    if (dynamic_only && c.is_default) continue;
    if (with_synonyms) {
      for (const auto& [source, value] : d.synonyms) {
        const int8_t id = source_id(source);
        if (dynamic_only && id == config_source::kDefaultConfig) continue;
        c.synonyms.push_back({d.name, value, id});
      }
    }
    c.config_type = type_id(d.type);
    if (with_documentation) c.documentation = d.documentation;
    out.push_back(std::move(c));
  }
  return out;
}

// Kafka's check of a BROKER resource name naming this broker (ConfigHelper for DescribeConfigs,
// ConfigAdminManager for the alterations, whose sentences differ slightly).
std::optional<ConfigRefusal> check_broker_name(const std::string& name, int32_t broker_id,
                                               bool describe) {
  const std::optional<int32_t> id = parse_int(name);
  if (!id) {
    return ConfigRefusal{error::kInvalidRequest, std::string(describe ? "Broker" : "Node") +
                                                     " id must be an integer, but it is: " + name};
  }
  if (*id != broker_id) {
    return ConfigRefusal{error::kInvalidRequest,
                         "Unexpected broker id, expected " + std::to_string(broker_id) +
                             (describe ? " or empty string," : ",") + " but received " + name};
  }
  return std::nullopt;
}

// The checks ConfigAdminManager.preprocess makes of one alteration resource before it looks at
// its type: duplicate keys, and null values (for IncrementalAlterConfigs, except with DELETE).
std::optional<ConfigRefusal> check_alterations(const AlterConfigsRequest::Resource& resource,
                                               bool incremental) {
  std::set<std::string> names;
  for (const auto& c : resource.configs) {
    if (!names.insert(c.name).second) {
      return ConfigRefusal{error::kInvalidRequest, "Error due to duplicate config keys"};
    }
  }
  std::string nulls;
  for (const auto& c : resource.configs) {
    if (c.value || (incremental && c.config_operation == config_operation::kDelete)) continue;
    nulls += (nulls.empty() ? "" : ", ") + c.name;
  }
  if (!nulls.empty())
    return ConfigRefusal{error::kInvalidRequest, "Null value not supported for : " + nulls};
  return std::nullopt;
}

// An IncrementalAlterConfigs resource's alterations as Broker::alter_configs takes them. Throws
// KafkaError for an operation Kafka does not define.
std::vector<ConfigAlteration> incremental_alterations(
    const AlterConfigsRequest::Resource& resource) {
  std::vector<ConfigAlteration> changes;
  for (const auto& c : resource.configs) {
    ConfigAlteration a{c.name, ConfigAlteration::Op::kSet, c.value.value_or("")};
    switch (c.config_operation) {
      case config_operation::kSet:
        break;
      case config_operation::kDelete:
        a.op = ConfigAlteration::Op::kDelete;
        break;
      case config_operation::kAppend:
        a.op = ConfigAlteration::Op::kAppend;
        break;
      case config_operation::kSubtract:
        a.op = ConfigAlteration::Op::kSubtract;
        break;
      default:
        throw KafkaError(
            ErrorCode::kInvalidRequest,
            "Unknown operations type " + std::to_string(static_cast<int>(c.config_operation)));
    }
    changes.push_back(std::move(a));
  }
  return changes;
}

// Applies (or with `validate_only` checks) the alterations of a BROKER resource naming this
// broker; the broker's refusal, if it refuses them.
std::optional<ConfigRefusal> alter_broker_configs(Broker& broker,
                                                  const AlterConfigsRequest::Resource& resource,
                                                  bool incremental, bool validate_only) {
  try {
    if (incremental) {
      broker.alter_configs(incremental_alterations(resource),
                           ConfigChangeSource::kKafkaIncrementalAlterConfigs, validate_only);
    } else {
      std::vector<ConfigEntry> entries;
      for (const auto& c : resource.configs) entries.push_back({c.name, *c.value});
      broker.replace_dynamic_configs(entries, ConfigChangeSource::kKafkaAlterConfigs,
                                     validate_only);
    }
  } catch (const KafkaError& e) {
    return ConfigRefusal{error_code_of(e.code()), e.what()};
  }
  return std::nullopt;
}

}  // namespace

// The entries of one DescribeConfigs TOPIC resource: every topic config (or those named), each
// the value of the broker key it follows, with that key's source and synonyms (Kafka's
// ConfigHelper.createTopicConfigEntry for a topic without overrides), else Kafka's default.
std::vector<DescribeConfigsResponse::Config> topic_config_entries(
    const std::vector<DescribedConfig>& described,
    const std::optional<std::vector<std::string>>& keys, bool with_synonyms) {
  std::set<std::string> wanted;
  if (keys) wanted.insert(keys->begin(), keys->end());
  std::vector<DescribeConfigsResponse::Config> out;
  for (const TopicConfigDefault& t : topic_config_defaults()) {
    if (!wanted.empty() && wanted.count(std::string(t.name)) == 0) continue;
    DescribeConfigsResponse::Config c;
    c.name = t.name;
    c.value = std::string(t.value);
    c.config_source = config_source::kDefaultConfig;
    for (const DescribedConfig& d : described) {
      if (t.broker_key.empty() || d.name != t.broker_key) continue;
      c.value = d.value;
      c.config_source = source_id(d.source);
      for (const auto& [source, value] : d.synonyms) {
        if (with_synonyms) c.synonyms.push_back({d.name, value, source_id(source)});
      }
    }
    if (t.cluster_default) {
      c.config_source = config_source::kDynamicDefaultBrokerConfig;
      if (with_synonyms) {
        c.synonyms = {{std::string(t.name), c.value, config_source::kDynamicDefaultBrokerConfig},
                      {std::string(t.name), c.value, config_source::kDefaultConfig}};
      }
    }
    c.is_default = c.config_source == config_source::kDefaultConfig;
    c.read_only = false;  // as Kafka lists topic configs
    c.is_sensitive = false;
    out.push_back(std::move(c));
  }
  return out;
}

std::string RequestHandler::describe_configs(std::string_view body, int16_t version,
                                             int32_t correlation_id) const {
  Reader in(body);
  const DescribeConfigsRequest request = read_describe_configs_request(in, version);
  const std::set<std::string> hosted = hosted_topics();
  std::optional<std::vector<DescribedConfig>> described;  // read once, when a resource needs it

  DescribeConfigsResponse r;
  for (const auto& res : request.resources) {
    DescribeConfigsResponse::Result result;
    result.resource_type = res.resource_type;
    result.resource_name = res.resource_name;
    auto refuse = [&](const ConfigRefusal& why) {
      result.error_code = why.code;
      result.error_message = why.message;
    };
    if (res.resource_type == resource_type::kBroker) {
      // An empty name asks for the cluster-wide dynamic defaults, of which this broker keeps none.
      if (!res.resource_name.empty()) {
        if (auto why = check_broker_name(res.resource_name, broker_id_, true)) {
          refuse(*why);
        } else {
          if (!described) described = broker_.describe_configs();
          result.configs = broker_configs(*described, res.configuration_keys,
                                          version >= 1 && request.include_synonyms,
                                          version >= 3 && request.include_documentation);
        }
      }
    } else if (res.resource_type == resource_type::kTopic) {
      // Topics keep no overrides here (CreateTopics reads retention.bytes for placement only),
      // so each config is its broker key's value or Kafka's default.
      if (std::string why = layout::topic_name_problem(res.resource_name); !why.empty()) {
        refuse({error::kInvalidTopicException, why});
      } else if (hosted.count(res.resource_name) == 0) {
        refuse({error::kUnknownTopicOrPartition, std::nullopt});
      } else {
        if (!described) described = broker_.describe_configs();
        result.configs = topic_config_entries(*described, res.configuration_keys,
                                              version >= 1 && request.include_synonyms);
      }
    } else {
      refuse({error::kInvalidRequest,
              "Unsupported resource type: " + std::to_string(res.resource_type)});
    }
    r.results.push_back(std::move(result));
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kDescribeConfigs, version));
  write_describe_configs_response(out, r, version);
  return out.take();
}

std::string RequestHandler::alter_configs(std::string_view body, bool incremental, int16_t version,
                                          int32_t correlation_id) const {
  Reader in(body);
  const AlterConfigsRequest request = read_alter_configs_request(in, incremental, version);
  std::map<std::pair<int8_t, std::string>, int> mentions;
  for (const auto& res : request.resources) ++mentions[{res.resource_type, res.resource_name}];

  std::optional<std::set<std::string>> hosted;  // read once, when a topic resource needs it
  AlterConfigsResponse r;
  for (const auto& res : request.resources) {
    AlterConfigsResponse::Result result;
    result.resource_type = res.resource_type;
    result.resource_name = res.resource_name;
    auto refuse = [&](const ConfigRefusal& why) {
      result.error_code = why.code;
      result.error_message = why.message;
    };
    if (mentions[{res.resource_type, res.resource_name}] > 1) {
      refuse({error::kInvalidRequest, "Each resource must appear at most once."});
    } else if (auto why = check_alterations(res, incremental)) {
      refuse(*why);
    } else if (res.resource_type == resource_type::kBroker) {
      if (res.resource_name.empty()) {
        refuse({error::kInvalidRequest,
                "This broker keeps no cluster-wide default configs; name broker " +
                    std::to_string(broker_id_) + " as the resource instead of the empty name."});
      } else if (auto bad_name = check_broker_name(res.resource_name, broker_id_, false)) {
        refuse(*bad_name);
      } else if (auto refused =
                     alter_broker_configs(broker_, res, incremental, request.validate_only)) {
        refuse(*refused);
      }
    } else if (res.resource_type == resource_type::kTopic) {
      // Topics keep no overrides here, so deleting one changes nothing: what
      // kafka-reassign-partitions --verify asks when it clears the topics' replication throttles.
      const bool only_deletes =
          incremental && std::all_of(res.configs.begin(), res.configs.end(), [](const auto& c) {
            return c.config_operation == config_operation::kDelete;
          });
      if (std::string bad = layout::topic_name_problem(res.resource_name); !bad.empty()) {
        refuse({error::kInvalidTopicException, bad});
      } else if ((hosted ? *hosted : *(hosted = hosted_topics())).count(res.resource_name) == 0) {
        refuse({error::kUnknownTopicOrPartition, std::nullopt});
      } else if (!only_deletes) {
        refuse({error::kInvalidRequest,
                "This broker keeps no topic configs, so the configs of topic " + res.resource_name +
                    " cannot be altered."});
      }
    } else {
      refuse({error::kInvalidRequest,
              "Unknown resource type " + std::to_string(static_cast<int>(res.resource_type))});
    }
    r.responses.push_back(std::move(result));
  }
  Writer out;
  write_response_header(
      out, correlation_id,
      response_header_version(
          incremental ? ApiKey::kIncrementalAlterConfigs : ApiKey::kAlterConfigs, version));
  write_alter_configs_response(out, r, incremental, version);
  return out.take();
}

}  // namespace lds::kafka
