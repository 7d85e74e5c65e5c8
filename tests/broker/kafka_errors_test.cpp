// kafka_errors_test.cpp: storage's refusals in Kafka's words (broker/kafka_errors.h), the one table
// the Kafka listener and the admin API answer them from.
#include "broker/kafka_errors.h"

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace lds {
namespace {

TEST(KafkaErrorsTest, EveryStorageRefusalHasItsOwnKafkaCode) {
  std::set<ErrorCode> seen;
  size_t refusals = 0;
  for (int i = 1; i <= static_cast<int>(StorageErrc::kLast); ++i) {
    const auto code = static_cast<StorageErrc>(i);
    const ErrorCode kafka = kafka_error_code(code);
    EXPECT_NE(kafka, ErrorCode::kNone) << i;
    EXPECT_NE(kafka, ErrorCode::kUnknownServerError) << i;
    seen.insert(kafka);
    ++refusals;
  }
  // No two share a Kafka code: a client can tell every refusal apart.
  EXPECT_EQ(seen.size(), refusals);
  EXPECT_EQ(kafka_error_code(StorageErrc::kNone), ErrorCode::kNone);
}

TEST(KafkaErrorsTest, TheCodesAreKafkasForWhatStorageRefuses) {
  EXPECT_EQ(kafka_error_code(StorageErrc::kUnknownPartition), ErrorCode::kUnknownTopicOrPartition);
  EXPECT_EQ(kafka_error_code(StorageErrc::kDirUnavailable), ErrorCode::kKafkaStorageError);
  EXPECT_EQ(kafka_error_code(StorageErrc::kInvalidTopicName), ErrorCode::kInvalidTopic);
  EXPECT_EQ(kafka_error_code(StorageErrc::kEveryDirCordoned), ErrorCode::kInvalidReplicationFactor);
  EXPECT_EQ(kafka_error_code(StorageErrc::kDirNotFound), ErrorCode::kLogDirNotFound);
  EXPECT_EQ(kafka_error_code(StorageErrc::kDirCordoned), ErrorCode::kInvalidReplicaAssignment);
  EXPECT_EQ(kafka_error_code(StorageErrc::kCorruptBatch), ErrorCode::kCorruptMessage);
  EXPECT_EQ(kafka_error_code(StorageErrc::kBatchTooLarge), ErrorCode::kMessageTooLarge);
  EXPECT_EQ(kafka_error_code(StorageErrc::kBatchesTooLarge), ErrorCode::kRecordListTooLarge);
}

TEST(KafkaErrorsTest, StoragesSentencePassesOnExceptWhereKafkaHasItsOwn) {
  const KafkaError offline =
      kafka_error(StorageError(StorageErrc::kDirUnavailable, "Log directory /d1 is offline"));
  EXPECT_EQ(offline.code(), ErrorCode::kKafkaStorageError);
  EXPECT_STREQ(offline.what(), "Log directory /d1 is offline");
  // Kafka's controller's sentence (ReplicationControlManager around StripedReplicaPlacer's).
  const KafkaError cordoned =
      kafka_error(StorageErrc::kEveryDirCordoned, "Every online log directory is cordoned.");
  EXPECT_STREQ(cordoned.what(),
               "Unable to replicate the partition 1 time(s): All brokers are currently fenced, or "
               "have all their log directories cordoned.");
}

}  // namespace
}  // namespace lds
