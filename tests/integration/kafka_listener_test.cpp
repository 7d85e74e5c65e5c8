// kafka_listener_test.cpp: the Kafka protocol listener of a running lds-host, driven by kcat and by
// requests encoded here from Kafka's message definitions: topics created through the admin API
// listed by kcat -L, ApiVersions ranges, DescribeLogDirs v5 against the admin API, pipelining, and
// connections closed one at a time for an unknown API or an oversized frame.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "kafka/protocol/api_versions.h"
#include "kafka/protocol/describe_log_dirs.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/metadata.h"
#include "kafka_listener_fixture.h"
#include "model/wire.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

TEST_F(KafkaListenerTest, ListenerAddressIsLoggedAndReportedByDescribe) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  EXPECT_NE(server_log().find("Kafka listener on " + address_), std::string::npos) << server_log();
  const ProcessResult describe =
      run_host({"describe", "--config", config_file_.string(), "--json"});
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  // stdout is the document alone.
  EXPECT_EQ(json::parse(describe.out).value("listeners", ""), "PLAINTEXT://" + address_)
      << describe.out;
}

TEST_F(KafkaListenerTest, NoListenerByDefault) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(1)));
  EXPECT_EQ(call_ok({{"api", "DescribeLogDirs"}}).value("listeners", "?"), "");
  EXPECT_EQ(server_log().find("Kafka listener on"), std::string::npos);
}

TEST_F(KafkaListenerTest, OtherSecurityProtocolsRefuseToStart) {
  ServerConfig config = default_config(1);
  config.extra_lines.push_back("listeners = \"SSL://127.0.0.1:0\"");
  write_config(config);
  const ProcessResult r = run_host({"serve", "--config", config_file_.string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("listeners: only the PLAINTEXT security protocol is supported"),
            std::string::npos)
      << r.err;
}

TEST_F(KafkaListenerTest, KcatListsTopicsAndPartitionsCreatedThroughTheAdminApi) {
  if (!on_path("kcat")) GTEST_SKIP() << "kcat is not installed (tools/install-deps.sh adds it)";
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(3)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "orders"}, {"partitions", {0, 1, 2, 3}}});
  call_ok({{"api", "CreatePartitions"}, {"topic", "audit"}, {"partitions", {0, 2}}});

  const ProcessResult r = run_command("kcat -L -J -b " + address_);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  // kcat prints a line of JSON; diagnostics (if any) come before it.
  const size_t start = r.out.find('{');
  ASSERT_NE(start, std::string::npos) << r.out;
  const json listed = json::parse(r.out.substr(start));
  ASSERT_EQ(listed["brokers"].size(), 1u) << listed.dump();
  EXPECT_EQ(listed["brokers"][0]["id"], 0);
  EXPECT_EQ(listed["brokers"][0]["name"], address_);
  std::map<std::string, std::set<int>> topics;
  for (const auto& t : listed["topics"]) {
    for (const auto& p : t["partitions"]) {
      topics[t["topic"].get<std::string>()].insert(p["partition"].get<int>());
      EXPECT_EQ(p["leader"], 0);
    }
  }
  EXPECT_EQ(topics,
            (std::map<std::string, std::set<int>>{{"audit", {0, 2}}, {"orders", {0, 1, 2, 3}}}));

  // Deleted through the admin API: gone from kcat's listing too.
  call_ok({{"api", "DeleteTopic"}, {"topic", "audit"}});
  const ProcessResult after = run_command("kcat -L -J -b " + address_);
  ASSERT_EQ(after.exit_code, 0) << after.out;
  EXPECT_EQ(after.out.find("\"audit\""), std::string::npos) << after.out;
  EXPECT_NE(after.out.find("\"orders\""), std::string::npos) << after.out;
}

