// configs.cpp: DescribeConfigs, AlterConfigs and IncrementalAlterConfigs requests and responses,
// from Kafka's DescribeConfigs{Request,Response}.json (versions 0 to 2),
// AlterConfigs{Request,Response}.json (0 and 1) and IncrementalAlterConfigs{Request,Response}.json
// (version 0), whose response layout is AlterConfigs'.
#include "kafka/configs.h"

namespace lds::kafka {

DescribeConfigsRequest read_describe_configs_request(Reader& in, int16_t version) {
  DescribeConfigsRequest r;
  const int32_t n = in.non_null_array_length(false);
  for (int32_t i = 0; i < n; ++i) {
    DescribeConfigsRequest::Resource res;
    res.resource_type = in.int8();
    res.resource_name = in.string(false);
    if (std::optional<int32_t> keys = in.array_length(false)) {
      res.configuration_keys.emplace();
      for (int32_t j = 0; j < *keys; ++j) res.configuration_keys->push_back(in.string(false));
    }
    r.resources.push_back(std::move(res));
  }
  if (version >= 1) r.include_synonyms = in.boolean();
  return r;
}

void write_describe_configs_request(Writer& out, const DescribeConfigsRequest& request,
                                    int16_t version) {
  out.array_length(static_cast<int32_t>(request.resources.size()), false);
  for (const auto& res : request.resources) {
    out.int8(res.resource_type);
    out.string(res.resource_name, false);
    if (!res.configuration_keys) {
      out.array_length(std::nullopt, false);
    } else {
      out.array_length(static_cast<int32_t>(res.configuration_keys->size()), false);
      for (const auto& k : *res.configuration_keys) out.string(k, false);
    }
  }
  if (version >= 1) out.boolean(request.include_synonyms);
}

void write_describe_configs_response(Writer& out, const DescribeConfigsResponse& response,
                                     int16_t version) {
  out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.results.size()), false);
  for (const auto& r : response.results) {
    out.int16(r.error_code);
    out.nullable_string(r.error_message, false);
    out.int8(r.resource_type);
    out.string(r.resource_name, false);
    out.array_length(static_cast<int32_t>(r.configs.size()), false);
    for (const auto& c : r.configs) {
      out.string(c.name, false);
      out.nullable_string(c.value, false);
      out.boolean(c.read_only);
      if (version == 0) out.boolean(c.is_default);
      if (version >= 1) out.int8(c.config_source);
      out.boolean(c.is_sensitive);
      if (version >= 1) {
        out.array_length(static_cast<int32_t>(c.synonyms.size()), false);
        for (const auto& s : c.synonyms) {
          out.string(s.name, false);
          out.nullable_string(s.value, false);
          out.int8(s.source);
        }
      }
    }
  }
}

DescribeConfigsResponse read_describe_configs_response(Reader& in, int16_t version) {
  DescribeConfigsResponse response;
  response.throttle_time_ms = in.int32();
  const int32_t n = in.non_null_array_length(false);
  for (int32_t i = 0; i < n; ++i) {
    DescribeConfigsResponse::Result r;
    r.error_code = in.int16();
    r.error_message = in.nullable_string(false);
    r.resource_type = in.int8();
    r.resource_name = in.string(false);
    const int32_t configs = in.non_null_array_length(false);
    for (int32_t j = 0; j < configs; ++j) {
      DescribeConfigsResponse::Config c;
      c.name = in.string(false);
      c.value = in.nullable_string(false);
      c.read_only = in.boolean();
      if (version == 0) c.is_default = in.boolean();
      if (version >= 1) c.config_source = in.int8();
      c.is_sensitive = in.boolean();
      if (version >= 1) {
        const int32_t synonyms = in.non_null_array_length(false);
        for (int32_t k = 0; k < synonyms; ++k) {
          DescribeConfigsResponse::Synonym s;
          s.name = in.string(false);
          s.value = in.nullable_string(false);
          s.source = in.int8();
          c.synonyms.push_back(std::move(s));
        }
      }
      r.configs.push_back(std::move(c));
    }
    response.results.push_back(std::move(r));
  }
  return response;
}

AlterConfigsRequest read_alter_configs_request(Reader& in, bool incremental) {
  AlterConfigsRequest r;
  const int32_t n = in.non_null_array_length(false);
  for (int32_t i = 0; i < n; ++i) {
    AlterConfigsRequest::Resource res;
    res.resource_type = in.int8();
    res.resource_name = in.string(false);
    const int32_t configs = in.non_null_array_length(false);
    for (int32_t j = 0; j < configs; ++j) {
      AlterConfigsRequest::Config c;
      c.name = in.string(false);
      if (incremental) c.config_operation = in.int8();
      c.value = in.nullable_string(false);
      res.configs.push_back(std::move(c));
    }
    r.resources.push_back(std::move(res));
  }
  r.validate_only = in.boolean();
  return r;
}

void write_alter_configs_request(Writer& out, const AlterConfigsRequest& request,
                                 bool incremental) {
  out.array_length(static_cast<int32_t>(request.resources.size()), false);
  for (const auto& res : request.resources) {
    out.int8(res.resource_type);
    out.string(res.resource_name, false);
    out.array_length(static_cast<int32_t>(res.configs.size()), false);
    for (const auto& c : res.configs) {
      out.string(c.name, false);
      if (incremental) out.int8(c.config_operation);
      out.nullable_string(c.value, false);
    }
  }
  out.boolean(request.validate_only);
}

void write_alter_configs_response(Writer& out, const AlterConfigsResponse& response) {
  out.int32(response.throttle_time_ms);
  out.array_length(static_cast<int32_t>(response.responses.size()), false);
  for (const auto& r : response.responses) {
    out.int16(r.error_code);
    out.nullable_string(r.error_message, false);
    out.int8(r.resource_type);
    out.string(r.resource_name, false);
  }
}

AlterConfigsResponse read_alter_configs_response(Reader& in) {
  AlterConfigsResponse response;
  response.throttle_time_ms = in.int32();
  const int32_t n = in.non_null_array_length(false);
  for (int32_t i = 0; i < n; ++i) {
    AlterConfigsResponse::Result r;
    r.error_code = in.int16();
    r.error_message = in.nullable_string(false);
    r.resource_type = in.int8();
    r.resource_name = in.string(false);
    response.responses.push_back(std::move(r));
  }
  return response;
}

}  // namespace lds::kafka
