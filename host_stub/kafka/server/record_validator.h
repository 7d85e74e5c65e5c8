// record_validator.h: Kafka's checks of the records a client produces, beyond the framing, size
// and CRC32C that the LogManager checks for any append (PartitionLog::check_batches). From Kafka's
// ProduceRequest.validateRecords, UnifiedLog.analyzeAndValidateRecords and LogValidator (for
// AppendOrigin.CLIENT), with the codecs' own libraries (kafka/protocol/compression.h) to read
// compressed records. A batch refused here reaches no log.
//
// What is refused, and Kafka's error code:
//   - no record batch, another magic than 2, more than one batch for a partition, or a baseOffset
//     other than 0: INVALID_RECORD;
//   - ZStandard before Produce v7, or a codec number that names no codec (5 to 7):
//     UNSUPPORTED_COMPRESSION_TYPE;
//   - a lastOffsetDelta below 0, a record count below 1 or other than lastOffsetDelta + 1, a
//     control batch, a producer id with a baseSequence below 0: INVALID_RECORD, with Kafka's
//     sentence;
//   - records that do not decompress with the batch's codec, that do not frame as Kafka's
//     DefaultRecord reads them, fewer or more of them than the count says, or a record whose
//     offsetDelta is not its index: INVALID_RECORD. A fault inside one record also names it in the
//     per-record error list (RecordValidationError::record_errors).
//
// Where this differs from Kafka: an uncompressed batch whose records' offsetDeltas are not 0, 1,
// 2, ... is refused (Kafka takes it as sent, and rewrites a compressed one), so that every client
// reads the partition back; records that do not decompress are INVALID_RECORD and a codec number
// above 4 is UNSUPPORTED_COMPRESSION_TYPE, where Kafka answers UNKNOWN_SERVER_ERROR (the codec's
// exception, or CompressionType.forId's IllegalArgumentException, escapes its validation); and a
// compressed stream some client could not read back is refused (kafka/protocol/compression.h).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "util/errors.h"

namespace lds::kafka {

// One record that made its batch be refused: its index in the batch (0 for the first record) and
// why, as ProduceResponse v8+ carries it (RecordErrors: BatchIndex, BatchIndexErrorMessage).
struct RecordError {
  int32_t batch_index = 0;
  std::string message;
  bool operator==(const RecordError&) const = default;
};

// Kafka's RecordValidationException: a refusal that names the records at fault.
class RecordValidationError : public KafkaError {
 public:
  RecordValidationError(ErrorCode code, const std::string& message,
                        std::vector<RecordError> record_errors)
      : KafkaError(code, message), record_errors_(std::move(record_errors)) {}
  const std::vector<RecordError>& record_errors() const noexcept { return record_errors_; }

 private:
  std::vector<RecordError> record_errors_;
};

// ProduceRequest.validateRecords, and UnifiedLog's check of the baseOffset: the records for
// partition `partition` ("t-0") of a Produce of `version` hold one batch of magic 2 whose
// baseOffset is 0, not ZStandard-compressed before version 7. A first batch too short to read is
// left to the LogManager's framing check (CORRUPT_MESSAGE). Throws KafkaError INVALID_RECORD or
// UNSUPPORTED_COMPRESSION_TYPE.
void validate_produce_records(std::string_view records, int16_t version,
                              const std::string& partition);

// The rest of Kafka's checks of one client batch whose framing, size and CRC32C hold (it lies
// whole in `batch`), for partition `partition` ("t-0"), as the list above says. Decompresses the
// records a piece at a time. Throws KafkaError or RecordValidationError.
void validate_client_batch(std::string_view batch, const std::string& partition);

}  // namespace lds::kafka