TEST_F(KafkaListenerTest, ApiVersionsAdvertisesWhatIsImplementedAndAnswersNewerVersionsInV0) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  KafkaConnection c(port_);
  ASSERT_TRUE(c.connected());
  std::optional<kafka::ApiVersionsResponse> v3 = api_versions_v3(c, 7);
  ASSERT_TRUE(v3.has_value());
  EXPECT_EQ(v3->error_code, 0);
  using Api = kafka::ApiVersionsResponse::Api;
  // Apache Kafka 4.4.0's ranges, but for Produce, Fetch and ListOffsets (narrower).
  EXPECT_EQ(v3->api_keys, (std::vector<Api>{{0, 3, 8},
                                            {1, 4, 11},
                                            {2, 1, 2},
                                            {3, 0, 13},
                                            {18, 0, 5},
                                            {19, 2, 7},
                                            {20, 1, 6},
                                            {22, 0, 5},
                                            {32, 1, 4},
                                            {33, 0, 2},
                                            {34, 1, 2},
                                            {35, 1, 5},
                                            {37, 0, 3},
                                            {44, 0, 1},
                                            {45, 0, 1},
                                            {46, 0, 0},
                                            {60, 0, 2},
                                            {75, 0, 0}}));

  // ApiVersions v9: Kafka answers in the v0 layout with UNSUPPORTED_VERSION (35) and its ranges.
  ASSERT_TRUE(c.send_request(18, 9, 8, 2, std::string("\x00", 1)));
  std::optional<std::string> reply = c.read_frame();
  ASSERT_TRUE(reply.has_value());
  kafka::Reader in(*reply);
  EXPECT_EQ(kafka::read_response_header(in, 0), 8);
  const kafka::ApiVersionsResponse v0 = kafka::read_api_versions_response(in, 0);
  EXPECT_EQ(in.remaining(), 0u);
  EXPECT_EQ(v0.error_code, 35);
  EXPECT_EQ(v0.api_keys, v3->api_keys);
  // The connection stays usable.
  EXPECT_TRUE(api_versions_v3(c, 9).has_value());
}

TEST_F(KafkaListenerTest, UnknownApiKeyClosesOnlyThatConnection) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  KafkaConnection bad(port_);
  KafkaConnection good(port_);
  ASSERT_TRUE(bad.connected() && good.connected());
  ASSERT_TRUE(bad.send_request(12345, 0, 1, 1, ""));
  EXPECT_TRUE(bad.closed_by_peer());
  EXPECT_TRUE(api_versions_v3(good, 2).has_value());
  // An implemented API in a version outside its range is closed the same way.
  KafkaConnection old(port_);
  ASSERT_TRUE(old.send_request(3, 14, 1, 1, std::string(4, '\xff') + std::string(1, '\0')));
  EXPECT_TRUE(old.closed_by_peer());
  EXPECT_TRUE(api_versions_v3(good, 3).has_value());
  const std::string log = server_log();
  EXPECT_NE(log.find("unknown or unsupported API key 12345"), std::string::npos) << log;
  EXPECT_NE(log.find("unsupported version 14 of Metadata"), std::string::npos) << log;
}

// kafka-python asks FindCoordinator (key 10, not advertised: consumer groups need Apache Kafka)
// again after every close, several times a second: one line a minute for that client and reason,
// while another reason from the same client is still logged.
TEST_F(KafkaListenerTest, AClientThatAsksAgainAndAgainWritesOneLogLine) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  for (int i = 0; i < 30; ++i) {
    KafkaConnection c(port_);
    ASSERT_TRUE(c.connected());
    ASSERT_TRUE(c.send_request(10, 0, i, 1, ""));
    EXPECT_TRUE(c.closed_by_peer());
  }
  KafkaConnection other(port_);
  ASSERT_TRUE(other.send_request(11, 0, 1, 1, ""));
  EXPECT_TRUE(other.closed_by_peer());
  KafkaConnection good(port_);
  EXPECT_TRUE(api_versions_v3(good, 2).has_value());
  const std::string log = server_log();
  size_t lines = 0;
  for (size_t at = log.find("unknown or unsupported API key 10."); at != std::string::npos;
       at = log.find("unknown or unsupported API key 10.", at + 1)) {
    ++lines;
  }
  EXPECT_EQ(lines, 1u) << log;
  EXPECT_NE(log.find("unknown or unsupported API key 11."), std::string::npos) << log;
}

