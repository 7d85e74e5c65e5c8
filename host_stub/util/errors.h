// errors.h: the host's error types: Kafka error codes for the admin API, and one exception per
// layer.
#pragma once

#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <string_view>

namespace lds {

// Kafka's error names, as the admin API reports them.
enum class ErrorCode {
  kNone,
  kUnknownTopicOrPartition,
  kReplicaNotAvailable,
  kTopicAlreadyExists,
  kInvalidReplicaAssignment,
  kInvalidConfig,
  kInvalidRequest,
  kKafkaStorageError,
  kLogDirNotFound,
  kInvalidTopic,
  kInvalidPartitions,
  kInvalidReplicationFactor,  // no replica can be placed: every log directory is cordoned
  kUnknownServerError,        // an exception the request handler did not expect
  kOffsetOutOfRange,          // a fetch offset outside the log
  kCorruptMessage,            // a record batch whose CRC or framing is wrong
  kRecordListTooLarge,        // record batches larger than a segment may hold
  kMessageTooLarge,           // one record batch larger than message.max.bytes
  kInvalidRecord,             // a record batch Kafka's validation refuses (count, records, ...)
  // A codec the Produce version may not use, or a codec number that names none.
  kUnsupportedCompressionType,
  kLast = kUnsupportedCompressionType,  // the last code, for walks over all of them
};

// "NONE", "UNKNOWN_TOPIC_OR_PARTITION", ... exactly as Kafka spells them.
const char* error_name(ErrorCode code) noexcept;

// Kafka's error code number on the wire (KAFKA_STORAGE_ERROR is 56).
int16_t error_number(ErrorCode code) noexcept;
// The Java exception class Kafka's clients raise for `code` ("org.apache.kafka.common.errors.
// KafkaStorageException"), as kafka-log-dirs.sh prints a log dir's error; nullptr for kNone.
const char* exception_class_name(ErrorCode code) noexcept;
// The code whose error_name() is `name`, or kUnknownServerError for a name the host does not use.
ErrorCode error_code_named(std::string_view name) noexcept;

// A request the broker refuses: a Kafka error code and one sentence for the operator.
class KafkaError : public std::runtime_error {
 public:
  KafkaError(ErrorCode code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }

 private:
  ErrorCode code_;
};

// "file:line:column: ", the prefix of every error about something written in a file (a config
// file, a simulator trace), as compilers print it. Lines and columns count from 1.
std::string file_position(const std::filesystem::path& file, uint64_t line, uint64_t column);

// A configuration file or value is wrong. The message is one sentence that already names the file,
// line and column, and the key (for example "broker.toml:3:1: log.dirs: must not be empty").
class ConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A strategy plugin could not be loaded or validated. The message names the file and the fault.
class PluginError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace lds
