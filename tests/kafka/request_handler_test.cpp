// request_handler_test.cpp: the request handler over an in-memory broker: the exact ApiVersions
// answer, and every truncation and byte flip of real requests (every API) either answered, turned
// into a closed connection or a wait, never a crash or an exception, with the broker still serving
// afterwards.
#include "kafka/server/request_handler.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <vector>

#include "broker/broker.h"
#include "kafka/protocol/api_versions.h"
#include "kafka/protocol/create_topics.h"
#include "kafka/protocol/delete_topics.h"
#include "kafka/protocol/describe_cluster.h"
#include "kafka/protocol/describe_log_dirs.h"
#include "kafka/protocol/fetch.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/list_offsets.h"
#include "kafka/protocol/metadata.h"
#include "kafka/protocol/produce.h"
#include "kafka_test_bytes.h"
#include "model/record_batch.h"
#include "request_handler_fixture.h"
#include "temp_dir.h"
#include "util/logging.h"

namespace lds::kafka {
namespace {

class RequestHandlerTest : public RequestHandlerFixture {
 protected:
  static std::string request(int16_t key, int16_t version, int header_version,
                             const std::string& body) {
    Writer w;
    write_request_header(w, {key, version, 42, std::string("c")}, header_version);
    w.raw(body);
    return w.take();
  }

  // One valid request of each implemented API and a few versions.
  static std::vector<std::string> valid_requests() {
    std::vector<std::string> out;
    Writer av;
    write_api_versions_request(av, {"client", "1.0"}, 3);
    out.push_back(request(18, 3, 2, av.bytes()));
    out.push_back(request(18, 0, 1, ""));
    Writer av5;
    write_api_versions_request(av5, {"client", "1.0", std::string("cluster"), 0}, 5);
    out.push_back(request(18, 5, 2, av5.bytes()));
    for (int16_t v = 0; v <= 13; ++v) {
      Writer m;
      MetadataRequest all_and_named{std::vector<std::string>{"t", "u"}, true};
      all_and_named.include_topic_authorized_operations = v >= 8;
      write_metadata_request(m, all_and_named, v);
      out.push_back(request(3, v, v >= 9 ? 2 : 1, m.bytes()));
    }
    for (int16_t v : {int16_t{1}, int16_t{2}, int16_t{5}}) {
      Writer d;
      DescribeLogDirsRequest r;
      r.topics = std::vector<DescribeLogDirsRequest::Topic>{{"t", {0}}};
      write_describe_log_dirs_request(d, r, v);
      out.push_back(request(35, v, v >= 2 ? 2 : 1, d.bytes()));
    }
    Writer c;
    CreateTopicsRequest create;
    create.topics.push_back({"n", 2, 1, {}, {{"retention.bytes", std::string("100")}}});
    create.validate_only = true;
    write_create_topics_request(c, create, 4);
    out.push_back(request(19, 4, 1, c.bytes()));
    Writer c7;
    write_create_topics_request(c7, create, 7);
    out.push_back(request(19, 7, 2, c7.bytes()));
    Writer del;
    DeleteTopicsRequest absent;
    absent.topics.push_back({std::string("absent"), {}});
    absent.timeout_ms = 1000;
    write_delete_topics_request(del, absent, 3);
    out.push_back(request(20, 3, 1, del.bytes()));
    Writer del6;
    write_delete_topics_request(del6, absent, 6);
    out.push_back(request(20, 6, 2, del6.bytes()));
    // One v2 batch of one record, to t-0, then read back and its offsets asked for.
    Record record;
    record.key = "k";
    record.value = "v";
    ProduceRequest produce;
    produce.acks = 1;
    produce.topics.push_back({"t", {{0, build_batch(0, 1700000000000, {record})}}});
    for (int16_t v : {int16_t{3}, int16_t{7}}) {
      Writer p;
      write_produce_request(p, produce, v);
      out.push_back(request(0, v, 1, p.bytes()));
    }
    FetchRequest fetch;
    fetch.max_wait_ms = 0;
    fetch.topics.push_back({"t", {{0, -1, 0, -1, 1 << 20}}});
    for (int16_t v : {int16_t{4}, int16_t{11}}) {
      Writer f;
      write_fetch_request(f, fetch, v);
      out.push_back(request(1, v, 1, f.bytes()));
    }
    ListOffsetsRequest offsets;
    offsets.topics.push_back({"t", {{0, kEarliestTimestamp}}});
    Writer l;
    write_list_offsets_request(l, offsets, 2);
    out.push_back(request(2, 2, 1, l.bytes()));
    for (int16_t v : {int16_t{0}, int16_t{1}, int16_t{2}}) {
      Writer dc;
      write_describe_cluster_request(dc, {}, v);
      out.push_back(request(60, v, 2, dc.bytes()));
    }
    return out;
  }

