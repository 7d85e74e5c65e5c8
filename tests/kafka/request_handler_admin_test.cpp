// request_handler_admin_test.cpp: CreatePartitions, DescribeConfigs, AlterConfigs,
// IncrementalAlterConfigs and AlterReplicaLogDirs answered by the request handler over an
// in-memory broker: what changes on the broker, and Kafka's error codes and sentences.
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <vector>

#include "broker/broker.h"
#include "kafka/protocol/alter_replica_log_dirs.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/configs.h"
#include "kafka/protocol/create_partitions.h"
#include "kafka/protocol/describe_cluster.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/partition_reassignments.h"
#include "kafka/server/request_handler.h"
#include "kafka/server/topic_configs.h"
#include "request_handler_fixture.h"
#include "temp_dir.h"
#include "util/logging.h"

namespace lds::kafka {
namespace {

using AdminRequestsTest = RequestHandlerFixture;

TEST_F(AdminRequestsTest, CreatePartitionsRaisesTheCountOrSaysWhyNot) {
  EXPECT_EQ(create_partitions({"t", 3, std::nullopt}, /*validate_only=*/true).error_code, 0);
  EXPECT_EQ(partitions_of("t"), (std::set<int32_t>{0}));
  EXPECT_EQ(create_partitions({"t", 3, std::nullopt}).error_code, 0);
  EXPECT_EQ(partitions_of("t"), (std::set<int32_t>{0, 1, 2}));

  const auto same = create_partitions({"t", 3, std::nullopt});
  EXPECT_EQ(same.error_code, 37);  // INVALID_PARTITIONS
  EXPECT_EQ(same.error_message, "Topic already has 3 partition(s).");
  const auto fewer = create_partitions({"t", 2, std::nullopt});
  EXPECT_EQ(fewer.error_code, 37);
  EXPECT_EQ(fewer.error_message,
            "The topic t currently has 3 partition(s); 2 would not be an increase.");
  EXPECT_EQ(create_partitions({"absent", 2, std::nullopt}).error_code, 3);

  const auto elsewhere = create_partitions({"t", 4, std::vector<std::vector<int32_t>>{{5}}});
  EXPECT_EQ(elsewhere.error_code, 39);  // INVALID_REPLICA_ASSIGNMENT
  const auto short_list = create_partitions({"t", 5, std::vector<std::vector<int32_t>>{{0}}});
  EXPECT_EQ(short_list.error_code, 39);
  EXPECT_EQ(short_list.error_message,
            "Attempted to add 2 additional partition(s), but only 1 assignment(s) were specified.");
  EXPECT_EQ(partitions_of("t"), (std::set<int32_t>{0, 1, 2}));
  EXPECT_EQ(create_partitions({"t", 4, std::vector<std::vector<int32_t>>{{0}}}).error_code, 0);
  EXPECT_EQ(partitions_of("t"), (std::set<int32_t>{0, 1, 2, 3}));
}

TEST_F(AdminRequestsTest, CreatePartitionsFillsTheGapsOfATopicCreatedSparsely) {
  broker_->logs().create_partition("s", 2);
  EXPECT_EQ(create_partitions({"s", 3, std::nullopt}).error_code, 0);
  EXPECT_EQ(partitions_of("s"), (std::set<int32_t>{0, 1, 2}));
}

TEST_F(AdminRequestsTest, DescribeConfigsListsTheBrokersKeysWithSourcesAndSynonyms) {
  broker_->alter_configs({{"log.directory.select.strategy", ConfigAlteration::Op::kSet, "size"}},
                         ConfigChangeSource::kAdminApi);
  DescribeConfigsRequest request;
  request.resources.push_back(
      {resource_type::kBroker, "0",
       std::vector<std::string>{"log.directory.select.strategy", "log.level", "broker.id"}});
  request.include_synonyms = true;
  const DescribeConfigsResponse r = describe(request, 2);
  ASSERT_EQ(r.results.size(), 1u);
  EXPECT_EQ(r.results[0].error_code, 0);
  std::map<std::string, DescribeConfigsResponse::Config> by_name;
  for (const auto& c : r.results[0].configs) by_name[c.name] = c;
  ASSERT_EQ(by_name.size(), 3u);
  const auto& strategy = by_name["log.directory.select.strategy"];
  EXPECT_EQ(strategy.value, "size");
  EXPECT_EQ(strategy.config_source, config_source::kDynamicBrokerConfig);
  EXPECT_FALSE(strategy.read_only);
  ASSERT_EQ(strategy.synonyms.size(), 2u);  // the dynamic value, then the default
  EXPECT_EQ(strategy.synonyms[0].value, "size");
  EXPECT_EQ(strategy.synonyms[1].source, config_source::kDefaultConfig);
  EXPECT_EQ(strategy.synonyms[1].value, "partition");
  EXPECT_EQ(by_name["log.level"].config_source, config_source::kStaticBrokerConfig);
  EXPECT_EQ(by_name["log.level"].value, "off");
  EXPECT_TRUE(by_name["broker.id"].read_only);
  EXPECT_EQ(by_name["broker.id"].config_source, config_source::kDefaultConfig);

  // Every key without a subset, and no synonyms unless asked for.
  request.resources[0].configuration_keys.reset();
  request.include_synonyms = false;
  const DescribeConfigsResponse all = describe(request, 1);
  // All but the replica-move throttle, which Kafka defines as a dynamic-only key and lists only
  // once set.
  EXPECT_EQ(all.results.at(0).configs.size(), broker_->describe_configs().size() - 1);
  for (const auto& c : all.results[0].configs) {
    EXPECT_TRUE(c.synonyms.empty()) << c.name;
    EXPECT_NE(c.name, "replica.alter.log.dirs.io.max.bytes.per.second");
  }
  // Version 3 adds each key's type, and its documentation when asked for; 4 is 3 flexible.
  request.include_documentation = true;
  for (int16_t version : {int16_t{3}, int16_t{4}}) {
    const DescribeConfigsResponse v = describe(request, version);
    std::map<std::string, DescribeConfigsResponse::Config> by;
    for (const auto& c : v.results.at(0).configs) by[c.name] = c;
    EXPECT_EQ(by["broker.id"].config_type, config_type::kInt);
    EXPECT_EQ(by["connections.max.idle.ms"].config_type, config_type::kLong);
    EXPECT_EQ(by["cordoned.log.dirs"].config_type, config_type::kList);
    EXPECT_EQ(by["log.dirs"].config_type, config_type::kString);
    EXPECT_EQ(by["log.dir.balance.enable"].config_type, config_type::kBoolean);
    EXPECT_FALSE(by["log.dirs"].documentation.value_or("").empty());
  }
  request.include_documentation = false;
  EXPECT_FALSE(describe(request, 3).results.at(0).configs.at(0).documentation.has_value());
  // Version 0, which Kafka 4 dropped (KIP-896), is not served.
  Writer body;
  write_describe_configs_request(body, request, 0);
  Writer w;
  write_request_header(w, {32, 0, 42, std::string("c")}, 1);
  w.raw(body.bytes());
  EXPECT_EQ(handler_->handle(w.bytes()).close_reason,
            "unsupported version 0 of DescribeConfigs (this broker serves 1 to 4)");
}

TEST_F(AdminRequestsTest, DescribeConfigsRefusesOtherBrokersAndListsTheConfigsOfHostedTopics) {
  DescribeConfigsRequest request;
  request.resources = {{resource_type::kBroker, "7", std::nullopt},
                       {resource_type::kBroker, "x", std::nullopt},
                       {resource_type::kTopic, "t", std::nullopt},
                       {resource_type::kTopic, "absent", std::nullopt}};
  const DescribeConfigsResponse r = describe(request, 1);
  ASSERT_EQ(r.results.size(), 4u);
  EXPECT_EQ(r.results[0].error_code, 42);  // INVALID_REQUEST
  EXPECT_EQ(r.results[0].error_message,
            "Unexpected broker id, expected 0 or empty string, but received 7");
  EXPECT_EQ(r.results[1].error_message, "Broker id must be an integer, but it is: x");
  EXPECT_EQ(r.results[2].error_code, 0);
  EXPECT_EQ(r.results[2].configs.size(), topic_config_defaults().size());
  EXPECT_EQ(r.results[2].resource_name, "t");
  EXPECT_EQ(r.results[3].error_code, 3);  // UNKNOWN_TOPIC_OR_PARTITION
}

TEST_F(AdminRequestsTest, AlterConfigsReplacesTheDynamicSetAndSwapsTheStrategy) {
  EXPECT_EQ(alter({{"log.level", 0, std::string("warn")},
                   {"log.directory.select.strategy", 0, std::string("size")}},
                  false)
                .error_code,
            0);
  EXPECT_EQ(broker_->strategy_info().name, "size");
  EXPECT_EQ(config_of("log.level"), (std::pair<std::string, std::string>{"warn", "DYNAMIC"}));
  // A second AlterConfigs that does not name log.level takes it back to the file's value.
  EXPECT_EQ(alter({{"log.directory.select.strategy", 0, std::string("cordon")}}, false).error_code,
            0);
  EXPECT_EQ(broker_->strategy_info().name, "cordon");
  EXPECT_EQ(config_of("log.level"), (std::pair<std::string, std::string>{"off", "STATIC"}));
}

TEST_F(AdminRequestsTest, AlterConfigsValidateOnlyChecksEverythingAndChangesNothing) {
  const StrategyInfo before = broker_->strategy_info();
  EXPECT_EQ(
      alter({{"log.directory.select.strategy", 0, std::string("size")}}, false, true).error_code,
      0);
  const auto missing =
      alter({{"log.directory.select.strategy", 0, std::string("absent")}}, false, true);
  EXPECT_EQ(missing.error_code, 40);  // INVALID_CONFIG
  EXPECT_NE(missing.error_message.value_or("").find("liblds_absent.so"), std::string::npos)
      << missing.error_message.value_or("");
  const StrategyInfo after = broker_->strategy_info();
  EXPECT_EQ(after.name, before.name);
  EXPECT_EQ(after.generation, before.generation);
  EXPECT_EQ(after.swaps, before.swaps);
  // The next real swap takes the next generation number: validation used none up.
  EXPECT_EQ(alter({{"log.directory.select.strategy", 0, std::string("size")}}, true).error_code, 0);
  EXPECT_EQ(broker_->strategy_info().generation, before.generation + 1);
}

TEST_F(AdminRequestsTest, AlterationsAreRefusedWithKafkasSentences) {
  const auto fixed = alter({{"broker.id", 0, std::string("3")}}, false);
  EXPECT_EQ(fixed.error_code, 40);
  EXPECT_NE(fixed.error_message.value_or("").find("broker.id"), std::string::npos);
  const auto other = alter({{"log.level", 0, std::string("warn")}}, true, false, "3");
  EXPECT_EQ(other.error_code, 42);
  EXPECT_EQ(other.error_message, "Unexpected broker id, expected 0, but received 3");
  const auto null_value = alter({{"log.level", 0, std::nullopt}}, false);
  EXPECT_EQ(null_value.error_message, "Null value not supported for : log.level");
  const auto twice =
      alter({{"log.level", 0, std::string("warn")}, {"log.level", 1, std::nullopt}}, true);
  EXPECT_EQ(twice.error_message, "Error due to duplicate config keys");
  const auto op = alter({{"log.level", 7, std::string("warn")}}, true);
  EXPECT_EQ(op.error_code, 42);
  EXPECT_EQ(op.error_message, "Unknown operations type 7");
  const auto append = alter({{"log.level", 2, std::string("warn")}}, true);
  EXPECT_EQ(append.error_code, 40);
  EXPECT_EQ(append.error_message, "Config value append is not allowed for config key: log.level");
  EXPECT_EQ(config_of("log.level").second, "STATIC");
}

TEST_F(AdminRequestsTest, IncrementalAlterConfigsSetsDeletesAppendsAndSubtracts) {
  const std::string d1 = (dir_.path() / "d1").string();
  const std::string d2 = (dir_.path() / "d2").string();
  EXPECT_EQ(alter({{"cordoned.log.dirs", 2, d1}}, true).error_code, 0);
  EXPECT_EQ(
      alter({{"cordoned.log.dirs", 2, d2}, {"log.level", 0, std::string("warn")}}, true).error_code,
      0);
  EXPECT_EQ(config_of("cordoned.log.dirs").first, d1 + "," + d2);
  EXPECT_EQ(alter({{"cordoned.log.dirs", 3, d1}}, true).error_code, 0);
  EXPECT_EQ(broker_->config().cordoned, std::vector<std::filesystem::path>{d2});
  // Validate-only changes nothing.
  EXPECT_EQ(alter({{"cordoned.log.dirs", 1, std::nullopt}}, true, true).error_code, 0);
  EXPECT_EQ(broker_->config().cordoned.size(), 1u);
  EXPECT_EQ(alter({{"cordoned.log.dirs", 1, std::nullopt}, {"log.level", 1, std::nullopt}}, true)
                .error_code,
            0);
  EXPECT_TRUE(broker_->config().cordoned.empty());
  EXPECT_EQ(config_of("log.level").second, "STATIC");
}

TEST_F(AdminRequestsTest, AlterReplicaLogDirsMovesAndAnswersPerPartition) {
  const std::string d2 = (dir_.path() / "d2").string();
  std::string from;
  for (const LogDirDescription& d : broker_->logs().describe()) {
    for (const auto& p : d.partitions) {
      if (p.partition == "t-0") from = d.log_dir;
    }
  }
  const std::string to = from == d2 ? (dir_.path() / "d1").string() : d2;
  AlterReplicaLogDirsRequest request;
  request.dirs.push_back({to, {{"t", {0, 9}}}});
  request.dirs.push_back({"/nowhere", {{"t", {0}}}});
  Writer body;
  write_alter_replica_log_dirs_request(body, request, 1);
  const std::string reply = call(34, 1, body.bytes());
  Reader in(reply);
  const AlterReplicaLogDirsResponse r = read_alter_replica_log_dirs_response(in, 1);
  EXPECT_EQ(in.remaining(), 0u);
  ASSERT_EQ(r.results.size(), 1u);  // one entry per topic
  ASSERT_EQ(r.results[0].partitions.size(), 3u);
  EXPECT_EQ(r.results[0].partitions[0].error_code, 0);
  EXPECT_EQ(r.results[0].partitions[1].error_code, 9);   // REPLICA_NOT_AVAILABLE
  EXPECT_EQ(r.results[0].partitions[2].error_code, 57);  // LOG_DIR_NOT_FOUND
  EXPECT_EQ(broker_->logs().moves_in_progress(), 1u);
}

// Every truncation and byte flip of each of these requests is answered or closes the connection,
// never throws. CreatePartitions is validate-only, so that no flip of its count creates millions.
TEST_F(AdminRequestsTest, DamagedRequestsAreAnsweredOrCloseTheConnection) {
  std::vector<std::string> requests;
  auto add = [&](int16_t key, int16_t version, const std::string& body) {
    Writer w;
    write_request_header(w, {key, version, 42, std::string("c")},
                         request_header_version(*find_api(key), version));
    w.raw(body);
    requests.push_back(w.take());
  };
  Writer cp;
  write_create_partitions_request(
      cp, {{{"t", 3, std::vector<std::vector<int32_t>>{{0}, {0}}}}, 1000, true}, 1);
  add(37, 1, cp.bytes());
  Writer dc;
  write_describe_configs_request(
      dc, {{{resource_type::kBroker, "0", std::vector<std::string>{"log.level"}}}, true}, 2);
  add(32, 2, dc.bytes());
  Writer dc4;
  write_describe_configs_request(
      dc4, {{{resource_type::kBroker, "0", std::vector<std::string>{"log.level"}}}, true, true}, 4);
  add(32, 4, dc4.bytes());
  for (bool incremental : {false, true}) {
    const int16_t newest = incremental ? int16_t{1} : int16_t{2};
    for (int16_t version : {int16_t{0}, newest}) {
      Writer ac;
      write_alter_configs_request(
          ac, {{{resource_type::kBroker, "0", {{"log.level", 0, std::string("warn")}}}}, false},
          incremental, version);
      add(incremental ? 44 : 33, version, ac.bytes());
    }
  }
  for (int16_t version : {int16_t{1}, int16_t{2}}) {
    Writer ar;
    write_alter_replica_log_dirs_request(ar, {{{"any", {{"t", {0}}}}}}, version);
    add(34, version, ar.bytes());
  }
  Writer cp3;
  write_create_partitions_request(
      cp3, {{{"t", 3, std::vector<std::vector<int32_t>>{{0}, {0}}}}, 1000, true}, 3);
  add(37, 3, cp3.bytes());
  for (int16_t version : {int16_t{0}, int16_t{1}}) {
    AlterPartitionReassignmentsRequest apr;
    apr.topics.push_back({"t", {{0, std::vector<int32_t>{0}}, {1, std::nullopt}}});
    Writer w;
    write_alter_partition_reassignments_request(w, apr, version);
    add(45, version, w.bytes());
  }
  Writer lpr;
  write_list_partition_reassignments_request(lpr, {1000, {{{"t", {0, 1}}}}}, 0);
  add(46, 0, lpr.bytes());
  Writer dcl;
  write_describe_cluster_request(dcl, {false, endpoint_type::kBroker, true}, 2);
  add(60, 2, dcl.bytes());

  for (const std::string& req : requests) {
    for (size_t cut = 0; cut < req.size(); ++cut) {
      Reply r;
      ASSERT_NO_THROW(r = handler_->handle(std::string_view(req).substr(0, cut)));
      EXPECT_NE(r.frame.empty(), r.close_reason.empty()) << "cut at " << cut;
    }
    for (size_t i = 0; i < req.size(); ++i) {
      for (unsigned mask : {0x01u, 0x80u, 0xFFu}) {
        std::string bad = req;
        bad[i] = static_cast<char>(static_cast<unsigned char>(bad[i]) ^ mask);
        Reply r;
        ASSERT_NO_THROW(r = handler_->handle(bad));
        EXPECT_NE(r.frame.empty(), r.close_reason.empty()) << "byte " << i;
      }
    }
  }
  EXPECT_TRUE(handler_->handle(requests[1]).close_reason.empty());
}

}  // namespace
}  // namespace lds::kafka
