// storage_error.h: what storage refuses, in storage's own words. The broker's faces (kafka/server,
// admin) map each to Kafka's error code and sentence (broker/kafka_errors.h); storage itself speaks
// no wire vocabulary.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace lds {

enum class StorageErrc : uint8_t {
  kNone,
  kUnknownPartition,      // the partition is not hosted here
  kDirUnavailable,        // a log directory is offline, full, or refused the operation
  kInvalidTopicName,      // a topic name no log directory can hold (Kafka's rules)
  kInvalidPartition,      // a negative partition number
  kEveryDirCordoned,      // no log directory may take a new replica (KIP-1066)
  kDirNotFound,           // a move names a directory that is not in log.dirs
  kDirCordoned,           // a move into a cordoned directory
  kReplicaNotAvailable,   // a move of a replica not hosted yet, or just deleted
  kOffsetOutOfRange,      // a read outside the log
  kAppendTooShort,        // an append too short to hold a record batch header
  kBatchesTooLarge,       // an append larger than a segment may hold
  kBatchTooLarge,         // one record batch larger than the partition's max.message.bytes
  kInvalidBatch,          // a record batch with no records, or magic other than 2
  kCorruptBatch,          // a record batch whose framing or CRC is wrong
  kLast = kCorruptBatch,  // the last code, for walks over all of them
};

// An operation storage refuses: a code and one sentence for the operator, naming the partition,
// directory or value at fault. Nothing was changed on disk or in memory when it is thrown.
class StorageError : public std::runtime_error {
 public:
  StorageError(StorageErrc code, const std::string& message)
      : std::runtime_error(message), code_(code) {}
  StorageErrc code() const noexcept { return code_; }

 private:
  StorageErrc code_;
};

}  // namespace lds
