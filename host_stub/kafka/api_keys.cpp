// api_keys.cpp: the table of implemented APIs and the error-code mapping.
#include "kafka/api_keys.h"

namespace lds::kafka {
namespace {

// Flexible from: Produce 9, Fetch 12, ListOffsets 6, ApiVersions 3, Metadata 9, CreateTopics 5,
// DeleteTopics 4, DescribeLogDirs 2, DescribeConfigs 4, AlterConfigs 2, AlterReplicaLogDirs 2,
// CreatePartitions 2, IncrementalAlterConfigs 1 (Kafka's message definitions). librdkafka sends v2
// record batches only when Produce 3+ and Fetch 4+ are both advertised, hence their lower bounds.
// By key: ApiVersions lists them in this order.
constexpr ApiRange kApis[] = {
    {ApiKey::kProduce, 3, 8, 9},
    {ApiKey::kFetch, 4, 11, 12},
    {ApiKey::kListOffsets, 1, 2, 6},
    {ApiKey::kMetadata, 0, 5, 9},
    {ApiKey::kApiVersions, 0, 3, 3},
    {ApiKey::kCreateTopics, 0, 4, 5},
    {ApiKey::kDeleteTopics, 0, 3, 4},
    {ApiKey::kDescribeConfigs, 0, 2, 4},
    {ApiKey::kAlterConfigs, 0, 1, 2},
    {ApiKey::kAlterReplicaLogDirs, 0, 1, 2},
    {ApiKey::kDescribeLogDirs, 0, 5, 2},
    {ApiKey::kCreatePartitions, 0, 1, 2},
    {ApiKey::kIncrementalAlterConfigs, 0, 0, 1},
};

}  // namespace

std::span<const ApiRange> supported_apis() { return kApis; }

std::optional<ApiRange> find_api(int16_t key) {
  for (const ApiRange& api : kApis) {
    if (static_cast<int16_t>(api.key) == key) return api;
  }
  return std::nullopt;
}

bool is_flexible(const ApiRange& api, int16_t version) { return version >= api.first_flexible; }

int request_header_version(const ApiRange& api, int16_t version) {
  return is_flexible(api, version) ? 2 : 1;
}

int response_header_version(const ApiRange& api, int16_t version) {
  if (api.key == ApiKey::kApiVersions) return 0;
  return is_flexible(api, version) ? 1 : 0;
}

int16_t error_code_of(ErrorCode code) { return error_number(code); }

}  // namespace lds::kafka
