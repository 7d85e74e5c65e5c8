// messages_test.cpp: ApiVersions 0-3, Metadata 0-5 and DescribeLogDirs 0-5, field by field from
// Kafka's message definitions (clients/src/main/resources/common/message/*.json; DescribeLogDirs
// v5 from KIP-1066). The flexible versions are checked byte for byte against hand-assembled input.
#include <gtest/gtest.h>

#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/api_versions.h"
#include "kafka/protocol/describe_log_dirs.h"
#include "kafka/protocol/metadata.h"
#include "kafka_test_bytes.h"

namespace lds::kafka {
namespace {

using test::from_hex;
using test::to_hex;

TEST(ApiVersions, Version3ResponseIsCompactWithTaggedFields) {
  ApiVersionsResponse r;
  r.api_keys = {{18, 0, 3}, {3, 0, 4}};
  Writer w;
  write_api_versions_response(w, r, 3);
  EXPECT_EQ(to_hex(w.bytes()), to_hex(from_hex("00 00"                 // ErrorCode
                                               "03"                    // ApiKeys: 2 (compact)
                                               "00 12 00 00 00 03 00"  // 18: 0-3, no tags
                                               "00 03 00 00 00 04 00"  // 3: 0-4, no tags
                                               "00 00 00 00"           // ThrottleTimeMs
                                               "00")));                // no tagged fields
  Reader in(w.bytes());
  const ApiVersionsResponse back = read_api_versions_response(in, 3);
  EXPECT_EQ(back.api_keys, r.api_keys);
}

TEST(ApiVersions, OlderVersionsUseClassicArraysAndV0HasNoThrottle) {
  ApiVersionsResponse r;
  r.error_code = error::kUnsupportedVersion;
  r.api_keys = {{18, 0, 3}};
  Writer w0;
  write_api_versions_response(w0, r, 0);
  EXPECT_EQ(to_hex(w0.bytes()), "00 23 00 00 00 01 00 12 00 00 00 03");
  Writer w1;
  write_api_versions_response(w1, r, 1);
  EXPECT_EQ(to_hex(w1.bytes()), "00 23 00 00 00 01 00 12 00 00 00 03 00 00 00 00");
}

TEST(ApiVersions, Version3RequestCarriesTheClientSoftware) {
  const std::string bytes = from_hex(
      "0b 6c 69 62 72 64 6b 61 66 6b 61"  // "librdkafka"
      "06 32 2e 30 2e 32"                 // "2.0.2"
      "00");
  Reader in(bytes);
  const ApiVersionsRequest r = read_api_versions_request(in, 3);
  EXPECT_EQ(r.client_software_name, "librdkafka");
  EXPECT_EQ(r.client_software_version, "2.0.2");
  EXPECT_EQ(in.remaining(), 0u);
  Writer w;
  write_api_versions_request(w, r, 3);
  EXPECT_EQ(w.bytes(), bytes);
  Writer w0;
  write_api_versions_request(w0, r, 2);
  EXPECT_EQ(w0.size(), 0u);
}

MetadataResponse sample_metadata() {
  MetadataResponse r;
  r.brokers.push_back({0, "h", 9092, std::nullopt});
  r.cluster_id = "c";
  r.controller_id = 0;
  MetadataResponse::Topic t;
  t.name = "t";
  t.partitions.push_back({0, 1, 0, -1, {0}, {0}, {}});
  r.topics.push_back(t);
  return r;
}

TEST(Metadata, Version0ResponseLayout) {
  Writer w;
  write_metadata_response(w, sample_metadata(), 0);
  EXPECT_EQ(to_hex(w.bytes()), to_hex(from_hex("00 00 00 01 00 00 00 00 00 01 68 00 00 23 84"
                                               "00 00 00 01 00 00 00 01 74"  // topic "t"
                                               "00 00 00 01 00 00 00 00 00 01 00 00 00 00"
                                               "00 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00")));
}

TEST(Metadata, Version4AddsRackClusterControllerThrottleAndInternal) {
  Writer w;
  write_metadata_response(w, sample_metadata(), 4);
  EXPECT_EQ(to_hex(w.bytes()),
            to_hex(from_hex("00 00 00 00"                                   // ThrottleTimeMs
                            "00 00 00 01 00 00 00 00 00 01 68 00 00 23 84"  // broker 0 h:9092
                            "ff ff"                                         // Rack null
                            "00 01 63"                                      // ClusterId "c"
                            "00 00 00 00"                                   // ControllerId 0
                            "00 00 00 01 00 00 00 01 74 00"  // topic "t", not internal
                            "00 00 00 01 00 00 00 00 00 01 00 00 00 00"
                            "00 00 00 01 00 00 00 00 00 00 00 01 00 00 00 00")));
  for (int16_t v = 0; v <= 5; ++v) {
    Writer out;
    write_metadata_response(out, sample_metadata(), v);
    Reader in(out.bytes());
    const MetadataResponse back = read_metadata_response(in, v);
    EXPECT_EQ(in.remaining(), 0u);
    EXPECT_EQ(back.topics.at(0).partitions.at(0).partition_index, 1);
    EXPECT_EQ(back.brokers.at(0).port, 9092);
  }
}

TEST(Metadata, Version5AddsEachPartitionsOfflineReplicas) {
  MetadataResponse r = sample_metadata();
  r.topics[0].partitions[0] = {5, 1, -1, -1, {0}, {}, {0}};  // LEADER_NOT_AVAILABLE, no leader
  Writer w;
  write_metadata_response(w, r, 5);
  EXPECT_EQ(to_hex(w.bytes()),
            to_hex(from_hex("00 00 00 00"                                   // ThrottleTimeMs
                            "00 00 00 01 00 00 00 00 00 01 68 00 00 23 84"  // broker 0 h:9092
                            "ff ff 00 01 63 00 00 00 00"     // no rack, cluster "c", controller 0
                            "00 00 00 01 00 00 00 01 74 00"  // topic "t", not internal
                            "00 00 00 01 00 05 00 00 00 01 ff ff ff ff"  // partition 1, leader -1
                            "00 00 00 01 00 00 00 00"                    // ReplicaNodes [0]
                            "00 00 00 00"                                // IsrNodes []
                            "00 00 00 01 00 00 00 00")));                // OfflineReplicas [0]
  Reader in(w.bytes());
  const MetadataResponse back = read_metadata_response(in, 5);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(back.topics.at(0).partitions.at(0).offline_replicas, std::vector<int32_t>{0});
  // Versions before 5 do not carry the field.
  Writer w4;
  write_metadata_response(w4, r, 4);
  EXPECT_EQ(w4.size() + 8, w.size());
}

TEST(Metadata, AllTopicsIsEmptyInV0AndNullFromV1) {
  const std::string empty = from_hex("00 00 00 00");
  Reader r0(empty);
  EXPECT_EQ(read_metadata_request(r0, 0).topics, std::nullopt);
  Reader r1(empty);
  EXPECT_EQ(read_metadata_request(r1, 1).topics, std::vector<std::string>{});
  const std::string null_v4 = from_hex("ff ff ff ff 00");
  Reader r4(null_v4);
  const MetadataRequest all = read_metadata_request(r4, 4);
  EXPECT_EQ(all.topics, std::nullopt);
  EXPECT_FALSE(all.allow_auto_topic_creation);
  const std::string named = from_hex("00 00 00 01 00 01 74 01");
  Reader rn(named);
  EXPECT_EQ(read_metadata_request(rn, 4).topics, std::vector<std::string>{"t"});
}

DescribeLogDirsResponse sample_log_dirs() {
  DescribeLogDirsResponse r;
  DescribeLogDirsResponse::Result d;
  d.log_dir = "/d";
  d.topics.push_back({"t", {{1, 10, 0, false}}});
  d.total_bytes = 100;
  d.usable_bytes = 50;
  d.is_cordoned = true;
  r.results.push_back(d);
  return r;
}

// The response shared by every version, before the fields each version adds.
constexpr const char* kLogDirsFlexibleResult =
    "02"                                               // Results: 1 (compact)
    "00 00 03 2f 64"                                   // ErrorCode 0, LogDir "/d"
    "02 02 74"                                         // Topics: 1, Name "t"
    "02 00 00 00 01"                                   // Partitions: 1, PartitionIndex 1
    "00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00"  // PartitionSize 10, OffsetLag 0
    "00 00"                                            // IsFutureKey false, no tags
    "00";                                              // topic: no tags

TEST(DescribeLogDirs, Version5AddsIsCordonedAfterTheSizes) {
  Writer w;
  write_describe_log_dirs_response(w, sample_log_dirs(), 5);
  EXPECT_EQ(to_hex(w.bytes()),
            to_hex(from_hex(std::string("00 00 00 00 00 00") + kLogDirsFlexibleResult +
                            "00 00 00 00 00 00 00 64 00 00 00 00 00 00 00 32"  // Total, Usable
                            "01 00"  // IsCordoned true, no tags
                            "00")));
  Reader in(w.bytes());
  const DescribeLogDirsResponse back = read_describe_log_dirs_response(in, 5);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_TRUE(back.results.at(0).is_cordoned);
  EXPECT_EQ(back.results.at(0).usable_bytes, 50);
}

TEST(DescribeLogDirs, Version4HasTheSizesButNoCordon) {
  Writer w;
  write_describe_log_dirs_response(w, sample_log_dirs(), 4);
  // Appended: GCC 12 at -O1 and above reports a false -Warray-bounds on `std::string(..) + ..`.
  const std::string expected = std::string("00 00 00 00 00 00")
                                   .append(kLogDirsFlexibleResult)
                                   .append("00 00 00 00 00 00 00 64 00 00 00 00 00 00 00 32 00 00");
  EXPECT_EQ(to_hex(w.bytes()), to_hex(from_hex(expected)));
}

TEST(DescribeLogDirs, Version3AddsTheTopLevelErrorCodeAndVersion2IsTheFirstFlexible) {
  Writer w3;
  write_describe_log_dirs_response(w3, sample_log_dirs(), 3);
  EXPECT_EQ(to_hex(w3.bytes()),
            to_hex(from_hex(std::string("00 00 00 00 00 00") + kLogDirsFlexibleResult + "00 00")));
  Writer w2;
  write_describe_log_dirs_response(w2, sample_log_dirs(), 2);
  EXPECT_EQ(to_hex(w2.bytes()),
            to_hex(from_hex(std::string("00 00 00 00") + kLogDirsFlexibleResult + "00 00")));
}

TEST(DescribeLogDirs, Version0IsClassic) {
  Writer w;
  write_describe_log_dirs_response(w, sample_log_dirs(), 0);
  EXPECT_EQ(to_hex(w.bytes()),
            to_hex(from_hex("00 00 00 00 00 00 00 01 00 00 00 02 2f 64 00 00 00 01 00 01 74"
                            "00 00 00 01 00 00 00 01"
                            "00 00 00 00 00 00 00 0a 00 00 00 00 00 00 00 00 00")));
}

TEST(DescribeLogDirs, RequestsNullForAllTopicsOrNamedPartitions) {
  const std::string all_v2 = from_hex("00 00");
  Reader r(all_v2);
  EXPECT_FALSE(read_describe_log_dirs_request(r, 2).topics.has_value());
  const std::string all_v0 = from_hex("ff ff ff ff");
  Reader r0(all_v0);
  EXPECT_FALSE(read_describe_log_dirs_request(r0, 0).topics.has_value());

  // v4: topic "t", partitions 0 and 1, a tagged field (tag 7, 1 byte) on the topic to skip.
  const std::string named = from_hex("02 02 74 03 00 00 00 00 00 00 00 01 01 07 01 ff 00");
  Reader rn(named);
  const DescribeLogDirsRequest req = read_describe_log_dirs_request(rn, 4);
  EXPECT_EQ(rn.remaining(), 0u);
  ASSERT_TRUE(req.topics.has_value());
  EXPECT_EQ(req.topics->at(0).topic, "t");
  EXPECT_EQ(req.topics->at(0).partitions, (std::vector<int32_t>{0, 1}));

  Writer w;
  DescribeLogDirsRequest out;
  out.topics = std::vector<DescribeLogDirsRequest::Topic>{{"t", {0, 1}}};
  write_describe_log_dirs_request(w, out, 4);
  EXPECT_EQ(to_hex(w.bytes()), "02 02 74 03 00 00 00 00 00 00 00 01 00 00");
}

TEST(ApiTable, HeaderVersionsFollowFlexibility) {
  const ApiRange api_versions = *find_api(18);
  EXPECT_EQ(request_header_version(api_versions, 3), 2);
  EXPECT_EQ(request_header_version(api_versions, 2), 1);
  EXPECT_EQ(response_header_version(api_versions, 3), 0);  // always 0, so anyone can read it
  const ApiRange log_dirs = *find_api(35);
  EXPECT_EQ(response_header_version(log_dirs, 2), 1);
  EXPECT_EQ(response_header_version(log_dirs, 1), 0);
  const ApiRange metadata = *find_api(3);
  EXPECT_EQ(request_header_version(metadata, 4), 1);
  const ApiRange fetch = *find_api(1);
  EXPECT_EQ(request_header_version(fetch, 11), 1);  // flexible only from 12, above the range
  EXPECT_EQ(response_header_version(fetch, 11), 0);
  EXPECT_FALSE(find_api(4).has_value());  // LeaderAndIsr: not a client's API
}

}  // namespace
}  // namespace lds::kafka
