// configs.cpp: DescribeConfigs, AlterConfigs and IncrementalAlterConfigs requests and responses,
// from Kafka's DescribeConfigs{Request,Response}.json (versions 0 to 4),
// AlterConfigs{Request,Response}.json (0 to 2) and IncrementalAlterConfigs{Request,Response}.json
// (0 and 1), whose response layout is AlterConfigs'.
#include "kafka/protocol/configs.h"

namespace lds::kafka {
namespace {
// The first flexible version of each (Kafka's "flexibleVersions").
constexpr int16_t kDescribeFirstFlexible = 4;
bool alter_flexible(bool incremental, int16_t version) { return version >= (incremental ? 1 : 2); }
}  // namespace

DescribeConfigsRequest read_describe_configs_request(Reader& in, int16_t version) {
  const bool flex = version >= kDescribeFirstFlexible;
  DescribeConfigsRequest r;
  const int32_t n = in.non_null_array_length(flex);
  for (int32_t i = 0; i < n; ++i) {
    DescribeConfigsRequest::Resource res;
    res.resource_type = in.int8();
    res.resource_name = in.string(flex);
    if (std::optional<int32_t> keys = in.array_length(flex)) {
      res.configuration_keys.emplace();
      for (int32_t j = 0; j < *keys; ++j) res.configuration_keys->push_back(in.string(flex));
    }
    in.tagged_fields(flex);
    r.resources.push_back(std::move(res));
  }
  if (version >= 1) r.include_synonyms = in.boolean();
  if (version >= 3) r.include_documentation = in.boolean();
  in.tagged_fields(flex);
  return r;
}

void write_describe_configs_request(Writer& out, const DescribeConfigsRequest& request,
                                    int16_t version) {
  const bool flex = version >= kDescribeFirstFlexible;
  out.array_length(static_cast<int32_t>(request.resources.size()), flex);
  for (const auto& res : request.resources) {
    out.int8(res.resource_type);
    out.string(res.resource_name, flex);
    if (!res.configuration_keys) {
      out.array_length(std::nullopt, flex);
    } else {
      out.array_length(static_cast<int32_t>(res.configuration_keys->size()), flex);
      for (const auto& k : *res.configuration_keys) out.string(k, flex);
    }
    out.tagged_fields(flex);
  }
  if (version >= 1) out.boolean(request.include_synonyms);
  if (version >= 3) out.boolean(request.include_documentation);
  out.tagged_fields(flex);
}

void write_describe_configs_response(Writer& out, const DescribeConfigsResponse& response,
                                     int16_t version) {
  const bool flex = version >= kDescribeFirstFlexible;
  out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.results.size()), flex);
  for (const auto& r : response.results) {
    out.int16(r.error_code);
    out.nullable_string(r.error_message, flex);
    out.int8(r.resource_type);
    out.string(r.resource_name, flex);
    out.array_length(static_cast<int32_t>(r.configs.size()), flex);
    for (const auto& c : r.configs) {
      out.string(c.name, flex);
      out.nullable_string(c.value, flex);
      out.boolean(c.read_only);
      if (version == 0) out.boolean(c.is_default);
      if (version >= 1) out.int8(c.config_source);
      out.boolean(c.is_sensitive);
      if (version >= 1) {
        out.array_length(static_cast<int32_t>(c.synonyms.size()), flex);
        for (const auto& s : c.synonyms) {
          out.string(s.name, flex);
          out.nullable_string(s.value, flex);
          out.int8(s.source);
          out.tagged_fields(flex);
        }
      }
      if (version >= 3) {
        out.int8(c.config_type);
        out.nullable_string(c.documentation, flex);
      }
      out.tagged_fields(flex);
    }
    out.tagged_fields(flex);
  }
  out.tagged_fields(flex);
}

