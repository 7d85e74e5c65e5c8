// kafka_errors.h: storage's refusals in Kafka's words, for the broker's faces (kafka/server and
// admin): one table, so both answer a refusal with the same code and sentence.
#pragma once

#include <string>

#include "storage/storage_error.h"
#include "util/errors.h"

namespace lds {

// The Kafka error code a storage refusal is answered with (kNone for kNone).
ErrorCode kafka_error_code(StorageErrc code) noexcept;

// The refusal as Kafka's clients see it: its code, and `message` unless Kafka has its own sentence
// for it (with every log directory cordoned, the controller's INVALID_REPLICATION_FACTOR text).
KafkaError kafka_error(StorageErrc code, const std::string& message);
inline KafkaError kafka_error(const StorageError& e) { return kafka_error(e.code(), e.what()); }

}  // namespace lds
