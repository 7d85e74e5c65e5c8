// record_messages_test.cpp: Produce 3-8, Fetch 4-11 and ListOffsets 1-2, field by field from
// Kafka's message definitions (clients/src/main/resources/common/message/ProduceRequest.json,
// ProduceResponse.json, FetchRequest.json, FetchResponse.json, ListOffsetsRequest.json and
// ListOffsetsResponse.json): hand-assembled bytes decoded, and encoded back byte for byte.
#include <gtest/gtest.h>

#include "kafka/protocol/fetch.h"
#include "kafka/protocol/list_offsets.h"
#include "kafka/protocol/produce.h"
#include "kafka_test_bytes.h"

namespace lds::kafka {
namespace {

using test::from_hex;
using test::to_hex;

// ProduceRequest.json, v3+: TransactionalId (nullable string), Acks, TimeoutMs, then TopicData
// [Name, PartitionData [Index, Records (nullable bytes)]].
TEST(Produce, RequestLayoutIsTheSameFromVersion3To8) {
  const std::string bytes = from_hex(
      "ff ff"                    // TransactionalId null
      "ff ff"                    // Acks -1
      "00 00 75 30"              // TimeoutMs 30000
      "00 00 00 01 00 01 74"     // TopicData: 1, Name "t"
      "00 00 00 02"              // PartitionData: 2
      "00 00 00 00 00 00 00 03"  // Index 0, Records: 3 bytes
      "61 62 63"                 //   "abc"
      "00 00 00 01 ff ff ff ff"  // Index 1, Records null
  );
  for (int16_t v = 3; v <= 8; ++v) {
    Reader in(bytes);
    const ProduceRequest r = read_produce_request(in, v);
    EXPECT_EQ(in.remaining(), 0u);
    EXPECT_EQ(r.transactional_id, std::nullopt);
    EXPECT_EQ(r.acks, -1);
    EXPECT_EQ(r.timeout_ms, 30000);
    ASSERT_EQ(r.topics.size(), 1u);
    EXPECT_EQ(r.topics[0].name, "t");
    ASSERT_EQ(r.topics[0].partitions.size(), 2u);
    EXPECT_EQ(r.topics[0].partitions[0].records, std::string("abc"));
    EXPECT_EQ(r.topics[0].partitions[1].index, 1);
    EXPECT_EQ(r.topics[0].partitions[1].records, std::nullopt);
    Writer w;
    write_produce_request(w, r, v);
    EXPECT_EQ(to_hex(w.bytes()), to_hex(bytes)) << "v" << v;
  }
}

ProduceResponse sample_produce_response() {
  ProduceResponse r;
  ProduceResponse::Partition ok;
  ok.base_offset = 5;
  ok.log_start_offset = 2;
  ProduceResponse::Partition unknown;
  unknown.index = 1;
  unknown.error_code = 3;
  r.topics.push_back({"t", {ok, unknown}});
  r.throttle_time_ms = 7;
  return r;
}

// ProduceResponse.json: LogAppendTimeMs from v2, LogStartOffset from v5, ThrottleTimeMs last.
TEST(Produce, ResponseAddsLogStartOffsetInVersion5) {
  const std::string common =
      "00 00 00 01 00 01 74"  // Responses: 1, Name "t"
      "00 00 00 02";          // PartitionResponses: 2
  Writer w3;
  write_produce_response(w3, sample_produce_response(), 3);
  EXPECT_EQ(
      to_hex(w3.bytes()),
      to_hex(from_hex(common + "00 00 00 00 00 00"  // Index 0, ErrorCode 0
                               "00 00 00 00 00 00 00 05 ff ff ff ff ff ff ff ff"  // Base 5, time -1
                               "00 00 00 01 00 03"  // Index 1, UNKNOWN_TOPIC_OR_PARTITION
                               "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff"
                               "00 00 00 07")));  // ThrottleTimeMs
  Writer w5;
  write_produce_response(w5, sample_produce_response(), 5);
  EXPECT_EQ(to_hex(w5.bytes()),
            to_hex(from_hex(common + "00 00 00 00 00 00"
                                     "00 00 00 00 00 00 00 05 ff ff ff ff ff ff ff ff"
                                     "00 00 00 00 00 00 00 02"  // LogStartOffset 2
                                     "00 00 00 01 00 03"
                                     "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff"
                                     "ff ff ff ff ff ff ff ff"  // LogStartOffset -1
                                     "00 00 00 07")));
  for (int16_t v = 3; v <= 8; ++v) {
    Writer w;
    write_produce_response(w, sample_produce_response(), v);
    Reader in(w.bytes());
    const ProduceResponse back = read_produce_response(in, v);
    EXPECT_EQ(in.remaining(), 0u);
    EXPECT_EQ(back.topics.at(0).partitions.at(0).base_offset, 5);
    EXPECT_EQ(back.topics.at(0).partitions.at(0).log_start_offset, v >= 5 ? 2 : -1);
    EXPECT_EQ(back.topics.at(0).partitions.at(1).error_code, 3);
    EXPECT_EQ(back.throttle_time_ms, 7);
  }
}

// ProduceResponse.json v8 (KIP-467): after LogStartOffset, RecordErrors [BatchIndex,
// BatchIndexErrorMessage (nullable)] and ErrorMessage (nullable), neither flexible.
TEST(Produce, ResponseAddsRecordErrorsAndErrorMessageInVersion8) {
  ProduceResponse r = sample_produce_response();
  ProduceResponse::Partition& refused = r.topics[0].partitions[1];
  refused.error_code = 87;
  refused.record_errors = {{2, std::string("bad")}, {5, std::nullopt}};
  refused.error_message = "no";
  Writer w;
  write_produce_response(w, r, 8);
  EXPECT_EQ(to_hex(w.bytes()),
            to_hex(from_hex("00 00 00 01 00 01 74 00 00 00 02"
                            "00 00 00 00 00 00"  // Index 0, ErrorCode 0
                            "00 00 00 00 00 00 00 05 ff ff ff ff ff ff ff ff"
                            "00 00 00 00 00 00 00 02"  // LogStartOffset 2
                            "00 00 00 00"              // RecordErrors: none
                            "ff ff"                    // ErrorMessage null
                            "00 00 00 01 00 57"        // Index 1, INVALID_RECORD
                            "ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff ff"
                            "ff ff ff ff ff ff ff ff"
                            "00 00 00 02"                 // RecordErrors: 2
                            "00 00 00 02 00 03 62 61 64"  //   2, "bad"
                            "00 00 00 05 ff ff"           //   5, null
                            "00 02 6e 6f"                 // ErrorMessage "no"
                            "00 00 00 07")));
  Reader in(w.bytes());
  const ProduceResponse back = read_produce_response(in, 8);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(back.topics.at(0).partitions.at(1).record_errors, refused.record_errors);
  EXPECT_EQ(back.topics.at(0).partitions.at(1).error_message, "no");
  EXPECT_EQ(back.topics.at(0).partitions.at(0).error_message, std::nullopt);
  // Before v8 neither is sent.
  Writer w7;
  write_produce_response(w7, r, 7);
  Reader in7(w7.bytes());
  EXPECT_TRUE(read_produce_response(in7, 7).topics.at(0).partitions.at(1).record_errors.empty());
  EXPECT_EQ(in7.remaining(), 0u);
}

FetchRequest sample_fetch_request() {
  FetchRequest r;
  r.replica_id = -1;
  r.max_wait_ms = 500;
  r.min_bytes = 1;
  r.max_bytes = 52428800;
  r.isolation_level = 1;
  r.session_id = 0;
  r.session_epoch = -1;
  r.topics.push_back({"t", {{0, 4, 10, -1, 1048576}}});
  r.forgotten_topics.push_back({"u", {2}});
  // Moved in: GCC 12 at -O3 reports a false -Wrestrict on assigning the literal in place.
  r.rack_id = std::string("r");
  return r;
}

// FetchRequest.json: ReplicaId, MaxWaitMs, MinBytes, MaxBytes (3+), IsolationLevel (4+),
// SessionId and SessionEpoch (7+), Topics [Topic, Partitions [Partition, CurrentLeaderEpoch (9+),
// FetchOffset, LogStartOffset (5+), PartitionMaxBytes]], ForgottenTopicsData (7+), RackId (11+).
TEST(Fetch, RequestFieldsArriveVersionByVersion) {
  const std::string head = "ff ff ff ff 00 00 01 f4 00 00 00 01 03 20 00 00 01";
  const std::string topic = "00 00 00 01 00 01 74 00 00 00 01 00 00 00 00";
  const std::string offset = "00 00 00 00 00 00 00 0a";
  const std::string max = "00 10 00 00";
  Writer w4;
  write_fetch_request(w4, sample_fetch_request(), 4);
  EXPECT_EQ(to_hex(w4.bytes()), to_hex(from_hex(head + topic + offset + max)));
  Writer w5;
  write_fetch_request(w5, sample_fetch_request(), 5);
  EXPECT_EQ(to_hex(w5.bytes()),
            to_hex(from_hex(head + topic + offset + "ff ff ff ff ff ff ff ff" + max)));
  const std::string v11 = from_hex(head + "00 00 00 00 ff ff ff ff" +  // SessionId, SessionEpoch
                                   topic + "00 00 00 04" +             // CurrentLeaderEpoch 4
                                   offset + "ff ff ff ff ff ff ff ff" + max +
                                   "00 00 00 01 00 01 75 00 00 00 01 00 00 00 02"  // forget u-2
                                   "00 01 72");                                    // RackId "r"
  Writer w11;
  write_fetch_request(w11, sample_fetch_request(), 11);
  EXPECT_EQ(to_hex(w11.bytes()), to_hex(v11));
  Reader in(v11);
  const FetchRequest back = read_fetch_request(in, 11);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(back.max_wait_ms, 500);
  EXPECT_EQ(back.max_bytes, 52428800);
  EXPECT_EQ(back.isolation_level, 1);
  EXPECT_EQ(back.session_epoch, -1);
  EXPECT_EQ(back.topics.at(0).partitions.at(0).current_leader_epoch, 4);
  EXPECT_EQ(back.topics.at(0).partitions.at(0).fetch_offset, 10);
  EXPECT_EQ(back.topics.at(0).partitions.at(0).partition_max_bytes, 1048576);
  EXPECT_EQ(back.forgotten_topics.at(0).partitions, std::vector<int32_t>{2});
  EXPECT_EQ(back.rack_id, "r");
  for (int16_t v = 4; v <= 11; ++v) {
    Writer w;
    write_fetch_request(w, sample_fetch_request(), v);
    Reader r(w.bytes());
    const FetchRequest again = read_fetch_request(r, v);
    EXPECT_EQ(r.remaining(), 0u) << "v" << v;
    EXPECT_EQ(again.topics.at(0).partitions.at(0).fetch_offset, 10) << "v" << v;
  }
}

FetchResponse sample_fetch_response(bool aborted_list) {
  FetchResponse r;
  r.throttle_time_ms = 0;
  FetchResponse::Partition p;
  p.partition_index = 0;
  p.high_watermark = 3;
  p.last_stable_offset = 3;
  p.log_start_offset = 0;
  if (aborted_list) p.aborted_transactions.emplace();
  p.records = std::string("xy");
  r.topics.push_back({"t", {p}});
  return r;
}

// FetchResponse.json: ThrottleTimeMs, ErrorCode and SessionId (7+), Responses [Topic, Partitions
// [PartitionIndex, ErrorCode, HighWatermark, LastStableOffset (4+), LogStartOffset (5+),
// AbortedTransactions (4+, nullable), PreferredReadReplica (11+), Records]].
TEST(Fetch, ResponseFieldsArriveVersionByVersion) {
  const std::string partition =
      "00 00 00 01 00 01 74 00 00 00 01"  // Responses: 1, Topic "t", Partitions: 1
      "00 00 00 00 00 00"                 // PartitionIndex 0, ErrorCode 0
      "00 00 00 00 00 00 00 03"           // HighWatermark 3
      "00 00 00 00 00 00 00 03";          // LastStableOffset 3
  Writer w4;
  write_fetch_response(w4, sample_fetch_response(false), 4);
  EXPECT_EQ(to_hex(w4.bytes()), to_hex(from_hex("00 00 00 00" + partition +
                                                "ff ff ff ff"            // AbortedTransactions null
                                                "00 00 00 02 78 79")));  // Records "xy"
  const std::string v11 = from_hex("00 00 00 00 00 00 00 00 00 00" + partition +
                                   "00 00 00 00 00 00 00 00"  // LogStartOffset 0
                                   "00 00 00 00"              // AbortedTransactions: empty
                                   "ff ff ff ff"              // PreferredReadReplica -1
                                   "00 00 00 02 78 79");
  Writer w11;
  write_fetch_response(w11, sample_fetch_response(true), 11);
  EXPECT_EQ(to_hex(w11.bytes()), to_hex(v11));
  Reader in(v11);
  const FetchResponse back = read_fetch_response(in, 11);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(back.session_id, 0);
  const FetchResponse::Partition& p = back.topics.at(0).partitions.at(0);
  EXPECT_EQ(p.high_watermark, 3);
  ASSERT_TRUE(p.aborted_transactions.has_value());
  EXPECT_TRUE(p.aborted_transactions->empty());
  EXPECT_EQ(p.preferred_read_replica, -1);
  EXPECT_EQ(p.records, std::string("xy"));
  for (int16_t v = 4; v <= 11; ++v) {
    Writer w;
    write_fetch_response(w, sample_fetch_response(v % 2 == 0), v);
    Reader r(w.bytes());
    const FetchResponse again = read_fetch_response(r, v);
    EXPECT_EQ(r.remaining(), 0u) << "v" << v;
    EXPECT_EQ(again.topics.at(0).partitions.at(0).aborted_transactions.has_value(), v % 2 == 0);
  }
}

// ListOffsetsRequest.json: ReplicaId, IsolationLevel (2+), Topics [Name, Partitions
// [PartitionIndex, Timestamp]] (CurrentLeaderEpoch comes in v4, MaxNumOffsets was v0 only).
TEST(ListOffsets, Version2AddsTheIsolationLevel) {
  ListOffsetsRequest r;
  r.isolation_level = 1;
  r.topics.push_back({"t", {{0, kEarliestTimestamp}, {1, kLatestTimestamp}}});
  const std::string topics =
      "00 00 00 01 00 01 74 00 00 00 02"
      "00 00 00 00 ff ff ff ff ff ff ff fe"   // partition 0, earliest (-2)
      "00 00 00 01 ff ff ff ff ff ff ff ff";  // partition 1, latest (-1)
  Writer w1;
  write_list_offsets_request(w1, r, 1);
  EXPECT_EQ(to_hex(w1.bytes()), to_hex(from_hex("ff ff ff ff" + topics)));
  const std::string v2 = from_hex("ff ff ff ff 01" + topics);
  Writer w2;
  write_list_offsets_request(w2, r, 2);
  EXPECT_EQ(to_hex(w2.bytes()), to_hex(v2));
  Reader in(v2);
  const ListOffsetsRequest back = read_list_offsets_request(in, 2);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(back.isolation_level, 1);
  EXPECT_EQ(back.topics.at(0).partitions.at(0).timestamp, kEarliestTimestamp);
  EXPECT_EQ(back.topics.at(0).partitions.at(1).partition_index, 1);
}

// ListOffsetsResponse.json: ThrottleTimeMs (2+), Topics [Name, Partitions [PartitionIndex,
// ErrorCode, Timestamp (1+), Offset (1+)]].
TEST(ListOffsets, ResponseAddsTheThrottleTimeInVersion2) {
  ListOffsetsResponse r;
  r.throttle_time_ms = 1;
  r.topics.push_back({"t", {{0, 0, -1, 42}}});
  const std::string topics =
      "00 00 00 01 00 01 74 00 00 00 01"
      "00 00 00 00 00 00"                                 // PartitionIndex 0, ErrorCode 0
      "ff ff ff ff ff ff ff ff 00 00 00 00 00 00 00 2a";  // Timestamp -1, Offset 42
  Writer w1;
  write_list_offsets_response(w1, r, 1);
  EXPECT_EQ(to_hex(w1.bytes()), to_hex(from_hex(topics)));
  Writer w2;
  write_list_offsets_response(w2, r, 2);
  EXPECT_EQ(to_hex(w2.bytes()), to_hex(from_hex("00 00 00 01" + topics)));
  Reader in(w2.bytes());
  const ListOffsetsResponse back = read_list_offsets_response(in, 2);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(back.topics.at(0).partitions.at(0).offset, 42);
}

}  // namespace
}  // namespace lds::kafka
