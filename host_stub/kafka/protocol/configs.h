// configs.h: the config APIs. DescribeConfigs (key 32) versions 0 to 4: version 1 adds
// IncludeSynonyms, each entry's ConfigSource and synonyms, and drops IsDefault; 2 is the same as 1;
// 3 adds IncludeDocumentation and each entry's ConfigType and Documentation; 4 is flexible.
// AlterConfigs (key 33) versions 0 to 2 (2 flexible) and IncrementalAlterConfigs (key 44) versions
// 0 and 1 (1 flexible) answer with the same per-resource response.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "model/wire.h"

namespace lds::kafka {

// Kafka's ConfigResource.Type ids.
namespace resource_type {
inline constexpr int8_t kTopic = 2;
inline constexpr int8_t kBroker = 4;
}  // namespace resource_type

// Kafka's DescribeConfigsResponse.ConfigSource ids.
namespace config_source {
inline constexpr int8_t kDynamicBrokerConfig = 2;
inline constexpr int8_t kDynamicDefaultBrokerConfig = 3;
inline constexpr int8_t kStaticBrokerConfig = 4;
inline constexpr int8_t kDefaultConfig = 5;
}  // namespace config_source

// Kafka's DescribeConfigsResponse.ConfigType ids (ConfigDef.Type, as DescribeConfigs v3+ names
// them).
namespace config_type {
inline constexpr int8_t kUnknown = 0;
inline constexpr int8_t kBoolean = 1;
inline constexpr int8_t kString = 2;
inline constexpr int8_t kInt = 3;
inline constexpr int8_t kShort = 4;
inline constexpr int8_t kLong = 5;
inline constexpr int8_t kDouble = 6;
inline constexpr int8_t kList = 7;
inline constexpr int8_t kClass = 8;
inline constexpr int8_t kPassword = 9;
}  // namespace config_type

// Kafka's AlterConfigOp.OpType ids.
namespace config_operation {
inline constexpr int8_t kSet = 0;
inline constexpr int8_t kDelete = 1;
inline constexpr int8_t kAppend = 2;
inline constexpr int8_t kSubtract = 3;
}  // namespace config_operation

struct DescribeConfigsRequest {
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::optional<std::vector<std::string>> configuration_keys;  // nullopt: every key
  };
  std::vector<Resource> resources;
  bool include_synonyms = false;       // v1+
  bool include_documentation = false;  // v3+
};

struct DescribeConfigsResponse {
  struct Synonym {
    std::string name;
    std::optional<std::string> value;
    int8_t source = 0;
  };
  struct Config {
    std::string name;
    std::optional<std::string> value;
    bool read_only = false;
    bool is_default = false;    // v0 only
    int8_t config_source = -1;  // v1+
    bool is_sensitive = false;
    std::vector<Synonym> synonyms;               // v1+
    int8_t config_type = config_type::kUnknown;  // v3+
    std::optional<std::string> documentation;    // v3+
  };
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> results;
};

// AlterConfigs and IncrementalAlterConfigs: `config_operation` is read and written for the latter
// only (`incremental`).
struct AlterConfigsRequest {
  struct Config {
    std::string name;
    int8_t config_operation = config_operation::kSet;  // IncrementalAlterConfigs only
    std::optional<std::string> value;
  };
  struct Resource {
    int8_t resource_type = 0;
    std::string resource_name;
    std::vector<Config> configs;
  };
  std::vector<Resource> resources;
  bool validate_only = false;
};

struct AlterConfigsResponse {
  struct Result {
    int16_t error_code = 0;
    std::optional<std::string> error_message;
    int8_t resource_type = 0;
    std::string resource_name;
  };
  int32_t throttle_time_ms = 0;
  std::vector<Result> responses;
};

DescribeConfigsRequest read_describe_configs_request(Reader& in, int16_t version);
void write_describe_configs_request(Writer& out, const DescribeConfigsRequest& request,
                                    int16_t version);
void write_describe_configs_response(Writer& out, const DescribeConfigsResponse& response,
                                     int16_t version);
DescribeConfigsResponse read_describe_configs_response(Reader& in, int16_t version);

AlterConfigsRequest read_alter_configs_request(Reader& in, bool incremental, int16_t version);
void write_alter_configs_request(Writer& out, const AlterConfigsRequest& request, bool incremental,
                                 int16_t version);
void write_alter_configs_response(Writer& out, const AlterConfigsResponse& response,
                                  bool incremental, int16_t version);
AlterConfigsResponse read_alter_configs_response(Reader& in, bool incremental, int16_t version);

}  // namespace lds::kafka
