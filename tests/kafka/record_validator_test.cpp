// record_validator_test.cpp: Kafka's checks of a client's record batch, one rule at a time: each
// batch below breaks exactly one rule (its CRC32C made right again) and gets Kafka's error code,
// the records at fault named where the fault is inside one; valid batches of every codec pass.
#include "kafka/server/record_validator.h"

#include <gtest/gtest.h>

#include <climits>
#include <optional>
#include <string>
#include <vector>

#include "client_batches.h"
#include "kafka/protocol/compression.h"
#include "model/record_batch.h"
#include "model/wire.h"

namespace lds::kafka {
namespace {

using test::compressed_batch;
using test::numbered_records;
using test::with_field;
using test::with_records_area;

constexpr Codec kCodecs[] = {Codec::kNone, Codec::kGzip, Codec::kSnappy, Codec::kLz4, Codec::kZstd};

// What validate_client_batch said: the code (kNone when it took the batch), the sentence and the
// records it named.
struct Outcome {
  ErrorCode code = ErrorCode::kNone;
  std::string message;
  std::vector<RecordError> record_errors;
};

Outcome validate(const std::string& batch) {
  Outcome out;
  try {
    validate_client_batch(batch, "t-0");
  } catch (const RecordValidationError& e) {
    out = {e.code(), e.what(), e.record_errors()};
  } catch (const KafkaError& e) {
    out = {e.code(), e.what(), {}};
  }
  return out;
}

Outcome validate_produce(const std::string& records, int16_t version = 8) {
  Outcome out;
  try {
    validate_produce_records(records, version, "t-0");
  } catch (const KafkaError& e) {
    out = {e.code(), e.what(), {}};
  }
  return out;
}

std::string plain_batch(int n) { return build_batch(0, 1700000000000, numbered_records(n)); }

// One record's bytes as a client frames it: length, attributes, timestampDelta, offsetDelta, a
// null key, `value`, `headers` as the header count, then `tail` inside the record, with
// `length_adjust` added to the length the prefix claims.
std::string record_bytes(int32_t offset_delta, const std::string& value, int32_t headers = 0,
                         const std::string& tail = "", int32_t length_adjust = 0) {
  Writer body;
  body.int8(0);
  body.varlong(0);
  body.varint(offset_delta);
  body.varint(-1);
  body.varint(static_cast<int32_t>(value.size()));
  body.raw(value);
  body.varint(headers);
  body.raw(tail);
  Writer out;
  out.varint(static_cast<int32_t>(body.size()) + length_adjust);
  out.raw(body.bytes());
  return out.take();
}

std::string varint_bytes(int32_t v) {
  Writer w;
  w.varint(v);
  return w.take();
}

// A batch whose records area is `area` (compressed with `codec` first when it is not kNone),
// holding `count` records by its header.
std::string batch_of(const std::string& area, int32_t count, Codec codec = Codec::kNone) {
  std::string batch =
      with_records_area(plain_batch(1), compress(codec, area), static_cast<int>(codec));
  batch = with_field<int32_t>(batch, test::kRecordCountAt, count);
  return with_field<int32_t>(batch, test::kLastOffsetDeltaAt, count - 1);
}

TEST(RecordValidator, ValidBatchesOfEveryCodecPass) {
  for (Codec codec : kCodecs) {
    SCOPED_TRACE(codec_name(static_cast<int>(codec)));
    EXPECT_EQ(validate(compressed_batch(codec, numbered_records(1))).code, ErrorCode::kNone);
    const Outcome many = validate(compressed_batch(codec, numbered_records(500)));
    EXPECT_EQ(many.code, ErrorCode::kNone) << many.message;
    // Records that inflate to many times the decompressor's 64 KiB pieces, values split across
    // pieces.
    std::vector<Record> big = numbered_records(300);
    for (Record& r : big) r.value = std::string(3000, 'z') + *r.value;
    const Outcome large = validate(compressed_batch(codec, big));
    EXPECT_EQ(large.code, ErrorCode::kNone) << large.message;
  }
  // Snappy as librdkafka writes it: one raw block, no xerial framing.
  const std::string plain = plain_batch(20);
  EXPECT_EQ(validate(with_records_area(plain, compress_snappy_block(test::records_area(plain)),
                                       static_cast<int>(Codec::kSnappy)))
                .code,
            ErrorCode::kNone);
  // Idempotent producers' batches: a producer id with a sequence.
  std::string idempotent = with_field<int64_t>(plain, test::kProducerIdAt, 5);
  idempotent = with_field<int32_t>(idempotent, test::kBaseSequenceAt, 0);
  EXPECT_EQ(validate(idempotent).code, ErrorCode::kNone);
}

TEST(RecordValidator, TheRecordCountMustBeLastOffsetDeltaPlusOne) {
  const Outcome more = validate(with_field<int32_t>(plain_batch(3), test::kLastOffsetDeltaAt, 1));
  EXPECT_EQ(more.code, ErrorCode::kInvalidRecord);
  EXPECT_EQ(
      more.message,
      "Inconsistent batch offset range [0, 1] and count of records 3 in topic partition t-0.");
  EXPECT_TRUE(more.record_errors.empty());
  EXPECT_EQ(validate(with_field<int32_t>(plain_batch(3), test::kRecordCountAt, 2)).code,
            ErrorCode::kInvalidRecord);
  const Outcome none = validate(with_field<int32_t>(plain_batch(1), test::kRecordCountAt, 0));
  EXPECT_EQ(none.code, ErrorCode::kInvalidRecord);
  EXPECT_EQ(none.message, "Invalid reported count for record batch: 0 in topic partition t-0.");
}

TEST(RecordValidator, ALastOffsetDeltaOutOfRangeIsRefused) {
  // 2^31 - 1: the log end would jump by two billion offsets for one record.
  const Outcome huge =
      validate(with_field<int32_t>(plain_batch(1), test::kLastOffsetDeltaAt, INT32_MAX));
  EXPECT_EQ(huge.code, ErrorCode::kInvalidRecord);
  EXPECT_EQ(huge.message,
            "Inconsistent batch offset range [0, 2147483647] and count of records 1 "
            "in topic partition t-0.");
  const Outcome negative =
      validate(with_field<int32_t>(plain_batch(1), test::kLastOffsetDeltaAt, -1));
  EXPECT_EQ(negative.code, ErrorCode::kInvalidRecord);
  EXPECT_EQ(negative.message, "Batch has an invalid offset range: [0, -1] in topic partition t-0.");
}

TEST(RecordValidator, AControlBatchFromAClientIsRefused) {
  for (Codec codec : {Codec::kNone, Codec::kGzip}) {
    const std::string batch = compressed_batch(codec, numbered_records(2));
    const Outcome control = validate(with_field<int16_t>(
        batch, test::kAttributesAt, static_cast<int16_t>(0x20 | static_cast<int>(codec))));
    EXPECT_EQ(control.code, ErrorCode::kInvalidRecord);
    EXPECT_EQ(control.message,
              "Clients are not allowed to write control records in topic partition t-0.");
  }
  // A transactional batch (bit 4) is not a control batch.
  EXPECT_EQ(validate(with_field<int16_t>(plain_batch(2), test::kAttributesAt, 0x10)).code,
            ErrorCode::kNone);
}

TEST(RecordValidator, ACodecNumberThatNamesNoCodecIsUnsupported) {
  for (int codec : {5, 6, 7}) {
    const std::string plain = plain_batch(2);
    const Outcome out = validate(with_records_area(plain, test::records_area(plain), codec));
    EXPECT_EQ(out.code, ErrorCode::kUnsupportedCompressionType) << codec;
    EXPECT_NE(out.message.find("names compression codec " + std::to_string(codec)),
              std::string::npos)
        << out.message;
  }
}

TEST(RecordValidator, ACodecFlagOnRecordsThatDoNotDecompressIsRefused) {
  const std::string plain = plain_batch(3);
  const std::string records = test::records_area(plain);
  for (Codec codec : {Codec::kGzip, Codec::kSnappy, Codec::kLz4, Codec::kZstd}) {
    const std::string name = codec_name(static_cast<int>(codec));
    SCOPED_TRACE(name);
    // The flag on uncompressed records.
    const Outcome flagged = validate(with_records_area(plain, records, static_cast<int>(codec)));
    EXPECT_EQ(flagged.code, ErrorCode::kInvalidRecord);
    EXPECT_NE(flagged.message.find("(" + name +
                                   "-compressed, 3 records) in the append to t-0 "
                                   "does not decompress: " +
                                   name + ": "),
              std::string::npos)
        << flagged.message;
    EXPECT_TRUE(flagged.record_errors.empty());
    // A stream cut short, and one with bytes after its end.
    const std::string compressed = compress(codec, records);
    const Outcome cut = validate(with_records_area(
        plain, compressed.substr(0, compressed.size() - 3), static_cast<int>(codec)));
    EXPECT_EQ(cut.code, ErrorCode::kInvalidRecord) << cut.message;
    const Outcome trailing =
        validate(with_records_area(plain, compressed + "xyz", static_cast<int>(codec)));
    EXPECT_EQ(trailing.code, ErrorCode::kInvalidRecord) << trailing.message;
  }
  // The codec bits clear on compressed records: they do not frame.
  const Outcome unflagged = validate(with_records_area(plain, compress(Codec::kGzip, records), 0));
  EXPECT_EQ(unflagged.code, ErrorCode::kInvalidRecord);
}

TEST(RecordValidator, MalformedRecordsUnderAValidCrcAreRefusedAndNamed) {
  struct Case {
    const char* what;
    std::string area;
    int32_t count;
    int32_t bad_index;
    const char* why;
  };
  const std::string good0 = record_bytes(0, "a");
  const std::string good1 = record_bytes(1, "b");
  const std::vector<Case> cases = {
      {"a length past the records", record_bytes(0, "a", 0, "", 50), 1, 0,
       "the records end inside it"},
      {"a negative length", varint_bytes(-2) + good0.substr(1), 1, 0, "its length is -2"},
      {"bytes left after the headers", record_bytes(0, "a", 0, "zz"), 1, 0,
       "2 bytes of its size of 9 bytes follow its last header"},
      {"a negative header count", record_bytes(0, "a", -1), 1, 0, "its header count is -1"},
      {"more headers than bytes", record_bytes(0, "a", 40), 1, 0,
       "its 40 headers cannot fit in the 0 bytes left of it"},
      {"a value past the record", record_bytes(0, "abc", 0, "", -2), 1, 0,
       "its value of 3 bytes runs past it"},
      {"the second record cut", good0 + record_bytes(1, "b", 0, "", 9), 2, 1,
       "the records end inside it"},
  };
  for (const Case& c : cases) {
    for (Codec codec : {Codec::kNone, Codec::kZstd}) {
      SCOPED_TRACE(std::string(c.what) + ", " + codec_name(static_cast<int>(codec)));
      const Outcome out = validate(batch_of(c.area, c.count, codec));
      EXPECT_EQ(out.code, ErrorCode::kInvalidRecord);
      ASSERT_EQ(out.record_errors.size(), 1u) << out.message;
      EXPECT_EQ(out.record_errors[0].batch_index, c.bad_index);
      EXPECT_EQ(out.record_errors[0].message, "Record " + std::to_string(c.bad_index) +
                                                  " does not frame as a Kafka record: " + c.why +
                                                  " in topic partition t-0");
      EXPECT_NE(out.message.find(out.record_errors[0].message), std::string::npos);
    }
  }
  EXPECT_EQ(validate(batch_of(good0 + good1, 2)).code, ErrorCode::kNone);
}

TEST(RecordValidator, FewerOrMoreRecordsThanTheCountAreRefused) {
  const std::string two = record_bytes(0, "a") + record_bytes(1, "b");
  for (Codec codec : {Codec::kNone, Codec::kLz4}) {
    const Outcome fewer = validate(batch_of(two, 3, codec));
    EXPECT_EQ(fewer.code, ErrorCode::kInvalidRecord);
    EXPECT_NE(fewer.message.find("holds only 2 records, not the 3 its count says"),
              std::string::npos)
        << fewer.message;
    EXPECT_TRUE(fewer.record_errors.empty());
    const Outcome more = validate(batch_of(two, 1, codec));
    EXPECT_EQ(more.code, ErrorCode::kInvalidRecord);
    EXPECT_NE(more.message.find("has bytes after its last record"), std::string::npos)
        << more.message;
  }
}

TEST(RecordValidator, EachRecordsOffsetDeltaMustBeItsIndex) {
  const Outcome out =
      validate(batch_of(record_bytes(0, "a") + record_bytes(2, "b") + record_bytes(1, "c"), 3));
  EXPECT_EQ(out.code, ErrorCode::kInvalidRecord);
  ASSERT_EQ(out.record_errors.size(), 1u);
  EXPECT_EQ(out.record_errors[0].batch_index, 1);
  EXPECT_EQ(out.record_errors[0].message,
            "Record 1 has offsetDelta 2, not its index 1 in topic partition t-0");
}

TEST(RecordValidator, AProducerIdNeedsASequence) {
  const std::string with_id = with_field<int64_t>(plain_batch(2), test::kProducerIdAt, 5);
  const Outcome out = validate(with_field<int32_t>(with_id, test::kBaseSequenceAt, -1));
  EXPECT_EQ(out.code, ErrorCode::kInvalidRecord);
  EXPECT_EQ(out.message,
            "Invalid sequence number -1 in record batch with producerId 5 in topic "
            "partition t-0.");
  // No producer id (-1): no sequence needed.
  EXPECT_EQ(validate(plain_batch(2)).code, ErrorCode::kNone);
}

TEST(ProduceRecords, HoldOneBatchOfMagic2WithBaseOffset0) {
  const std::string batch = plain_batch(2);
  EXPECT_EQ(validate_produce(batch).code, ErrorCode::kNone);
  const Outcome empty = validate_produce("");
  EXPECT_EQ(empty.code, ErrorCode::kInvalidRecord);
  EXPECT_NE(empty.message.find("must have at least one record batch"), std::string::npos);
  std::string magic1 = batch;
  magic1[16] = 1;
  EXPECT_EQ(validate_produce(magic1).code, ErrorCode::kInvalidRecord);
  const Outcome two = validate_produce(batch + batch, 7);
  EXPECT_EQ(two.code, ErrorCode::kInvalidRecord);
  EXPECT_NE(two.message.find("Produce requests with version 7 are only allowed to contain exactly "
                             "one record batch per partition"),
            std::string::npos)
      << two.message;
  const Outcome based = validate_produce(with_field<int64_t>(batch, test::kBaseOffsetAt, 5));
  EXPECT_EQ(based.code, ErrorCode::kInvalidRecord);
  EXPECT_EQ(based.message,
            "The baseOffset of the record batch in the append to t-0 should be 0, but it is 5.");
  // A header cut short is the framing check's (CORRUPT_MESSAGE), not this one's.
  EXPECT_EQ(validate_produce(batch.substr(0, 40)).code, ErrorCode::kNone);
  EXPECT_EQ(validate_produce(batch.substr(0, batch.size() - 1)).code, ErrorCode::kNone);
}

TEST(ProduceRecords, ZstdNeedsVersion7) {
  const std::string zstd = compressed_batch(Codec::kZstd, numbered_records(2));
  EXPECT_EQ(validate_produce(zstd, 6).code, ErrorCode::kUnsupportedCompressionType);
  EXPECT_EQ(validate_produce(zstd, 7).code, ErrorCode::kNone);
  EXPECT_EQ(validate_produce(compressed_batch(Codec::kLz4, numbered_records(2)), 3).code,
            ErrorCode::kNone);
}

}  // namespace
}  // namespace lds::kafka