  // A reply is at most one of: a response frame, a reason to close, or a wait (a Fetch). Only an
  // acks=0 Produce may be answered with none of them.
  static void expect_one_outcome(const Reply& r, const std::string& what,
                                 std::string_view request) {
    const int outcomes = static_cast<int>(!r.frame.empty()) +
                         static_cast<int>(!r.close_reason.empty()) +
                         static_cast<int>(r.retry_at.has_value());
    EXPECT_LE(outcomes, 1) << what;
    if (outcomes == 0) {
      EXPECT_TRUE(request.size() >= 2 && request[0] == 0 && request[1] == 0) << what;
    }
  }
};

TEST_F(RequestHandlerTest, ApiVersionsV3AnswerIsExact) {
  const Reply r = handler_->handle(valid_requests()[0]);
  EXPECT_TRUE(r.close_reason.empty()) << r.close_reason;
  EXPECT_EQ(test::to_hex(r.frame),
            test::to_hex(test::from_hex("00 00 00 2a"           // correlation id, header v0
                                        "00 00 13"              // no error, 18 APIs
                                        "00 00 00 03 00 08 00"  // Produce 3-8
                                        "00 01 00 04 00 0b 00"  // Fetch 4-11
                                        "00 02 00 01 00 02 00"  // ListOffsets 1-2
                                        "00 03 00 00 00 0d 00"  // Metadata 0-13
                                        "00 12 00 00 00 05 00"  // ApiVersions 0-5
                                        "00 13 00 02 00 07 00"  // CreateTopics 2-7
                                        "00 14 00 01 00 06 00"  // DeleteTopics 1-6
                                        "00 16 00 00 00 05 00"  // InitProducerId 0-5
                                        "00 20 00 01 00 04 00"  // DescribeConfigs 1-4
                                        "00 21 00 00 00 02 00"  // AlterConfigs 0-2
                                        "00 22 00 01 00 02 00"  // AlterReplicaLogDirs 1-2
                                        "00 23 00 01 00 05 00"  // DescribeLogDirs 1-5
                                        "00 25 00 00 00 03 00"  // CreatePartitions 0-3
                                        "00 2c 00 00 00 01 00"  // IncrementalAlterConfigs 0-1
                                        "00 2d 00 00 00 01 00"  // AlterPartitionReassignments 0-1
                                        "00 2e 00 00 00 00 00"  // ListPartitionReassignments 0
                                        "00 3c 00 00 00 02 00"  // DescribeCluster 0-2
                                        "00 4b 00 00 00 00 00"  // DescribeTopicPartitions 0
                                        "00 00 00 00 00")));    // throttle, no tags
}

TEST_F(RequestHandlerTest, EveryValidRequestIsAnswered) {
  for (const std::string& req : valid_requests()) {
    const Reply r = handler_->handle(req);
    EXPECT_TRUE(r.close_reason.empty()) << r.close_reason;
    ASSERT_GE(r.frame.size(), 4u);
    Reader in(r.frame);
    EXPECT_EQ(in.int32(), 42);
  }
}

TEST_F(RequestHandlerTest, EveryTruncationClosesOrAnswersAndNeverThrows) {
  for (const std::string& req : valid_requests()) {
    for (size_t cut = 0; cut < req.size(); ++cut) {
      Reply r;
      ASSERT_NO_THROW(r = handler_->handle(std::string_view(req).substr(0, cut)));
      expect_one_outcome(r, "cut at " + std::to_string(cut), req);
      // Inside the fixed part of the header the request cannot be understood.
      if (cut < 8) {
        EXPECT_FALSE(r.close_reason.empty()) << cut;
      }
    }
  }
}

TEST_F(RequestHandlerTest, EveryByteFlipClosesOrAnswersAndTheBrokerKeepsServing) {
  for (const std::string& req : valid_requests()) {
    for (size_t i = 0; i < req.size(); ++i) {
      for (unsigned mask : {0x01u, 0x80u, 0xFFu}) {
        std::string bad = req;
        bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ mask);
        Reply r;
        ASSERT_NO_THROW(r = handler_->handle(bad));
        expect_one_outcome(r, "byte " + std::to_string(i), bad);
      }
    }
  }
  const Reply after = handler_->handle(valid_requests()[2]);
  EXPECT_TRUE(after.close_reason.empty());
}

TEST_F(RequestHandlerTest, MetadataTellsUnknownFromInvalidTopicNames) {
  Writer body;
  write_metadata_request(body, {std::vector<std::string>{"t", "absent", "no way"}, false}, 4);
  const Reply r = handler_->handle(request(3, 4, 1, body.bytes()));
  ASSERT_TRUE(r.close_reason.empty()) << r.close_reason;
  Reader in(r.frame);
  EXPECT_EQ(read_response_header(in, 0), 42);
  const MetadataResponse m = read_metadata_response(in, 4);
  ASSERT_EQ(m.topics.size(), 3u);
  EXPECT_EQ(m.topics[0].error_code, 0);
  EXPECT_EQ(m.topics[0].partitions.size(), 1u);
  EXPECT_EQ(m.topics[1].error_code, 3);   // UNKNOWN_TOPIC_OR_PARTITION
  EXPECT_EQ(m.topics[2].error_code, 17);  // INVALID_TOPIC_EXCEPTION
  EXPECT_EQ(m.brokers.at(0).host, "127.0.0.1");
  EXPECT_EQ(m.brokers.at(0).port, 9092);
}

// A partition whose only replica is on an offline log dir has no leader: Kafka's metadata cache
// answers LEADER_NOT_AVAILABLE, leader -1, no in-sync replica, and (v5+) the replica as offline.
TEST_F(RequestHandlerTest, MetadataAnswersAPartitionOnAnOfflineDirAsLeaderless) {
  (void)broker_->logs().create_partition("t", 1);  // the other dir
  const std::vector<LogDirDescription> dirs = broker_->logs().describe();
  uint32_t dir_of_t0 = 0;
  for (uint32_t i = 0; i < dirs.size(); ++i) {
    for (const auto& p : dirs[i].partitions) {
      if (p.partition == "t-0") dir_of_t0 = i;
    }
  }
  broker_->logs().mark_offline(dir_of_t0, "a test takes it offline");
  for (int16_t version : {int16_t{4}, int16_t{5}}) {
    Writer body;
    write_metadata_request(body, {std::vector<std::string>{"t"}, false}, version);
    const Reply r = handler_->handle(request(3, version, 1, body.bytes()));
    ASSERT_TRUE(r.close_reason.empty()) << r.close_reason;
    Reader in(r.frame);
    EXPECT_EQ(read_response_header(in, 0), 42);
    const MetadataResponse m = read_metadata_response(in, version);
    ASSERT_EQ(m.topics.size(), 1u);
    EXPECT_EQ(m.topics[0].error_code, 0);
    ASSERT_EQ(m.topics[0].partitions.size(), 2u);
    const MetadataResponse::Partition& offline = m.topics[0].partitions[0];
    EXPECT_EQ(offline.partition_index, 0);
    EXPECT_EQ(offline.error_code, 5);  // LEADER_NOT_AVAILABLE
    EXPECT_EQ(offline.leader_id, -1);
    EXPECT_EQ(offline.replica_nodes, std::vector<int32_t>{0});
    EXPECT_EQ(offline.isr_nodes, std::vector<int32_t>{});
    EXPECT_EQ(offline.offline_replicas,
              version >= 5 ? std::vector<int32_t>{0} : std::vector<int32_t>{});
    const MetadataResponse::Partition& online = m.topics[0].partitions[1];
    EXPECT_EQ(online.partition_index, 1);
    EXPECT_EQ(online.error_code, 0);
    EXPECT_EQ(online.leader_id, 0);
    EXPECT_EQ(online.isr_nodes, std::vector<int32_t>{0});
    EXPECT_EQ(online.offline_replicas, std::vector<int32_t>{});
  }
}

// A topic's expected size (retention.bytes) and append rate (lds.expected.bytes.in.per.sec) go to
// placement; a value that is not a number is refused as Kafka refuses a LONG config.
TEST_F(RequestHandlerTest, CreateTopicsReadsTheExpectedSizeAndRateConfigs) {
  auto create = [&](const std::string& topic, const std::string& key, const std::string& value) {
    Writer body;
    CreateTopicsRequest req;
    req.topics.push_back({topic, 1, 1, {}, {{key, value}}});
    write_create_topics_request(body, req, 4);
    const Reply r = handler_->handle(request(19, 4, 1, body.bytes()));
    EXPECT_TRUE(r.close_reason.empty()) << r.close_reason;
    Reader in(r.frame);
    read_response_header(in, 0);
    return read_create_topics_response(in, 4).topics.at(0);
  };
  const size_t before = broker_->logs().partition_count();
  const auto bad = create("r", "lds.expected.bytes.in.per.sec", "fast");
  EXPECT_EQ(bad.error_code, 40);  // INVALID_CONFIG
  EXPECT_EQ(bad.error_message,
            "Invalid value fast for configuration lds.expected.bytes.in.per.sec: Not a number of "
            "type LONG");
  EXPECT_EQ(create("s", "lds.expected.bytes.in.per.sec", "1048576").error_code, 0);
  EXPECT_EQ(create("u", "retention.bytes", "100").error_code, 0);
  EXPECT_EQ(broker_->logs().partition_count(), before + 2);  // s-0 and u-0, not r-0
}

// Kafka's controller caps the partitions one request may create (MAX_PARTITIONS_PER_BATCH): a
// client cannot make the broker create partitions without end.
TEST_F(RequestHandlerTest, ARequestForMoreThan10000PartitionsIsRefusedWholeAndCreatesNothing) {
  Writer body;
  CreateTopicsRequest req;
  req.topics.push_back({"small", 1, 1, {}, {}});
  req.topics.push_back({"huge", 10000, 1, {}, {}});
  write_create_topics_request(body, req, 4);
  const size_t before = broker_->logs().partition_count();
  const Reply r = handler_->handle(request(19, 4, 1, body.bytes()));
  ASSERT_TRUE(r.close_reason.empty()) << r.close_reason;
  Reader in(r.frame);
  read_response_header(in, 0);
  const CreateTopicsResponse response = read_create_topics_response(in, 4);
  ASSERT_EQ(response.topics.size(), 2u);
  for (const auto& t : response.topics) {
    EXPECT_EQ(t.error_code, 44) << t.name;  // POLICY_VIOLATION
    EXPECT_EQ(t.error_message, "Excessively large number of partitions per request.") << t.name;
  }
  EXPECT_EQ(broker_->logs().partition_count(), before);
}

TEST_F(RequestHandlerTest, UnknownKeysAndVersionsAreClosedWithAReason) {
  EXPECT_NE(handler_->handle(request(4, 0, 1, "")).close_reason.find("API key 4"),
            std::string::npos);
  EXPECT_NE(handler_->handle(request(0, 2, 1, ""))
                .close_reason.find("unsupported version 2 of "
                                   "Produce (this broker serves "
                                   "3 to 8)"),
            std::string::npos);
  EXPECT_NE(handler_->handle(request(3, 14, 1, "")).close_reason.find("unsupported version 14"),
            std::string::npos);
  EXPECT_NE(handler_->handle(request(35, -1, 1, "")).close_reason.find("unsupported version -1"),
            std::string::npos);
}

}  // namespace
}  // namespace lds::kafka
