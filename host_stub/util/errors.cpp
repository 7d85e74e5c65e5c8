// errors.cpp: Kafka's errors as the host reports them: names, wire numbers, exception classes.
#include "util/errors.h"

#include <array>
#include <iterator>

namespace lds {

std::string file_position(const std::filesystem::path& file, uint64_t line, uint64_t column) {
  return file.string() + ":" + std::to_string(line) + ":" + std::to_string(column) + ": ";
}

namespace {

// One row per code: Kafka's name, its number on the wire, and the exception its clients raise.
struct ErrorRow {
  ErrorCode code;
  const char* name;
  int16_t number;
  const char* exception;  // under org.apache.kafka.common.errors.
};

constexpr ErrorRow kErrors[] = {
    {ErrorCode::kNone, "NONE", 0, nullptr},
    {ErrorCode::kUnknownTopicOrPartition, "UNKNOWN_TOPIC_OR_PARTITION", 3,
     "UnknownTopicOrPartitionException"},
    {ErrorCode::kReplicaNotAvailable, "REPLICA_NOT_AVAILABLE", 9, "ReplicaNotAvailableException"},
    {ErrorCode::kTopicAlreadyExists, "TOPIC_ALREADY_EXISTS", 36, "TopicExistsException"},
    {ErrorCode::kInvalidReplicaAssignment, "INVALID_REPLICA_ASSIGNMENT", 39,
     "InvalidReplicaAssignmentException"},
    {ErrorCode::kInvalidConfig, "INVALID_CONFIG", 40, "InvalidConfigurationException"},
    {ErrorCode::kInvalidRequest, "INVALID_REQUEST", 42, "InvalidRequestException"},
    {ErrorCode::kKafkaStorageError, "KAFKA_STORAGE_ERROR", 56, "KafkaStorageException"},
    {ErrorCode::kLogDirNotFound, "LOG_DIR_NOT_FOUND", 57, "LogDirNotFoundException"},
    {ErrorCode::kInvalidTopic, "INVALID_TOPIC_EXCEPTION", 17, "InvalidTopicException"},
    {ErrorCode::kInvalidPartitions, "INVALID_PARTITIONS", 37, "InvalidPartitionsException"},
    {ErrorCode::kInvalidReplicationFactor, "INVALID_REPLICATION_FACTOR", 38,
     "InvalidReplicationFactorException"},
    {ErrorCode::kOffsetOutOfRange, "OFFSET_OUT_OF_RANGE", 1, "OffsetOutOfRangeException"},
    {ErrorCode::kCorruptMessage, "CORRUPT_MESSAGE", 2, "CorruptRecordException"},
    {ErrorCode::kRecordListTooLarge, "RECORD_LIST_TOO_LARGE", 18, "RecordBatchTooLargeException"},
    {ErrorCode::kMessageTooLarge, "MESSAGE_TOO_LARGE", 10, "RecordTooLargeException"},
    {ErrorCode::kInvalidRecord, "INVALID_RECORD", 87, "InvalidRecordException"},
    {ErrorCode::kUnsupportedCompressionType, "UNSUPPORTED_COMPRESSION_TYPE", 76,
     "UnsupportedCompressionTypeException"},
    {ErrorCode::kUnknownServerError, "UNKNOWN_SERVER_ERROR", -1, "UnknownServerException"},
};

const ErrorRow& row_of(ErrorCode code) noexcept {
  for (const ErrorRow& row : kErrors) {
    if (row.code == code) return row;
  }
  return kErrors[std::size(kErrors) - 1];  // UNKNOWN_SERVER_ERROR
}

}  // namespace

const char* error_name(ErrorCode code) noexcept { return row_of(code).name; }

int16_t error_number(ErrorCode code) noexcept { return row_of(code).number; }

const char* exception_class_name(ErrorCode code) noexcept {
  // Every exception lives in org.apache.kafka.common.errors; the full names are spelled out once.
  static const auto kFullNames = [] {
    std::array<std::string, std::size(kErrors)> names;
    for (size_t i = 0; i < std::size(kErrors); ++i) {
      if (kErrors[i].exception != nullptr) {
        names[i] = std::string("org.apache.kafka.common.errors.") + kErrors[i].exception;
      }
    }
    return names;
  }();
  const size_t i = static_cast<size_t>(&row_of(code) - kErrors);
  return kFullNames[i].empty() ? nullptr : kFullNames[i].c_str();
}

ErrorCode error_code_named(std::string_view name) noexcept {
  for (const ErrorRow& row : kErrors) {
    if (name == row.name) return row.code;
  }
  return ErrorCode::kUnknownServerError;
}

}  // namespace lds
