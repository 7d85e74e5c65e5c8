// request_handler_kafka_tools_test.cpp: the requests Kafka 4's tools send besides the record and
// config APIs, answered by the request handler over an in-memory broker: DescribeCluster,
// partition reassignments on a single broker, DescribeTopicPartitions and its paging, topic ids
// in Metadata, CreateTopics and DeleteTopics, and the throttle clearing of
// kafka-reassign-partitions --verify.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "kafka/protocol/create_topics.h"
#include "kafka/protocol/delete_topics.h"
#include "kafka/protocol/describe_cluster.h"
#include "kafka/protocol/describe_topic_partitions.h"
#include "kafka/protocol/metadata.h"
#include "kafka/protocol/partition_reassignments.h"
#include "kafka/protocol/topic_id.h"
#include "request_handler_fixture.h"

namespace lds::kafka {
namespace {

class KafkaToolsRequestsTest : public RequestHandlerFixture {
 protected:
  AlterPartitionReassignmentsResponse reassign(AlterPartitionReassignmentsRequest request,
                                               int16_t version = 1) {
    Writer body;
    write_alter_partition_reassignments_request(body, request, version);
    const std::string reply_in = call(45, version, body.bytes());
    Reader in(reply_in);
    AlterPartitionReassignmentsResponse r =
        read_alter_partition_reassignments_response(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    return r;
  }

  DescribeTopicPartitionsResponse describe_partitions(DescribeTopicPartitionsRequest request) {
    Writer body;
    write_describe_topic_partitions_request(body, request, 0);
    const std::string reply_in = call(75, 0, body.bytes());
    Reader in(reply_in);
    DescribeTopicPartitionsResponse r = read_describe_topic_partitions_response(in, 0);
    EXPECT_EQ(in.remaining(), 0u);
    return r;
  }

  MetadataResponse metadata(const MetadataRequest& request, int16_t version) {
    Writer body;
    write_metadata_request(body, request, version);
    const std::string reply_in = call(3, version, body.bytes());
    Reader in(reply_in);
    MetadataResponse r = read_metadata_response(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    return r;
  }

  Uuid id_of(const std::string& topic) const {
    return topic_id(broker_->logs().cluster_id(), topic);
  }
};

TEST_F(KafkaToolsRequestsTest, DescribeClusterListsThisBrokerAsItsOwnController) {
  for (int16_t version : {int16_t{0}, int16_t{1}, int16_t{2}}) {
    Writer body;
    write_describe_cluster_request(body, {false, endpoint_type::kBroker, true}, version);
    const std::string reply_in = call(60, version, body.bytes());
    Reader in(reply_in);
    const DescribeClusterResponse r = read_describe_cluster_response(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    EXPECT_EQ(r.error_code, 0);
    EXPECT_EQ(r.cluster_id, broker_->logs().cluster_id());
    EXPECT_EQ(r.controller_id, 0);
    ASSERT_EQ(r.brokers.size(), 1u);
    EXPECT_EQ(r.brokers[0].host, "127.0.0.1");
    EXPECT_EQ(r.brokers[0].port, 9092);
    EXPECT_FALSE(r.brokers[0].is_fenced);
    EXPECT_EQ(r.cluster_authorized_operations, INT32_MIN);
  }
  // Controller endpoints are a controller's to list.
  Writer body;
  write_describe_cluster_request(body, {false, endpoint_type::kController, false}, 1);
  const std::string reply_in = call(60, 1, body.bytes());
  Reader in(reply_in);
  const DescribeClusterResponse r = read_describe_cluster_response(in, 1);
  EXPECT_EQ(r.error_code, 115);  // UNSUPPORTED_ENDPOINT_TYPE
  EXPECT_TRUE(r.brokers.empty());
}

TEST_F(KafkaToolsRequestsTest, NoReassignmentIsEverInProgress) {
  Writer body;
  write_list_partition_reassignments_request(body, {1000, std::nullopt}, 0);
  const std::string reply_in = call(46, 0, body.bytes());
  Reader in(reply_in);
  const ListPartitionReassignmentsResponse r = read_list_partition_reassignments_response(in, 0);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(r.error_code, 0);
  EXPECT_TRUE(r.topics.empty());
}

TEST_F(KafkaToolsRequestsTest, AReassignmentToTheSameReplicaIsAcceptedAndAnyOtherGetsKafkasError) {
  broker_->logs().create_partition("t", 1);
  AlterPartitionReassignmentsRequest request;
  request.allow_replication_factor_change = false;
  request.topics.push_back({"t",
                            {{0, std::vector<int32_t>{0}},
                             {1, std::vector<int32_t>{0, 1}},
                             {2, std::vector<int32_t>{0}},
                             {1, std::nullopt}}});
  request.topics.push_back({"absent", {{0, std::vector<int32_t>{0}}}});
  const AlterPartitionReassignmentsResponse r = reassign(request);
  EXPECT_FALSE(r.allow_replication_factor_change);
  ASSERT_EQ(r.responses.size(), 2u);
  const auto& t = r.responses[0].partitions;
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].error_code, 0);
  EXPECT_FALSE(t[0].error_message.has_value());
  EXPECT_EQ(t[1].error_code, 39);  // INVALID_REPLICA_ASSIGNMENT
  EXPECT_EQ(t[1].error_message,
            "The manual partition assignment includes broker 1, but no such broker is "
            "registered.");
  EXPECT_EQ(t[2].error_code, 3);  // UNKNOWN_TOPIC_OR_PARTITION
  EXPECT_EQ(t[2].error_message, "Unable to find partition t:2.");
  EXPECT_EQ(t[3].error_code, 85);  // NO_REASSIGNMENT_IN_PROGRESS
  EXPECT_EQ(r.responses[1].partitions.at(0).error_message, "Unable to find a topic named absent.");

  AlterPartitionReassignmentsRequest twice;
  twice.topics.push_back({"t", {{0, std::vector<int32_t>{0, 0}}, {1, std::vector<int32_t>{}}}});
  const auto odd = reassign(twice, 0).responses.at(0).partitions;
  EXPECT_EQ(odd.at(0).error_message,
            "The manual partition assignment includes the broker 0 more than once.");
  EXPECT_EQ(odd.at(1).error_message,
            "The manual partition assignment includes an empty replica list.");
  twice.allow_replication_factor_change = false;
  twice.topics[0].partitions = {{0, std::vector<int32_t>{0, 0}}};
  EXPECT_EQ(reassign(twice).responses.at(0).partitions.at(0).error_message,
            "The manual partition assignment includes the broker 0 more than once.");
  EXPECT_EQ(partitions_of("t"), (std::set<int32_t>{0, 1}));
}

TEST_F(KafkaToolsRequestsTest, WithEveryDirCordonedEvenTheSameReplicaIsRefused) {
  EXPECT_EQ(alter({{"cordoned.log.dirs", 0, std::string("*")}}, true).error_code, 0);
  AlterPartitionReassignmentsRequest request;
  request.topics.push_back({"t", {{0, std::vector<int32_t>{0}}}});
  const auto p = reassign(request).responses.at(0).partitions.at(0);
  EXPECT_EQ(p.error_code, 39);
  EXPECT_EQ(p.error_message,
            "The manual partition assignment includes broker 0, but all its log directories are "
            "cordoned.");
}

TEST_F(KafkaToolsRequestsTest, DescribeTopicPartitionsPagesByTheCursor) {
  for (int32_t p = 1; p < 5; ++p) broker_->logs().create_partition("t", p);
  broker_->logs().create_partition("u", 0);
  DescribeTopicPartitionsRequest request;
  request.response_partition_limit = 3;
  auto page = describe_partitions(request);
  ASSERT_EQ(page.topics.size(), 1u);
  EXPECT_EQ(page.topics[0].name, "t");
  EXPECT_EQ(page.topics[0].topic_id, id_of("t"));
  ASSERT_EQ(page.topics[0].partitions.size(), 3u);
  EXPECT_EQ(page.topics[0].partitions[2].partition_index, 2);
  EXPECT_EQ(page.topics[0].partitions[2].eligible_leader_replicas, std::vector<int32_t>{});
  EXPECT_EQ(page.topics[0].partitions[2].isr_nodes, std::vector<int32_t>{0});
  EXPECT_EQ(page.next_cursor, (TopicPartitionsCursor{"t", 3}));
  request.cursor = page.next_cursor;
  page = describe_partitions(request);
  ASSERT_EQ(page.topics.size(), 2u);
  EXPECT_EQ(page.topics[0].partitions.size(), 2u);
  EXPECT_EQ(page.topics[1].name, "u");
  EXPECT_FALSE(page.next_cursor.has_value());

  request = {};
  request.topics = {"absent", "u"};
  page = describe_partitions(request);
  ASSERT_EQ(page.topics.size(), 2u);
  EXPECT_EQ(page.topics[0].error_code, 3);
  EXPECT_EQ(page.topics[0].topic_id, Uuid{});
  EXPECT_EQ(page.topics[1].partitions.size(), 1u);
}

TEST_F(KafkaToolsRequestsTest, TopicIdsAreStableAndNameTopicsInMetadataAndDeleteTopics) {
  EXPECT_EQ(id_of("t"), id_of("t"));
  EXPECT_NE(id_of("t"), id_of("u"));
  EXPECT_NE(id_of("t"), Uuid{});
  EXPECT_NE(topic_id_text(id_of("t")).front(), '-');
  EXPECT_EQ(topic_id_text(id_of("t")).size(), 22u);

  const MetadataResponse named = metadata({std::vector<std::string>{"t", "absent"}, false}, 12);
  ASSERT_EQ(named.topics.size(), 2u);
  EXPECT_EQ(named.topics[0].topic_id, id_of("t"));
  EXPECT_EQ(named.topics[1].error_code, 3);
  EXPECT_EQ(named.topics[1].topic_id, Uuid{});
  EXPECT_EQ(named.error_code, 0);

  // By id alone (v10+: a null name): a known id and an unknown one.
  Writer body;
  body.unsigned_varint(3);  // two topics, compact
  body.uuid(id_of("t"));
  body.unsigned_varint(0);  // null name
  body.tagged_fields(true);
  Uuid unknown{};
  unknown[15] = 7;
  body.uuid(unknown);
  body.unsigned_varint(0);
  body.tagged_fields(true);
  body.boolean(false);  // allow auto topic creation
  body.boolean(false);  // include topic authorized operations
  body.tagged_fields(true);
  const std::string reply_in = call(3, 13, body.bytes());
  Reader in(reply_in);
  const MetadataResponse by_id = read_metadata_response(in, 13);
  ASSERT_EQ(by_id.topics.size(), 2u);
  EXPECT_EQ(by_id.topics[0].name, "t");
  EXPECT_EQ(by_id.topics[0].partitions.size(), 1u);
  EXPECT_EQ(by_id.topics[1].name, std::nullopt);
  EXPECT_EQ(by_id.topics[1].error_code, 100);  // UNKNOWN_TOPIC_ID

  DeleteTopicsRequest del;
  del.topics.push_back({std::nullopt, unknown});
  del.topics.push_back({std::nullopt, id_of("t")});
  Writer d;
  write_delete_topics_request(d, del, 6);
  const std::string reply_din = call(20, 6, d.bytes());
  Reader din(reply_din);
  const DeleteTopicsResponse deleted = read_delete_topics_response(din, 6);
  ASSERT_EQ(deleted.responses.size(), 2u);
  EXPECT_EQ(deleted.responses[0].error_code, 100);
  EXPECT_EQ(deleted.responses[1].error_code, 0);
  EXPECT_EQ(deleted.responses[1].name, "t");
  EXPECT_TRUE(partitions_of("t").empty());
}

TEST_F(KafkaToolsRequestsTest, CreateTopicsAnswersTheTopicsIdPartitionsAndConfigs) {
  CreateTopicsRequest create;
  create.topics.push_back({"n", 2, -1, {}, {}});
  create.topics.push_back({"t", 1, -1, {}, {}});
  Writer body;
  write_create_topics_request(body, create, 7);
  const std::string reply_in = call(19, 7, body.bytes());
  Reader in(reply_in);
  const CreateTopicsResponse r = read_create_topics_response(in, 7);
  EXPECT_EQ(in.remaining(), 0u);
  ASSERT_EQ(r.topics.size(), 2u);
  EXPECT_EQ(r.topics[0].error_code, 0);
  EXPECT_EQ(r.topics[0].topic_id, id_of("n"));
  EXPECT_EQ(r.topics[0].num_partitions, 2);
  EXPECT_EQ(r.topics[0].replication_factor, 1);
  ASSERT_TRUE(r.topics[0].configs.has_value());
  bool min_isr = false;
  for (const auto& c : *r.topics[0].configs) {
    if (c.name != "min.insync.replicas") continue;
    min_isr = true;
    EXPECT_EQ(c.value, "1");
    EXPECT_EQ(c.config_source, config_source::kDynamicDefaultBrokerConfig);
  }
  EXPECT_TRUE(min_isr);
  EXPECT_EQ(r.topics[1].error_code, 36);  // TOPIC_ALREADY_EXISTS
  EXPECT_EQ(r.topics[1].num_partitions, -1);
  EXPECT_FALSE(r.topics[1].configs.has_value());
}

TEST_F(KafkaToolsRequestsTest, TheThrottleIsListedOnlyOnceSetAndItsClearingIsAccepted) {
  auto throttle_entries = [&] {
    DescribeConfigsRequest request;
    request.resources = {{resource_type::kBroker, "0", std::nullopt}};
    request.include_synonyms = true;
    std::vector<DescribeConfigsResponse::Config> found;
    const DescribeConfigsResponse described = describe(request, 4);
    for (const auto& c : described.results.at(0).configs) {
      if (c.name == "replica.alter.log.dirs.io.max.bytes.per.second") found.push_back(c);
    }
    return found;
  };
  EXPECT_TRUE(throttle_entries().empty());
  EXPECT_EQ(
      alter({{"replica.alter.log.dirs.io.max.bytes.per.second", 0, std::string("1000")}}, true)
          .error_code,
      0);
  const auto set = throttle_entries();
  ASSERT_EQ(set.size(), 1u);
  EXPECT_EQ(set[0].value, "1000");
  ASSERT_EQ(set[0].synonyms.size(), 1u);
  EXPECT_EQ(set[0].synonyms[0].source, config_source::kDynamicBrokerConfig);

  // What --verify sends once the move is done: every throttle deleted, on the broker and on the
  // topic, keys this broker does not have included.
  EXPECT_EQ(alter({{"leader.replication.throttled.rate", config_operation::kDelete, std::nullopt},
                   {"follower.replication.throttled.rate", config_operation::kDelete, std::nullopt},
                   {"replica.alter.log.dirs.io.max.bytes.per.second", config_operation::kDelete,
                    std::nullopt}},
                  true)
                .error_code,
            0);
  EXPECT_TRUE(throttle_entries().empty());
  AlterConfigsRequest topic;
  topic.resources.push_back(
      {resource_type::kTopic,
       "t",
       {{"leader.replication.throttled.replicas", config_operation::kDelete, std::nullopt},
        {"follower.replication.throttled.replicas", config_operation::kDelete, std::nullopt}}});
  topic.resources.push_back(
      {resource_type::kTopic,
       "absent",
       {{"leader.replication.throttled.replicas", config_operation::kDelete, std::nullopt}}});
  topic.resources.push_back(
      {resource_type::kTopic, "t", {{"retention.ms", config_operation::kSet, std::string("1")}}});
  topic.resources.back().resource_name = "t";
  Writer body;
  write_alter_configs_request(body, topic, true, 1);
  const std::string reply_in = call(44, 1, body.bytes());
  Reader in(reply_in);
  const AlterConfigsResponse r = read_alter_configs_response(in, true, 1);
  ASSERT_EQ(r.responses.size(), 3u);
  // "t" appears twice, which Kafka refuses for both; alone, the deletes are accepted.
  EXPECT_EQ(r.responses[0].error_message, "Each resource must appear at most once.");
  EXPECT_EQ(r.responses[1].error_code, 3);
  topic.resources = {topic.resources[0]};
  Writer again;
  write_alter_configs_request(again, topic, true, 1);
  const std::string reply_in2 = call(44, 1, again.bytes());
  Reader in2(reply_in2);
  EXPECT_EQ(read_alter_configs_response(in2, true, 1).responses.at(0).error_code, 0);
  topic.resources[0].configs = {{"retention.ms", config_operation::kSet, std::string("1")}};
  Writer set_one;
  write_alter_configs_request(set_one, topic, true, 1);
  const std::string reply_in3 = call(44, 1, set_one.bytes());
  Reader in3(reply_in3);
  EXPECT_EQ(read_alter_configs_response(in3, true, 1).responses.at(0).error_message,
            "This broker keeps no topic configs, so the configs of topic t cannot be altered.");
}

}  // namespace
}  // namespace lds::kafka