TEST_F(KafkaListenerTest, MalformedRequestClosesThatConnectionAndNothingElse) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  KafkaConnection bad(port_);
  // Metadata v1 whose topic array claims a million topics in four bytes.
  ASSERT_TRUE(bad.send_request(3, 1, 1, 1, std::string("\x00\x0f\x42\x40", 4)));
  EXPECT_TRUE(bad.closed_by_peer());
  KafkaConnection good(port_);
  EXPECT_TRUE(api_versions_v3(good, 1).has_value());
  EXPECT_NE(server_log().find("malformed request"), std::string::npos);
}

TEST_F(KafkaListenerTest, OversizedFrameClosesThatConnectionAndTheBrokerKeepsServing) {
  ASSERT_NO_FATAL_FAILURE(
      start_with_listener(default_config(1), "socket.request.max.bytes = 1024"));
  KafkaConnection big(port_);
  KafkaConnection bystander(port_);
  ASSERT_TRUE(big.connected() && bystander.connected());
  // Only the size is sent: the broker must judge the frame by it, not wait for 1025 bytes.
  kafka::Writer size;
  size.int32(1025);
  ASSERT_TRUE(big.send_raw(size.bytes()));
  EXPECT_TRUE(big.closed_by_peer());
  EXPECT_NE(server_log().find("Invalid receive (size = 1025 larger than 1024)"), std::string::npos)
      << server_log();
  EXPECT_TRUE(api_versions_v3(bystander, 1).has_value());
  // A request of exactly the limit is read and answered: header v2 (19 bytes) and a body whose
  // client software name fills the rest.
  kafka::Writer exact;
  kafka::write_request_header(exact, {18, 3, 5, std::string("lds-test")}, 2);
  kafka::write_api_versions_request(exact, {std::string(1000, 'n'), "1"}, 3);
  ASSERT_EQ(exact.size(), 1024u);
  KafkaConnection fits(port_);
  ASSERT_TRUE(fits.send_raw(KafkaConnection::frame(exact.bytes())));
  EXPECT_TRUE(fits.read_frame().has_value()) << server_log();
}

TEST_F(KafkaListenerTest, PipelinedRequestsAreAnsweredInOrder) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  KafkaConnection c(port_);
  std::string burst;
  for (int32_t id = 0; id < 200; ++id) {
    kafka::Writer w;
    if (id % 3 == 0) {
      kafka::write_request_header(w, {18, 3, id, std::string("p")}, 2);
      kafka::write_api_versions_request(w, {"p", "1"}, 3);
    } else if (id % 3 == 1) {
      kafka::write_request_header(w, {3, 4, id, std::string("p")}, 1);
      kafka::write_metadata_request(w, {std::vector<std::string>{"t"}, false}, 4);
    } else {
      kafka::write_request_header(w, {35, 5, id, std::string("p")}, 2);
      kafka::write_describe_log_dirs_request(w, {}, 5);
    }
    burst += KafkaConnection::frame(w.bytes());
  }
  ASSERT_TRUE(c.send_raw(burst));
  for (int32_t id = 0; id < 200; ++id) {
    std::optional<std::string> reply = c.read_frame();
    ASSERT_TRUE(reply.has_value()) << "reply " << id;
    kafka::Reader in(*reply);
    EXPECT_EQ(in.int32(), id);
  }
}

TEST_F(KafkaListenerTest, SilentClientDoesNotDelayOthers) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  // Half a frame, then silence.
  KafkaConnection silent(port_);
  kafka::Writer partial;
  partial.int32(100);
  partial.int16(18);
  ASSERT_TRUE(silent.send_raw(partial.bytes()));
  for (int i = 0; i < 20; ++i) {
    KafkaConnection c(port_);
    ASSERT_TRUE(api_versions_v3(c, i).has_value()) << i;
  }
}

