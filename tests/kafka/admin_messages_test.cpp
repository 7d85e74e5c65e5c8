// admin_messages_test.cpp: CreatePartitions 0-1, DescribeConfigs 0-2, AlterConfigs 0-1,
// IncrementalAlterConfigs 0 and AlterReplicaLogDirs 0-1, byte by byte from Kafka's
// CreatePartitions{Request,Response}.json, DescribeConfigs{Request,Response}.json,
// AlterConfigs{Request,Response}.json, IncrementalAlterConfigs{Request,Response}.json and
// AlterReplicaLogDirs{Request,Response}.json (clients/src/main/resources/common/message/).
#include <gtest/gtest.h>

#include "kafka/protocol/alter_replica_log_dirs.h"
#include "kafka/protocol/configs.h"
#include "kafka/protocol/create_partitions.h"
#include "kafka_test_bytes.h"

namespace lds::kafka {
namespace {

using test::from_hex;
using test::to_hex;

// CreatePartitions v1: topic "a" to 3 partitions with a null assignment list, topic "b" to 2 with
// one assignment [0]; timeoutMs 1000, validateOnly true.
const std::string kCreatePartitions = from_hex(
    "00 00 00 02"                       // Topics: 2
    "00 01 61 00 00 00 03 ff ff ff ff"  // "a", Count 3, Assignments null
    "00 01 62 00 00 00 02 00 00 00 01"  // "b", Count 2, Assignments: 1
    "00 00 00 01 00 00 00 00"           // BrokerIds [0]
    "00 00 03 e8 01");                  // TimeoutMs 1000, ValidateOnly

TEST(CreatePartitions, RequestReadsNullAndExplicitAssignments) {
  for (int16_t version : {int16_t{0}, int16_t{1}}) {
    Reader in(kCreatePartitions);
    const CreatePartitionsRequest r = read_create_partitions_request(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    ASSERT_EQ(r.topics.size(), 2u);
    EXPECT_EQ(r.topics[0].name, "a");
    EXPECT_EQ(r.topics[0].count, 3);
    EXPECT_FALSE(r.topics[0].assignments.has_value());
    ASSERT_TRUE(r.topics[1].assignments.has_value());
    EXPECT_EQ(*r.topics[1].assignments, (std::vector<std::vector<int32_t>>{{0}}));
    EXPECT_EQ(r.timeout_ms, 1000);
    EXPECT_TRUE(r.validate_only);
    Writer w;
    write_create_partitions_request(w, r, version);
    EXPECT_EQ(to_hex(w.bytes()), to_hex(kCreatePartitions));
  }
}

TEST(CreatePartitions, ResponseCarriesANullableMessage) {
  CreatePartitionsResponse r;
  r.results.push_back({"a", 37, std::string("x")});
  r.results.push_back({"b", 0, std::nullopt});
  Writer w;
  write_create_partitions_response(w, r, 1);
  EXPECT_EQ(to_hex(w.bytes()),
            "00 00 00 00 00 00 00 02 00 01 61 00 25 00 01 78 00 01 62 00 00 ff ff");
  Reader in(w.bytes());
  const CreatePartitionsResponse back = read_create_partitions_response(in, 1);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(back.results.at(0).error_message, "x");
  EXPECT_FALSE(back.results.at(1).error_message.has_value());
}

// DescribeConfigs v1: broker "0" with keys null, topic "t" with ["k"]; IncludeSynonyms true.
const std::string kDescribeConfigsV1 = from_hex(
    "00 00 00 02"
    "04 00 01 30 ff ff ff ff"           // BROKER (4), "0", ConfigurationKeys null
    "02 00 01 74 00 00 00 01 00 01 6b"  // TOPIC (2), "t", ["k"]
    "01");                              // IncludeSynonyms

TEST(DescribeConfigs, RequestGainsIncludeSynonymsInV1) {
  Reader in(kDescribeConfigsV1);
  const DescribeConfigsRequest r = read_describe_configs_request(in, 1);
  EXPECT_EQ(in.remaining(), 0u);
  ASSERT_EQ(r.resources.size(), 2u);
  EXPECT_EQ(r.resources[0].resource_type, resource_type::kBroker);
  EXPECT_EQ(r.resources[0].resource_name, "0");
  EXPECT_FALSE(r.resources[0].configuration_keys.has_value());
  EXPECT_EQ(r.resources[1].configuration_keys, std::vector<std::string>{"k"});
  EXPECT_TRUE(r.include_synonyms);
  Writer w;
  write_describe_configs_request(w, r, 2);
  EXPECT_EQ(to_hex(w.bytes()), to_hex(kDescribeConfigsV1));
  // Version 0 ends before IncludeSynonyms.
  const std::string v0 = kDescribeConfigsV1.substr(0, kDescribeConfigsV1.size() - 1);
  Reader in0(v0);
  EXPECT_FALSE(read_describe_configs_request(in0, 0).include_synonyms);
  EXPECT_EQ(in0.remaining(), 0u);
}

TEST(DescribeConfigs, ResponseHasIsDefaultInV0AndSourceAndSynonymsFromV1) {
  DescribeConfigsResponse r;
  DescribeConfigsResponse::Result result;
  result.resource_type = resource_type::kBroker;
  result.resource_name = "0";
  DescribeConfigsResponse::Config c;
  c.name = "k";
  c.value = "v";
  c.read_only = true;
  c.is_default = true;
  c.config_source = config_source::kStaticBrokerConfig;
  c.synonyms.push_back({"k", std::string("v"), config_source::kStaticBrokerConfig});
  result.configs.push_back(c);
  r.results.push_back(result);
  const std::string head =
      "00 00 00 00 00 00 00 01"            // ThrottleTimeMs, Results: 1
      "00 00 ff ff 04 00 01 30"            // ErrorCode 0, ErrorMessage null, BROKER, "0"
      "00 00 00 01 00 01 6b 00 01 76 01";  // Configs: 1, "k" = "v", ReadOnly
  Writer w0;
  write_describe_configs_response(w0, r, 0);
  EXPECT_EQ(to_hex(w0.bytes()), to_hex(from_hex(head + "01 00")));  // IsDefault, IsSensitive
  Writer w1;
  write_describe_configs_response(w1, r, 1);
  // ConfigSource 4, IsSensitive, Synonyms: 1 ("k" = "v", Source 4).
  EXPECT_EQ(to_hex(w1.bytes()), to_hex(from_hex(head + "04 00 00 00 00 01 00 01 6b 00 01 76 04")));
  for (int16_t version : {int16_t{0}, int16_t{1}, int16_t{2}}) {
    Writer w;
    write_describe_configs_response(w, r, version);
    Reader in(w.bytes());
    const DescribeConfigsResponse back = read_describe_configs_response(in, version);
    EXPECT_EQ(in.remaining(), 0u) << version;
    EXPECT_EQ(back.results.at(0).configs.at(0).value, "v");
    EXPECT_EQ(back.results.at(0).configs.at(0).synonyms.size(), version >= 1 ? 1u : 0u);
  }
}

TEST(AlterConfigs, LegacyAndIncrementalRequestsDifferByTheOperation) {
  const std::string legacy = from_hex(
      "00 00 00 01 04 00 01 30"  // Resources: 1, BROKER "0"
      "00 00 00 02"              // Configs: 2
      "00 01 61 00 01 31"        // "a" = "1"
      "00 01 62 ff ff"           // "b" = null
      "01");                     // ValidateOnly
  Reader in(legacy);
  const AlterConfigsRequest r = read_alter_configs_request(in, false, 1);
  EXPECT_EQ(in.remaining(), 0u);
  ASSERT_EQ(r.resources.at(0).configs.size(), 2u);
  EXPECT_EQ(r.resources[0].configs[0].value, "1");
  EXPECT_FALSE(r.resources[0].configs[1].value.has_value());
  EXPECT_TRUE(r.validate_only);
  Writer w;
  write_alter_configs_request(w, r, false, 1);
  EXPECT_EQ(to_hex(w.bytes()), to_hex(legacy));

  // IncrementalAlterConfigs v0: ConfigOperation (int8) between Name and Value.
  const std::string incremental = from_hex(
      "00 00 00 01 04 00 01 30 00 00 00 02"
      "00 01 61 00 00 01 31"  // "a" SET "1"
      "00 01 62 01 ff ff"     // "b" DELETE
      "00");
  Reader in2(incremental);
  const AlterConfigsRequest i = read_alter_configs_request(in2, true, 0);
  EXPECT_EQ(in2.remaining(), 0u);
  EXPECT_EQ(i.resources.at(0).configs.at(0).config_operation, config_operation::kSet);
  EXPECT_EQ(i.resources.at(0).configs.at(1).config_operation, config_operation::kDelete);
  EXPECT_FALSE(i.validate_only);
  Writer w2;
  write_alter_configs_request(w2, i, true, 0);
  EXPECT_EQ(to_hex(w2.bytes()), to_hex(incremental));
}

TEST(AlterConfigs, ResponseIsPerResource) {
  AlterConfigsResponse r;
  r.responses.push_back({40, std::string("no"), resource_type::kBroker, "0"});
  Writer w;
  write_alter_configs_response(w, r, true, 0);
  EXPECT_EQ(to_hex(w.bytes()), "00 00 00 00 00 00 00 01 00 28 00 02 6e 6f 04 00 01 30");
  Reader in(w.bytes());
  const AlterConfigsResponse back = read_alter_configs_response(in, true, 0);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(back.responses.at(0).error_message, "no");
  EXPECT_EQ(back.responses.at(0).resource_name, "0");
}

TEST(AlterReplicaLogDirs, RequestAndResponse) {
  const std::string request = from_hex(
      "00 00 00 01 00 03 2f 64 32"             // Dirs: 1, Path "/d2"
      "00 00 00 01 00 01 74"                   // Topics: 1, "t"
      "00 00 00 02 00 00 00 00 00 00 00 03");  // Partitions [0, 3]
  for (int16_t version : {int16_t{0}, int16_t{1}}) {
    Reader in(request);
    const AlterReplicaLogDirsRequest r = read_alter_replica_log_dirs_request(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    ASSERT_EQ(r.dirs.size(), 1u);
    EXPECT_EQ(r.dirs[0].path, "/d2");
    EXPECT_EQ(r.dirs[0].topics.at(0).partitions, (std::vector<int32_t>{0, 3}));
    Writer w;
    write_alter_replica_log_dirs_request(w, r, version);
    EXPECT_EQ(to_hex(w.bytes()), to_hex(request));
  }
  AlterReplicaLogDirsResponse response;
  response.results.push_back({"t", {{0, 0}, {3, 57}}});
  Writer w;
  write_alter_replica_log_dirs_response(w, response, 1);
  EXPECT_EQ(to_hex(w.bytes()),
            "00 00 00 00 00 00 00 01 00 01 74 00 00 00 02 00 00 00 00 00 00 00 00 00 03 00 39");
  Reader in(w.bytes());
  const AlterReplicaLogDirsResponse back = read_alter_replica_log_dirs_response(in, 1);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(back.results.at(0).partitions.at(1).error_code, 57);
}

}  // namespace
}  // namespace lds::kafka
