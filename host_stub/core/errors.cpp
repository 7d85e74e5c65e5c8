// errors.cpp: Kafka error names for the admin API.
#include "core/errors.h"

namespace lds {

std::string file_position(const std::filesystem::path& file, uint64_t line, uint64_t column) {
  return file.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
}

const char* error_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kNone:
      return "NONE";
    case ErrorCode::kUnknownTopicOrPartition:
      return "UNKNOWN_TOPIC_OR_PARTITION";
    case ErrorCode::kReplicaNotAvailable:
      return "REPLICA_NOT_AVAILABLE";
    case ErrorCode::kTopicAlreadyExists:
      return "TOPIC_ALREADY_EXISTS";
    case ErrorCode::kInvalidReplicaAssignment:
      return "INVALID_REPLICA_ASSIGNMENT";
    case ErrorCode::kInvalidConfig:
      return "INVALID_CONFIG";
    case ErrorCode::kInvalidRequest:
      return "INVALID_REQUEST";
    case ErrorCode::kKafkaStorageError:
      return "KAFKA_STORAGE_ERROR";
    case ErrorCode::kLogDirNotFound:
      return "LOG_DIR_NOT_FOUND";
    case ErrorCode::kInvalidTopic:
      return "INVALID_TOPIC_EXCEPTION";
    case ErrorCode::kInvalidPartitions:
      return "INVALID_PARTITIONS";
    case ErrorCode::kInvalidReplicationFactor:
      return "INVALID_REPLICATION_FACTOR";
    case ErrorCode::kUnknownServerError:
      return "UNKNOWN_SERVER_ERROR";
  }
  return "UNKNOWN_SERVER_ERROR";
}

const char* exception_class_name(ErrorCode code) noexcept {
  switch (code) {
    case ErrorCode::kNone:
      return nullptr;
    case ErrorCode::kUnknownTopicOrPartition:
      return "org.apache.kafka.common.errors.UnknownTopicOrPartitionException";
    case ErrorCode::kReplicaNotAvailable:
      return "org.apache.kafka.common.errors.ReplicaNotAvailableException";
    case ErrorCode::kTopicAlreadyExists:
      return "org.apache.kafka.common.errors.TopicExistsException";
    case ErrorCode::kInvalidReplicaAssignment:
      return "org.apache.kafka.common.errors.InvalidReplicaAssignmentException";
    case ErrorCode::kInvalidConfig:
      return "org.apache.kafka.common.errors.InvalidConfigurationException";
    case ErrorCode::kInvalidRequest:
      return "org.apache.kafka.common.errors.InvalidRequestException";
    case ErrorCode::kKafkaStorageError:
      return "org.apache.kafka.common.errors.KafkaStorageException";
    case ErrorCode::kLogDirNotFound:
      return "org.apache.kafka.common.errors.LogDirNotFoundException";
    case ErrorCode::kInvalidTopic:
      return "org.apache.kafka.common.errors.InvalidTopicException";
    case ErrorCode::kInvalidPartitions:
      return "org.apache.kafka.common.errors.InvalidPartitionsException";
    case ErrorCode::kUnknownServerError:
      return "org.apache.kafka.common.errors.UnknownServerException";
  }
  return "org.apache.kafka.common.errors.UnknownServerException";
}

ErrorCode error_code_named(std::string_view name) noexcept {
  for (ErrorCode code :
       {ErrorCode::kNone, ErrorCode::kUnknownTopicOrPartition, ErrorCode::kReplicaNotAvailable,
        ErrorCode::kTopicAlreadyExists, ErrorCode::kInvalidReplicaAssignment,
        ErrorCode::kInvalidConfig, ErrorCode::kInvalidRequest, ErrorCode::kKafkaStorageError,
        ErrorCode::kLogDirNotFound, ErrorCode::kInvalidTopic, ErrorCode::kInvalidPartitions}) {
    if (name == error_name(code)) return code;
  }
  return ErrorCode::kUnknownServerError;
}

}  // namespace lds