TEST_F(KafkaListenerTest, MetadataNamesThisBrokerAsLeaderAndControllerAndUnknownTopics) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1, 2}}});
  // The cluster id is the one the log dirs' meta.properties hold (generated at the first start,
  // as no cluster.id is configured).
  std::ifstream meta(config_.log_dirs[0] / "meta.properties");
  std::string line, cluster_id;
  while (std::getline(meta, line)) {
    if (line.rfind("cluster.id=", 0) == 0)
      cluster_id = line.substr(std::string("cluster.id=").size());
  }
  ASSERT_EQ(cluster_id.size(), 22u) << "a Kafka Uuid";
  for (int16_t version = 0; version <= 5; ++version) {
    KafkaConnection c(port_);
    kafka::Writer body;
    kafka::write_metadata_request(body, {std::vector<std::string>{"t", "missing"}, false}, version);
    ASSERT_TRUE(c.send_request(3, version, 11, 1, body.bytes()));
    std::optional<std::string> reply = c.read_frame();
    ASSERT_TRUE(reply.has_value()) << "v" << version;
    kafka::Reader in(*reply);
    EXPECT_EQ(kafka::read_response_header(in, 0), 11);
    const kafka::MetadataResponse m = kafka::read_metadata_response(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    ASSERT_EQ(m.brokers.size(), 1u);
    EXPECT_EQ(m.brokers[0].host + ":" + std::to_string(m.brokers[0].port), address_);
    if (version >= 1) {
      EXPECT_EQ(m.controller_id, 0);
    }
    if (version >= 2) {
      EXPECT_EQ(m.cluster_id, cluster_id);
    }
    ASSERT_EQ(m.topics.size(), 2u);
    EXPECT_EQ(m.topics[0].name, "t");
    EXPECT_EQ(m.topics[0].error_code, 0);
    EXPECT_EQ(m.topics[0].partitions.size(), 3u);
    EXPECT_EQ(m.topics[1].name, "missing");
    EXPECT_EQ(m.topics[1].error_code, 3);  // UNKNOWN_TOPIC_OR_PARTITION
  }
}

// A log dir that fails while the broker runs takes its partitions' only replica offline: Metadata
// then answers them as Kafka does, without a leader, so that clients stop sending to them.
TEST_F(KafkaListenerTest, MetadataAnswersPartitionsOfAnOfflineDirWithoutALeader) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  const json created =
      call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  ASSERT_EQ(created["partitions"][0]["logDir"], config_.log_dirs[0].string()) << created.dump();
  // disk0 turns into a file: the next append there fails, and disk0 goes offline.
  fs::rename(config_.log_dirs[0], temp_ / "disk0-gone");
  std::ofstream(config_.log_dirs[0]) << "not a directory";
  EXPECT_EQ(call({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 100}})["error"],
            "KAFKA_STORAGE_ERROR");
  for (int16_t version : {int16_t{1}, int16_t{5}}) {
    KafkaConnection c(port_);
    kafka::Writer body;
    kafka::write_metadata_request(body, {std::vector<std::string>{"t"}, false}, version);
    ASSERT_TRUE(c.send_request(3, version, 12, 1, body.bytes()));
    std::optional<std::string> reply = c.read_frame();
    ASSERT_TRUE(reply.has_value()) << "v" << version;
    kafka::Reader in(*reply);
    EXPECT_EQ(kafka::read_response_header(in, 0), 12);
    const kafka::MetadataResponse m = kafka::read_metadata_response(in, version);
    EXPECT_EQ(in.remaining(), 0u);
    ASSERT_EQ(m.topics.size(), 1u);
    ASSERT_EQ(m.topics[0].partitions.size(), 2u);
    const auto& lost = m.topics[0].partitions[0];
    EXPECT_EQ(lost.error_code, 5) << "v" << version;  // LEADER_NOT_AVAILABLE
    EXPECT_EQ(lost.leader_id, -1);
    EXPECT_EQ(lost.replica_nodes, std::vector<int32_t>{0});
    EXPECT_TRUE(lost.isr_nodes.empty());
    EXPECT_EQ(lost.offline_replicas,
              version >= 5 ? std::vector<int32_t>{0} : std::vector<int32_t>{});
    const auto& kept = m.topics[0].partitions[1];
    EXPECT_EQ(kept.error_code, 0);
    EXPECT_EQ(kept.leader_id, 0);
    EXPECT_EQ(kept.isr_nodes, std::vector<int32_t>{0});
    EXPECT_TRUE(kept.offline_replicas.empty());
  }
}

