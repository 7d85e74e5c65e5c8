// topic_messages_test.cpp: CreateTopics 0-4 and DeleteTopics 0-3, field by field from Kafka's
// CreateTopicsRequest/Response.json and DeleteTopicsRequest/Response.json.
#include <gtest/gtest.h>

#include "kafka/protocol/create_topics.h"
#include "kafka/protocol/delete_topics.h"
#include "kafka_test_bytes.h"

namespace lds::kafka {
namespace {

using test::from_hex;
using test::to_hex;

// CreateTopics v4: one topic "t" with an explicit assignment and one config, then timeoutMs and
// validateOnly.
const std::string kCreateV4 = from_hex(
    "00 00 00 01"                 // Topics: 1
    "00 01 74"                    // Name "t"
    "ff ff ff ff ff ff"           // NumPartitions -1, ReplicationFactor -1
    "00 00 00 01 00 00 00 00"     // Assignments: 1, PartitionIndex 0
    "00 00 00 01 00 00 00 07"     // BrokerIds: [7]
    "00 00 00 01 00 01 72 ff ff"  // Configs: 1, "r" = null
    "00 00 75 30"                 // timeoutMs 30000
    "01");                        // validateOnly true

TEST(CreateTopics, Version4RequestReadsEveryField) {
  Reader in(kCreateV4);
  const CreateTopicsRequest r = read_create_topics_request(in, 4);
  EXPECT_EQ(in.remaining(), 0u);
  ASSERT_EQ(r.topics.size(), 1u);
  const auto& t = r.topics[0];
  EXPECT_EQ(t.name, "t");
  EXPECT_EQ(t.num_partitions, -1);
  EXPECT_EQ(t.replication_factor, -1);
  ASSERT_EQ(t.assignments.size(), 1u);
  EXPECT_EQ(t.assignments[0].broker_ids, std::vector<int32_t>{7});
  ASSERT_EQ(t.configs.size(), 1u);
  EXPECT_EQ(t.configs[0].name, "r");
  EXPECT_FALSE(t.configs[0].value.has_value());
  EXPECT_EQ(r.timeout_ms, 30000);
  EXPECT_TRUE(r.validate_only);
  Writer w;
  write_create_topics_request(w, r, 4);
  EXPECT_EQ(to_hex(w.bytes()), to_hex(kCreateV4));
}

TEST(CreateTopics, Version0RequestHasNoValidateOnly) {
  const std::string v0 = kCreateV4.substr(0, kCreateV4.size() - 1);
  Reader in(v0);
  const CreateTopicsRequest r = read_create_topics_request(in, 0);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_FALSE(r.validate_only);
}

TEST(CreateTopics, ResponsesGainMessageInV1AndThrottleInV2) {
  CreateTopicsResponse r;
  CreateTopicsResponse::Topic t;
  t.name = "t";
  t.error_code = 36;
  t.error_message = "x";
  r.topics.push_back(t);
  Writer w0;
  write_create_topics_response(w0, r, 0);
  EXPECT_EQ(to_hex(w0.bytes()), "00 00 00 01 00 01 74 00 24");
  Writer w1;
  write_create_topics_response(w1, r, 1);
  EXPECT_EQ(to_hex(w1.bytes()), "00 00 00 01 00 01 74 00 24 00 01 78");
  Writer w4;
  write_create_topics_response(w4, r, 4);
  EXPECT_EQ(to_hex(w4.bytes()), "00 00 00 00 00 00 00 01 00 01 74 00 24 00 01 78");
  Reader in(w4.bytes());
  const CreateTopicsResponse back = read_create_topics_response(in, 4);
  EXPECT_EQ(back.topics.at(0).error_message, "x");
}

TEST(DeleteTopics, RequestAndResponsesByVersion) {
  const std::string request = from_hex("00 00 00 02 00 01 61 00 01 62 00 00 03 e8");
  Reader in(request);
  const DeleteTopicsRequest r = read_delete_topics_request(in, 3);
  EXPECT_EQ(in.remaining(), 0u);
  ASSERT_EQ(r.topics.size(), 2u);
  EXPECT_EQ(r.topics[0].name, "a");
  EXPECT_EQ(r.topics[1].name, "b");
  EXPECT_EQ(r.timeout_ms, 1000);
  Writer w;
  write_delete_topics_request(w, r, 3);
  EXPECT_EQ(w.bytes(), request);

  DeleteTopicsResponse response;
  response.responses.resize(2);
  response.responses[0].name = "a";
  response.responses[1].name = "b";
  response.responses[1].error_code = 3;
  Writer w0;
  write_delete_topics_response(w0, response, 0);
  EXPECT_EQ(to_hex(w0.bytes()), "00 00 00 02 00 01 61 00 00 00 01 62 00 03");
  Writer w1;
  write_delete_topics_response(w1, response, 1);
  EXPECT_EQ(to_hex(w1.bytes()), "00 00 00 00 00 00 00 02 00 01 61 00 00 00 01 62 00 03");
}

}  // namespace
}  // namespace lds::kafka
