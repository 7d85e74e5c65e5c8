// api_keys.h: the Kafka APIs this broker implements, their version ranges, which versions are
// flexible (KIP-482), the header versions that follow from that, and Kafka's numeric error codes.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

#include "util/errors.h"

namespace lds::kafka {

enum class ApiKey : int16_t {
  kProduce = 0,
  kFetch = 1,
  kListOffsets = 2,
  kMetadata = 3,
  kApiVersions = 18,
  kCreateTopics = 19,
  kDeleteTopics = 20,
  kInitProducerId = 22,
  kDescribeConfigs = 32,
  kAlterConfigs = 33,
  kAlterReplicaLogDirs = 34,
  kDescribeLogDirs = 35,
  kCreatePartitions = 37,
  kIncrementalAlterConfigs = 44,
  kAlterPartitionReassignments = 45,
  kListPartitionReassignments = 46,
  kDescribeCluster = 60,
  kDescribeTopicPartitions = 75,
};

// One implemented API: the versions served (and advertised by ApiVersions), and the first
// flexible version in Kafka's definition (which may lie above max_version).
struct ApiRange {
  ApiKey key;
  int16_t min_version;
  int16_t max_version;
  int16_t first_flexible;
};

// Every implemented API, by key.
std::span<const ApiRange> supported_apis();
// The entry of `key`, or nullopt for an API this broker does not implement.
std::optional<ApiRange> find_api(int16_t key);

// Whether `version` of `key` uses the flexible encoding; header versions follow from it: request
// header 2 for flexible versions, else 1; response header 1 for flexible versions except
// ApiVersions, whose response header stays 0 so that any client can read it.
bool is_flexible(const ApiRange& api, int16_t version);
int request_header_version(const ApiRange& api, int16_t version);
int response_header_version(const ApiRange& api, int16_t version);
// The same for an implemented API named by its key.
int response_header_version(ApiKey key, int16_t version);

// Kafka's numeric error codes, as they travel on the wire.
namespace error {
inline constexpr int16_t kUnknownServerError = -1;
inline constexpr int16_t kNone = 0;
inline constexpr int16_t kOffsetOutOfRange = 1;
inline constexpr int16_t kCorruptMessage = 2;
inline constexpr int16_t kUnknownTopicOrPartition = 3;
inline constexpr int16_t kLeaderNotAvailable = 5;
inline constexpr int16_t kNotLeaderOrFollower = 6;
inline constexpr int16_t kReplicaNotAvailable = 9;
inline constexpr int16_t kNotCoordinator = 16;
inline constexpr int16_t kMessageTooLarge = 10;
inline constexpr int16_t kInvalidTopicException = 17;
inline constexpr int16_t kInvalidRequiredAcks = 21;
inline constexpr int16_t kUnsupportedVersion = 35;
inline constexpr int16_t kTopicAlreadyExists = 36;
inline constexpr int16_t kInvalidPartitions = 37;
inline constexpr int16_t kInvalidReplicationFactor = 38;
inline constexpr int16_t kInvalidReplicaAssignment = 39;
inline constexpr int16_t kInvalidConfig = 40;
inline constexpr int16_t kInvalidRequest = 42;
inline constexpr int16_t kOutOfOrderSequenceNumber = 45;
inline constexpr int16_t kInvalidProducerEpoch = 47;
inline constexpr int16_t kPolicyViolation = 44;
inline constexpr int16_t kKafkaStorageError = 56;
inline constexpr int16_t kLogDirNotFound = 57;
inline constexpr int16_t kFetchSessionIdNotFound = 70;
inline constexpr int16_t kUnsupportedCompressionType = 76;
inline constexpr int16_t kNoReassignmentInProgress = 85;
inline constexpr int16_t kInvalidRecord = 87;
inline constexpr int16_t kUnknownTopicId = 100;
inline constexpr int16_t kUnsupportedEndpointType = 115;
}  // namespace error

// The wire code of one of the host's error names.
int16_t error_code_of(ErrorCode code);

}  // namespace lds::kafka