TEST_F(KafkaListenerTest, DescribeLogDirsV5ShowsCordonAndTheAdminApisSizes) {
  ServerConfig config = default_config(2);
  // On tmpfs the free space changes only when this test writes, so both APIs must agree exactly.
  for (size_t i = 0; i < config.log_dirs.size(); ++i) {
    const std::string why = mount_tmpfs(config.log_dirs[i], 16 * (i + 1));
    if (!why.empty()) GTEST_SKIP() << why;
  }
  ASSERT_NO_FATAL_FAILURE(start_with_listener(config));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 1}, {"bytes", 4096}});
  call_ok({{"api", "IncrementalAlterConfigs"},
           {"configs",
            {{{"name", "cordoned.log.dirs"}, {"op", "SET"}, {"value", config.log_dirs[1]}}}}});
  const json admin = call_ok({{"api", "DescribeLogDirs"}});

  KafkaConnection c(port_);
  kafka::Writer body;
  kafka::write_describe_log_dirs_request(body, {}, 5);
  ASSERT_TRUE(c.send_request(35, 5, 3, 2, body.bytes()));
  std::optional<std::string> reply = c.read_frame();
  ASSERT_TRUE(reply.has_value());
  kafka::Reader in(*reply);
  EXPECT_EQ(kafka::read_response_header(in, 1), 3);
  const kafka::DescribeLogDirsResponse r = kafka::read_describe_log_dirs_response(in, 5);
  EXPECT_EQ(in.remaining(), 0u);
  ASSERT_EQ(r.results.size(), 2u);
  for (const auto& d : r.results) {
    const json entry = dir_entry(admin, d.log_dir);
    EXPECT_EQ(d.error_code, 0);
    EXPECT_EQ(d.is_cordoned, entry["isCordoned"].get<bool>()) << d.log_dir;
    EXPECT_EQ(d.total_bytes, entry["totalBytes"].get<int64_t>()) << d.log_dir;
    EXPECT_EQ(d.usable_bytes, entry["usableBytes"].get<int64_t>()) << d.log_dir;
    EXPECT_EQ(d.is_cordoned, fs::path(d.log_dir) == config.log_dirs[1]);
    ASSERT_EQ(d.topics.size(), 1u);
    EXPECT_EQ(d.topics[0].name, "t");
    for (const auto& p : d.topics[0].partitions) {
      EXPECT_EQ(p.partition_size, p.partition_index == 1 ? 4096 : 0);
    }
  }
}

