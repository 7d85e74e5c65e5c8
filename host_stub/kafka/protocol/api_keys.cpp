// api_keys.cpp: the table of implemented APIs and the error-code mapping.
#include "kafka/protocol/api_keys.h"

namespace lds::kafka {
namespace {

// The ranges are Apache Kafka 4.4.0's broker's (kafka-broker-api-versions.sh against it, and the
// 4.4.0 jars' message definitions), except Produce, Fetch and ListOffsets, served in a narrower
// range: librdkafka sends v2 record batches only when Produce 3+ and Fetch 4+ are both
// advertised, hence their lower bounds, and Kafka 4 dropped the versions below them (KIP-896).
// Flexible from: Produce 9, Fetch 12, ListOffsets 6, Metadata 9, ApiVersions 3, CreateTopics 5,
// DeleteTopics 4, InitProducerId 2, DescribeConfigs 4, AlterConfigs 2, AlterReplicaLogDirs 2,
// DescribeLogDirs 2, CreatePartitions 2, IncrementalAlterConfigs 1, and from 0 the reassignment
// APIs, DescribeCluster and DescribeTopicPartitions (Kafka's message definitions). By key:
// ApiVersions lists them in this order.
constexpr ApiRange kApis[] = {
    {ApiKey::kProduce, 3, 8, 9},
    {ApiKey::kFetch, 4, 11, 12},
    {ApiKey::kListOffsets, 1, 2, 6},
    {ApiKey::kMetadata, 0, 13, 9},
    {ApiKey::kApiVersions, 0, 5, 3},
    {ApiKey::kCreateTopics, 2, 7, 5},
    {ApiKey::kDeleteTopics, 1, 6, 4},
    {ApiKey::kInitProducerId, 0, 5, 2},
    {ApiKey::kDescribeConfigs, 1, 4, 4},
    {ApiKey::kAlterConfigs, 0, 2, 2},
    {ApiKey::kAlterReplicaLogDirs, 1, 2, 2},
    {ApiKey::kDescribeLogDirs, 1, 5, 2},
    {ApiKey::kCreatePartitions, 0, 3, 2},
    {ApiKey::kIncrementalAlterConfigs, 0, 1, 1},
    {ApiKey::kAlterPartitionReassignments, 0, 1, 0},
    {ApiKey::kListPartitionReassignments, 0, 0, 0},
    {ApiKey::kDescribeCluster, 0, 2, 0},
    {ApiKey::kDescribeTopicPartitions, 0, 0, 0},
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

int response_header_version(ApiKey key, int16_t version) {
  return response_header_version(*find_api(static_cast<int16_t>(key)), version);
}

int16_t error_code_of(ErrorCode code) { return error_number(code); }

}  // namespace lds::kafka
