// kafka_errors.cpp: storage's refusals mapped to Kafka's error codes and sentences.
#include "broker/kafka_errors.h"

namespace lds {

namespace {

// What Kafka's controller answers (INVALID_REPLICATION_FACTOR) when no broker has a log directory
// that is not cordoned (KIP-1066); this broker is the only one, and places one replica.
constexpr const char* kEveryDirCordoned =
    "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or have all "
    "their log directories cordoned.";

}  // namespace

ErrorCode kafka_error_code(StorageErrc code) noexcept {
  switch (code) {
    case StorageErrc::kNone:
      return ErrorCode::kNone;
    case StorageErrc::kUnknownPartition:
      return ErrorCode::kUnknownTopicOrPartition;
    case StorageErrc::kDirUnavailable:
      return ErrorCode::kKafkaStorageError;
    case StorageErrc::kInvalidTopicName:
      return ErrorCode::kInvalidTopic;
    case StorageErrc::kInvalidPartition:
      return ErrorCode::kInvalidPartitions;
    case StorageErrc::kEveryDirCordoned:
      return ErrorCode::kInvalidReplicationFactor;
    case StorageErrc::kDirNotFound:
      return ErrorCode::kLogDirNotFound;
    case StorageErrc::kDirCordoned:
      return ErrorCode::kInvalidReplicaAssignment;
    case StorageErrc::kReplicaNotAvailable:
      return ErrorCode::kReplicaNotAvailable;
    case StorageErrc::kOffsetOutOfRange:
      return ErrorCode::kOffsetOutOfRange;
    case StorageErrc::kAppendTooShort:
      return ErrorCode::kInvalidRequest;
    case StorageErrc::kBatchesTooLarge:
      return ErrorCode::kRecordListTooLarge;
    case StorageErrc::kBatchTooLarge:
      return ErrorCode::kMessageTooLarge;
    case StorageErrc::kInvalidBatch:
      return ErrorCode::kInvalidRecord;
    case StorageErrc::kCorruptBatch:
      return ErrorCode::kCorruptMessage;
  }
  return ErrorCode::kUnknownServerError;
}

KafkaError kafka_error(StorageErrc code, const std::string& message) {
  if (code == StorageErrc::kEveryDirCordoned) return {kafka_error_code(code), kEveryDirCordoned};
  return {kafka_error_code(code), message};
}

}  // namespace lds
