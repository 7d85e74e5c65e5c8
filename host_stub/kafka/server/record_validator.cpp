// record_validator.cpp: Kafka's checks of a client's record batch, and the walk over its records
// (decompressed a piece at a time) that frames each one as Kafka's DefaultRecord.readFrom does.
#include "kafka/server/record_validator.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <utility>

#include "kafka/protocol/compression.h"
#include "kafka/protocol/record_reader.h"
#include "model/record_batch.h"
#include "model/wire.h"

namespace lds::kafka {
namespace {

// Attribute bits of a v2 batch (DefaultRecordBatch).
constexpr int16_t kControlFlag = 0x20;
constexpr int kZstd = static_cast<int>(Codec::kZstd);

[[noreturn]] void refuse(ErrorCode code, const std::string& message) {
  throw KafkaError(code, message);
}

std::string in_partition(const std::string& partition) {
  return " in topic partition " + partition;
}

// The records of `batch`: exactly record_count of them, each framed, at offsetDeltas 0, 1, 2, ...,
// and nothing after them; the codec's stream whole and checked.
void validate_records(std::string_view batch, const RecordBatchHeader& h,
                      const std::string& partition) {
  // The refusal's subject, spelled out only for a refusal.
  const auto of_batch = [&] {
    const std::string codec =
        h.compression() == 0 ? "uncompressed" : codec_name(h.compression()) + "-compressed";
    return "The record batch (" + codec + ", " + std::to_string(h.record_count) +
           " records) in the append to " + partition;
  };
  const std::string_view records =
      batch.substr(kBatchHeaderBytes, h.size_in_bytes() - kBatchHeaderBytes);
  int32_t index = 0;
  try {
    const std::unique_ptr<Decompressor> source =
        open_decompressor(static_cast<Codec>(h.compression()), records);
    RecordBytes bytes(*source);
    for (; index < h.record_count; ++index) {
      const std::optional<int32_t> size = length_prefix(bytes);
      if (!size) {
        refuse(ErrorCode::kInvalidRecord, of_batch() + " holds only " + std::to_string(index) +
                                              " records, not the " +
                                              std::to_string(h.record_count) + " its count says.");
      }
      const int32_t offset_delta = read_record(bytes, *size).offset_delta;
      if (offset_delta != index) {
        const std::string why = "Record " + std::to_string(index) + " has offsetDelta " +
                                std::to_string(offset_delta) + ", not its index " +
                                std::to_string(index) + in_partition(partition);
        throw RecordValidationError(
            ErrorCode::kInvalidRecord,
            of_batch() + " was refused: " + why +
                " (a batch's records take offsetDeltas 0, 1, 2, ... in order).",
            {{index, why}});
      }
    }
    if (!bytes.at_end()) {
      refuse(ErrorCode::kInvalidRecord,
             of_batch() + " has bytes after its last record (Incorrect declared batch size, " +
                 "records still remaining).");
    }
  } catch (const FramingFault& fault) {
    const std::string why = "Record " + std::to_string(index) +
                            " does not frame as a Kafka record: " + fault.why +
                            in_partition(partition);
    throw RecordValidationError(ErrorCode::kInvalidRecord,
                                of_batch() + " was refused: " + why + ".", {{index, why}});
  } catch (const DecompressError& e) {
    refuse(ErrorCode::kInvalidRecord, of_batch() + " does not decompress: " + e.what() + ".");
  }
}

}  // namespace

void validate_produce_records(std::string_view records, int16_t version,
                              const std::string& partition) {
  const auto produce = [version] {
    return "Produce requests with version " + std::to_string(version);
  };
  if (records.empty()) {
    refuse(ErrorCode::kInvalidRecord, produce() +
                                          " must have at least one record batch per "
                                          "partition; the one for " +
                                          partition + " has none.");
  }
  if (records.size() < kBatchCrcOffset) return;  // the framing check answers
  const auto magic = static_cast<int8_t>(records[kBatchCrcOffset - 1]);
  if (magic != kMagicV2) {
    refuse(ErrorCode::kInvalidRecord,
           produce() +
               " are only allowed to contain record batches with magic version 2; the one " +
               "for " + partition + " has magic " + std::to_string(magic) + ".");
  }
  RecordBatchHeader h;
  try {
    h = read_batch_header_fields(records);
  } catch (const ParseError&) {
    return;  // the framing check answers
  }
  if (version < 7 && h.compression() == kZstd) {
    refuse(ErrorCode::kUnsupportedCompressionType,
           produce() + " are not allowed to use ZStandard compression (" + partition + ").");
  }
  if (h.size_in_bytes() < records.size()) {
    refuse(ErrorCode::kInvalidRecord,
           produce() + " are only allowed to contain exactly one record batch per partition; " +
               "the one for " + partition + " has " +
               byte_count(static_cast<int64_t>(records.size() - h.size_in_bytes())) +
               " after its first batch.");
  }
  // UnifiedLog.analyzeAndValidateRecords, before the size and CRC checks.
  if (h.base_offset != 0) {
    refuse(ErrorCode::kInvalidRecord, "The baseOffset of the record batch in the append to " +
                                          partition + " should be 0, but it is " +
                                          std::to_string(h.base_offset) + ".");
  }
}

void validate_client_batch(std::string_view batch, const std::string& partition) {
  const RecordBatchHeader h = read_batch_header(batch);
  // UnifiedLog.analyzeAndValidateRecords (CompressionType.forId).
  if (h.compression() > kLastCodec) {
    refuse(ErrorCode::kUnsupportedCompressionType,
           "The record batch in the append to " + partition + " names compression " +
               codec_name(h.compression()) +
               "; Kafka's codecs are 0 (none), 1 (gzip), 2 (snappy), 3 (lz4) and 4 (zstd).");
  }
  // LogValidator.validateBatch, for a client's batch.
  const auto range = [&h] {
    // Kafka's lastOffset(), wrapping as Java's long does (baseOffset is any int64 here).
    const auto last = static_cast<int64_t>(static_cast<uint64_t>(h.base_offset) +
                                           static_cast<uint64_t>(int64_t{h.last_offset_delta}));
    std::string text =
        "[";  // appended piece by piece: GCC 12 -O3 sees a false -Wrestrict in "[" + ...
    text += std::to_string(h.base_offset);
    text += ", ";
    text += std::to_string(last);
    text += ']';
    return text;
  };
  if (int64_t{h.last_offset_delta} + 1 <= 0) {
    refuse(ErrorCode::kInvalidRecord,
           "Batch has an invalid offset range: " + range() + in_partition(partition) + ".");
  }
  if (h.record_count <= 0) {
    refuse(ErrorCode::kInvalidRecord,
           "Invalid reported count for record batch: " + std::to_string(h.record_count) +
               in_partition(partition) + ".");
  }
  if (int64_t{h.last_offset_delta} + 1 != h.record_count) {
    refuse(ErrorCode::kInvalidRecord,
           "Inconsistent batch offset range " + range() + " and count of records " +
               std::to_string(h.record_count) + in_partition(partition) + ".");
  }
  if ((h.attributes & kControlFlag) != 0) {
    refuse(ErrorCode::kInvalidRecord,
           "Clients are not allowed to write control records" + in_partition(partition) + ".");
  }
  if (h.producer_id >= 0 && h.base_sequence < 0) {
    refuse(ErrorCode::kInvalidRecord, "Invalid sequence number " + std::to_string(h.base_sequence) +
                                          " in record batch with producerId " +
                                          std::to_string(h.producer_id) + in_partition(partition) +
                                          ".");
  }
  validate_records(batch, h, partition);
}

}  // namespace lds::kafka