TEST_F(KafkaTopicsTest, KafkaPythonCreatesTopicsPlacedByTheActiveStrategyAndDeletesThem) {
  if (!kafka_python_available()) {
    GTEST_SKIP() << "python3-kafka does not import under /usr/bin/python3 (tools/install-deps.sh)";
  }
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  EXPECT_EQ(admin_client(address_, "create spread 4 1")["error_code"], 0);
  // partition strategy: fewest partitions first, so two in each dir.
  EXPECT_EQ(partitions_per_dir("spread"), (std::vector<int>{2, 2}));

  // Hot-swapped to cordon with the first dir cordoned: the next creation goes to the second only.
  call_ok({{"api", "IncrementalAlterConfigs"},
           {"configs",
            {{{"name", "log.directory.select.strategy"}, {"op", "SET"}, {"value", "cordon"}},
             {{"name", "cordoned.log.dirs"}, {"op", "SET"}, {"value", config_.log_dirs[0]}}}}});
  EXPECT_EQ(admin_client(address_, "create fenced 3 1")["error_code"], 0);
  EXPECT_EQ(partitions_per_dir("fenced"), (std::vector<int>{0, 3}));

  EXPECT_EQ(admin_client(address_, "create spread 1 1")["error_code"], 36);  // exists
  const json rf = admin_client(address_, "create wide 1 3");
  EXPECT_EQ(rf["error_code"], 38) << rf.dump();  // INVALID_REPLICATION_FACTOR
  EXPECT_NE(rf["message"].get<std::string>().find("only 1 broker(s) are registered"),
            std::string::npos);
  EXPECT_EQ(admin_client(address_, "create elsewhere -1 -1 assign=5")["error_code"], 39);
  EXPECT_EQ(admin_client(address_, "create dry 2 1 validate")["error_code"], 0);
  EXPECT_EQ(partitions_per_dir("dry"), (std::vector<int>{0, 0}));
  EXPECT_EQ(partitions_per_dir("wide"), (std::vector<int>{0, 0}));

  EXPECT_EQ(admin_client(address_, "delete spread")["error_code"], 0);
  EXPECT_EQ(partitions_per_dir("spread"), (std::vector<int>{0, 0}));
  EXPECT_EQ(partitions_per_dir("fenced"), (std::vector<int>{0, 3}));
  EXPECT_EQ(admin_client(address_, "delete spread")["error_code"],
            3);  // UNKNOWN_TOPIC_OR_PARTITION
}

TEST_F(KafkaTopicsTest, ConfluentKafkaAdminClientCreatesListsAndDeletes) {
  if (run_command("/usr/bin/python3 -c 'import confluent_kafka'").exit_code != 0) {
    GTEST_SKIP() << "python3-confluent-kafka does not import under /usr/bin/python3 "
                    "(tools/install-deps.sh)";
  }
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  // librdkafka's own CreateTopics and DeleteTopics versions, then its Metadata.
  const std::string script =
      "from confluent_kafka.admin import AdminClient, NewTopic\n"
      "a = AdminClient({'bootstrap.servers': '" +
      address_ +
      "'})\n"
      "for t, f in a.create_topics([NewTopic('cf', 4, 1)]).items(): f.result()\n"
      "print('listed', sorted(a.list_topics(timeout=10).topics))\n"
      "for t, f in a.delete_topics(['cf']).items(): f.result()\n"
      "print('after', sorted(a.list_topics(timeout=10).topics))\n";
  const fs::path file = temp_ / "confluent_admin.py";
  std::ofstream(file) << script;
  call_ok({{"api", "CreatePartitions"}, {"topic", "kept"}, {"partitions", {0}}});
  const ProcessResult r = run_command("/usr/bin/python3 " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("listed ['cf', 'kept']"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("after ['kept']"), std::string::npos) << r.out;
}

TEST_F(KafkaListenerTest, PortInUseRefusesToStartNamingTheListener) {
  // Hold a port, then ask the broker for the same one.
  const int holder = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::bind(holder, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
  ASSERT_EQ(::listen(holder, 1), 0);
  socklen_t len = sizeof addr;
  ::getsockname(holder, reinterpret_cast<sockaddr*>(&addr), &len);
  const int port = ntohs(addr.sin_port);
  ServerConfig config = default_config(1);
  config.extra_lines.push_back("listeners = \"PLAINTEXT://127.0.0.1:" + std::to_string(port) +
                               "\"");
  write_config(config);
  const ProcessResult r = run_host({"serve", "--config", config_file_.string()}, 30);
  ::close(holder);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("Cannot listen on listeners PLAINTEXT://127.0.0.1:" + std::to_string(port) +
                       ": Address already in use."),
            std::string::npos)
      << r.err;
}

}  // namespace
}  // namespace lds::integration