DescribeConfigsResponse read_describe_configs_response(Reader& in, int16_t version) {
  const bool flex = version >= kDescribeFirstFlexible;
  DescribeConfigsResponse response;
  response.throttle_time_ms = in.int32();
  const int32_t n = in.non_null_array_length(flex);
  for (int32_t i = 0; i < n; ++i) {
    DescribeConfigsResponse::Result r;
    r.error_code = in.int16();
    r.error_message = in.nullable_string(flex);
    r.resource_type = in.int8();
    r.resource_name = in.string(flex);
    const int32_t configs = in.non_null_array_length(flex);
    for (int32_t j = 0; j < configs; ++j) {
      DescribeConfigsResponse::Config c;
      c.name = in.string(flex);
      c.value = in.nullable_string(flex);
      c.read_only = in.boolean();
      if (version == 0) c.is_default = in.boolean();
      if (version >= 1) c.config_source = in.int8();
      c.is_sensitive = in.boolean();
      if (version >= 1) {
        const int32_t synonyms = in.non_null_array_length(flex);
        for (int32_t k = 0; k < synonyms; ++k) {
          DescribeConfigsResponse::Synonym s;
          s.name = in.string(flex);
          s.value = in.nullable_string(flex);
          s.source = in.int8();
          in.tagged_fields(flex);
          c.synonyms.push_back(std::move(s));
        }
      }
      if (version >= 3) {
        c.config_type = in.int8();
        c.documentation = in.nullable_string(flex);
      }
      in.tagged_fields(flex);
      r.configs.push_back(std::move(c));
    }
    in.tagged_fields(flex);
    response.results.push_back(std::move(r));
  }
  in.tagged_fields(flex);
  return response;
}

AlterConfigsRequest read_alter_configs_request(Reader& in, bool incremental, int16_t version) {
  const bool flex = alter_flexible(incremental, version);
  AlterConfigsRequest r;
  const int32_t n = in.non_null_array_length(flex);
  for (int32_t i = 0; i < n; ++i) {
    AlterConfigsRequest::Resource res;
    res.resource_type = in.int8();
    res.resource_name = in.string(flex);
    const int32_t configs = in.non_null_array_length(flex);
    for (int32_t j = 0; j < configs; ++j) {
      AlterConfigsRequest::Config c;
      c.name = in.string(flex);
      if (incremental) c.config_operation = in.int8();
      c.value = in.nullable_string(flex);
      in.tagged_fields(flex);
      res.configs.push_back(std::move(c));
    }
    in.tagged_fields(flex);
    r.resources.push_back(std::move(res));
  }
  r.validate_only = in.boolean();
  in.tagged_fields(flex);
  return r;
}

void write_alter_configs_request(Writer& out, const AlterConfigsRequest& request, bool incremental,
                                 int16_t version) {
  const bool flex = alter_flexible(incremental, version);
  out.array_length(static_cast<int32_t>(request.resources.size()), flex);
  for (const auto& res : request.resources) {
    out.int8(res.resource_type);
    out.string(res.resource_name, flex);
    out.array_length(static_cast<int32_t>(res.configs.size()), flex);
    for (const auto& c : res.configs) {
      out.string(c.name, flex);
      if (incremental) out.int8(c.config_operation);
      out.nullable_string(c.value, flex);
      out.tagged_fields(flex);
    }
    out.tagged_fields(flex);
  }
  out.boolean(request.validate_only);
  out.tagged_fields(flex);
}

void write_alter_configs_response(Writer& out, const AlterConfigsResponse& response,
                                  bool incremental, int16_t version) {
  const bool flex = alter_flexible(incremental, version);
  out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.responses.size()), flex);
  for (const auto& r : response.responses) {
    out.int16(r.error_code);
    out.nullable_string(r.error_message, flex);
    out.int8(r.resource_type);
    out.string(r.resource_name, flex);
    out.tagged_fields(flex);
  }
  out.tagged_fields(flex);
}

AlterConfigsResponse read_alter_configs_response(Reader& in, bool incremental, int16_t version) {
  const bool flex = alter_flexible(incremental, version);
  AlterConfigsResponse response;
  response.throttle_time_ms = in.int32();
  const int32_t n = in.non_null_array_length(flex);
  for (int32_t i = 0; i < n; ++i) {
    AlterConfigsResponse::Result r;
    r.error_code = in.int16();
    r.error_message = in.nullable_string(flex);
    r.resource_type = in.int8();
    r.resource_name = in.string(flex);
    in.tagged_fields(flex);
    response.responses.push_back(std::move(r));
  }
  in.tagged_fields(flex);
  return response;
}

}  // namespace lds::kafka
