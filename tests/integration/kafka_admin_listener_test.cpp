// kafka_admin_listener_test.cpp: the admin side of the Kafka listener on a running lds-host, driven
// by unmodified clients: kafka-python's KafkaAdminClient creating partitions and reading and
// changing configs (a strategy hot swap placing the next topic), confluent-kafka's AdminClient,
// replica moves sent by kafka-python with the request classes of kafka_requests.py, a
// DescribeLogDirs v5 whose bytes this test writes and reads itself, and topic names that collide
// ('.' against '_') refused on both the Kafka listener and the admin socket.
#include <fstream>
#include <string>
#include <vector>

#include "kafka_listener_fixture.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

// The broker's own DescribeConfigs row of `name` through the admin API.
json admin_config(const json& described, const std::string& name) {
  for (const auto& c : described["configs"]) {
    if (c["name"] == name) return c;
  }
  return json();
}

// kafka-python's KafkaAdminClient against a broker on two dirs, step by step.
class KafkaPythonAdminTest : public KafkaTopicsTest {
 protected:
  // CreateTopics and CreatePartitions with Kafka's error codes and sentence; topic t ends with
  // four partitions, two in each dir.
  void expect_partitions_answered_as_kafka() {
    EXPECT_EQ(admin_client(address_, "create t 2 1")["error_code"], 0);
    EXPECT_EQ(admin_client(address_, "partitions t 4")["error_code"], 0);
    EXPECT_EQ(partitions_per_dir("t"), (std::vector<int>{2, 2}));  // partition: fewest first
    const json same = admin_client(address_, "partitions t 4");
    EXPECT_EQ(same["error_code"], 37) << same.dump();  // INVALID_PARTITIONS
    EXPECT_NE(same["message"].get<std::string>().find("Topic already has 4 partition(s)."),
              std::string::npos)
        << same.dump();
    EXPECT_EQ(admin_client(address_, "partitions absent 2")["error_code"], 3);
    EXPECT_EQ(admin_client(address_, "partitions t 5 assign=3")["error_code"], 39);
    EXPECT_EQ(admin_client(address_, "partitions t 6 validate")["error_code"], 0);
    EXPECT_EQ(partitions_per_dir("t"), (std::vector<int>{2, 2}));
  }

  // DescribeConfigs: every key the admin API lists, with its value, source and read-only flag,
  // but the replica-move throttle while unset (Kafka lists that dynamic-only key once set).
  void expect_configs_described_as_the_admin_api_lists_them() {
    const json admin = call_ok({{"api", "DescribeConfigs"}});
    const json described = admin_client(address_, "describe-configs 0");
    ASSERT_EQ(described["error_code"], 0) << described.dump();
    const json& configs = described["configs"];
    EXPECT_EQ(configs.size() + 1, admin["configs"].size()) << described.dump();
    EXPECT_FALSE(configs.contains("replica.alter.log.dirs.io.max.bytes.per.second"));
    EXPECT_EQ(configs["log.directory.select.strategy"]["value"], "partition");
    EXPECT_EQ(configs["log.directory.select.strategy"]["source"], 4);  // STATIC_BROKER_CONFIG
    EXPECT_EQ(configs["log.directory.select.strategy"]["read_only"], false);
    EXPECT_EQ(configs["broker.id"]["read_only"], true);
    EXPECT_EQ(configs["broker.id"]["source"], 4);  // STATIC_BROKER_CONFIG: the fixture writes it
    EXPECT_EQ(configs["admin.max.connections"]["value"], "64");
    EXPECT_EQ(configs["admin.max.connections"]["source"], 5);  // DEFAULT_CONFIG
    EXPECT_EQ(configs["log.dirs"]["value"], admin_config(admin, "log.dirs")["value"]);
    EXPECT_EQ(configs["message.max.bytes"]["value"], "1048588");  // Kafka's default
    EXPECT_EQ(configs["message.max.bytes"]["source"], 5);         // DEFAULT_CONFIG
    EXPECT_EQ(configs["message.max.bytes"]["read_only"], false);
    const json one = admin_client(address_, "describe-configs 0 log.level");
    EXPECT_EQ(one["configs"].size(), 1u) << one.dump();
  }

  // AlterConfigs swaps to cordon with the first dir cordoned: the next topic goes to the second.
  void expect_alter_configs_swaps_to_cordon() {
    const std::string cordon =
        "log.directory.select.strategy=cordon cordoned.log.dirs=" + config_.log_dirs[0].string();
    EXPECT_EQ(admin_client(address_, "alter-configs 0 " + cordon)["error_code"], 0);
    EXPECT_EQ(call_ok({{"api", "DescribeLogDirs"}})["strategy"]["name"], "cordon");
    EXPECT_EQ(admin_client(address_, "create after 3 1")["error_code"], 0);
    EXPECT_EQ(partitions_per_dir("after"), (std::vector<int>{0, 3}));
    const json swapped = admin_client(address_, "describe-configs 0 log.directory.select.strategy");
    EXPECT_EQ(swapped["configs"]["log.directory.select.strategy"]["value"], "cordon");
    EXPECT_EQ(swapped["configs"]["log.directory.select.strategy"]["source"], 2);  // DYNAMIC
  }

  // A strategy that does not load is refused with the reason, and cordon keeps serving.
  void expect_a_strategy_that_does_not_load_refused() {
    const json bad = admin_client(address_, "alter-configs 0 log.directory.select.strategy=absent");
    EXPECT_EQ(bad["error_code"], 40) << bad.dump();  // INVALID_CONFIG
    EXPECT_NE(bad["message"].get<std::string>().find("liblds_absent.so"), std::string::npos)
        << bad.dump();
    EXPECT_EQ(call_ok({{"api", "DescribeLogDirs"}})["strategy"]["name"], "cordon");
  }

  // AlterConfigs replaces the dynamic set: naming nothing takes back the file's values.
  void expect_an_empty_alter_restores_the_file() {
    EXPECT_EQ(admin_client(address_, "alter-configs 0")["error_code"], 0);
    const json after = call_ok({{"api", "DescribeLogDirs"}});
    EXPECT_EQ(after["strategy"]["name"], "partition");
    EXPECT_EQ(dir_entry(after, config_.log_dirs[0])["isCordoned"], false);
  }
};

TEST_F(KafkaPythonAdminTest, CreatesPartitionsAndAltersConfigsThatHotSwapTheStrategy) {
  if (!kafka_python_available()) {
    GTEST_SKIP() << "python3-kafka does not import under /usr/bin/python3 (tools/install-deps.sh)";
  }
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  expect_partitions_answered_as_kafka();
  ASSERT_NO_FATAL_FAILURE(expect_configs_described_as_the_admin_api_lists_them());
  expect_alter_configs_swaps_to_cordon();
  expect_a_strategy_that_does_not_load_refused();
  expect_an_empty_alter_restores_the_file();
  EXPECT_EQ(admin_client(address_, "delete t")["error_code"], 0);
  EXPECT_EQ(partitions_per_dir("t"), (std::vector<int>{0, 0}));
  EXPECT_EQ(partitions_per_dir("after"), (std::vector<int>{0, 3}));
}

TEST_F(KafkaTopicsTest, ConfluentKafkaAdminClientDescribesTheBrokersConfigs) {
  if (run_command("/usr/bin/python3 -c 'import confluent_kafka'").exit_code != 0) {
    GTEST_SKIP() << "python3-confluent-kafka does not import under /usr/bin/python3 "
                    "(tools/install-deps.sh)";
  }
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  call_ok({{"api", "IncrementalAlterConfigs"},
           {"configs", {{{"name", "log.level"}, {"op", "SET"}, {"value", "debug"}}}}});
  // librdkafka's own CreateTopics, DescribeConfigs and DeleteTopics versions.
  const std::string script =
      "from confluent_kafka.admin import AdminClient, NewTopic, ConfigResource\n"
      "a = AdminClient({'bootstrap.servers': '" +
      address_ +
      "'})\n"
      "for t, f in a.create_topics([NewTopic('cf', 3, 1)]).items(): f.result()\n"
      "print('listed', sorted(a.list_topics(timeout=10).topics))\n"
      "for r, f in a.describe_configs([ConfigResource('broker', '0')]).items():\n"
      "  c = f.result()\n"
      "  for k in ('log.level', 'log.directory.select.strategy', 'admin.max.connections'):\n"
      "    print('config', k, c[k].value, c[k].source, c[k].is_read_only)\n"
      "for t, f in a.delete_topics(['cf']).items(): f.result()\n"
      "print('after', sorted(a.list_topics(timeout=10).topics))\n";
  const fs::path file = temp_ / "confluent_configs.py";
  std::ofstream(file) << script;
  const ProcessResult r = run_command("/usr/bin/python3 " + file.string());
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("listed ['cf']"), std::string::npos) << r.out;
  // confluent-kafka's ConfigSource numbers are Kafka's: 2 dynamic, 4 static, 5 default.
  EXPECT_NE(r.out.find("config log.level debug 2 False"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("config log.directory.select.strategy partition 4 False"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("config admin.max.connections 64 5 True"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("after []"), std::string::npos) << r.out;
  EXPECT_EQ(partitions_per_dir("cf"), (std::vector<int>{0, 0}));
}

TEST_F(KafkaTopicsTest, KafkaPythonMovesAReplicaWithAlterReplicaLogDirs) {
  if (!kafka_python_available()) {
    GTEST_SKIP() << "python3-kafka does not import under /usr/bin/python3 (tools/install-deps.sh)";
  }
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "m"}, {"partitions", {0}}});
  call_ok({{"api", "Produce"}, {"topic", "m"}, {"partition", 0}, {"bytes", 1 << 20}});
  const std::vector<int> before = partitions_per_dir("m");
  const fs::path to = before[0] == 1 ? config_.log_dirs[1] : config_.log_dirs[0];

  const json moved = admin_client(address_, "move m 0 " + to.string());
  EXPECT_EQ(moved["error_code"], 0) << moved.dump();
  EXPECT_EQ(moved["log_dirs"], json::array({json::array({to.string(), false})})) << moved.dump();
  const json entry = dir_entry(call_ok({{"api", "DescribeLogDirs"}}), to);
  ASSERT_EQ(entry["partitions"].size(), 1u) << entry.dump();
  EXPECT_EQ(entry["partitions"][0]["size"], 1 << 20);

  EXPECT_EQ(admin_client(address_, "move m 0 " + (temp_ / "elsewhere").string())["error_code"],
            57);  // LOG_DIR_NOT_FOUND
  EXPECT_EQ(admin_client(address_, "move m 7 " + to.string())["error_code"],
            9);  // REPLICA_NOT_AVAILABLE
}

// --- DescribeLogDirs v5 and IncrementalAlterConfigs v0, bytes written and read here -----------

// Big-endian and KIP-482 compact encodings, written out by hand so that this test does not use the
// host's encoder.
struct Bytes {
  std::string b;
  Bytes& i8(int v) {
    b.push_back(static_cast<char>(v));
    return *this;
  }
  Bytes& i16(int v) { return i8(v >> 8).i8(v); }
  Bytes& i32(int32_t v) { return i16(v >> 16).i16(v & 0xffff); }
  Bytes& str(const std::string& s) {
    i16(static_cast<int>(s.size()));
    b += s;
    return *this;
  }
};

struct Cursor {
  const std::string& b;
  size_t pos = 0;
  uint64_t be(int n) {
    uint64_t v = 0;
    for (int i = 0; i < n; ++i) v = (v << 8) | static_cast<unsigned char>(b.at(pos++));
    return v;
  }
  uint64_t uvarint() {
    uint64_t v = 0;
    for (int shift = 0;; shift += 7) {
      const auto c = static_cast<unsigned char>(b.at(pos++));
      v |= static_cast<uint64_t>(c & 0x7f) << shift;
      if ((c & 0x80) == 0) return v;
    }
  }
  std::string compact_string() {
    const uint64_t n = uvarint() - 1;
    std::string s = b.substr(pos, n);
    pos += n;
    return s;
  }
  void no_tags() { EXPECT_EQ(uvarint(), 0u) << "tagged fields at " << pos; }
};

// One directory of a DescribeLogDirs v5 answer, its partitions checked on the way.
struct DescribedDir {
  std::string dir;
  int64_t total_bytes = 0;
  int64_t usable_bytes = 0;
  bool cordoned = false;
};

class DescribeLogDirsV5Test : public KafkaListenerTest {
 protected:
  // IncrementalAlterConfigsRequest.json v0 (request header v1): BROKER (4) "0", one config
  // cordoned.log.dirs APPEND (2) `dir`, validateOnly false; its response, checked.
  static void append_cordon(KafkaConnection& c, const std::string& dir) {
    Bytes alter;
    alter.i16(44).i16(0).i32(5).str("lds-test");
    alter.i32(1).i8(4).str("0").i32(1).str("cordoned.log.dirs").i8(2).str(dir).i8(0);
    ASSERT_TRUE(c.send_raw(KafkaConnection::frame(alter.b)));
    const std::optional<std::string> altered = c.read_frame();
    ASSERT_TRUE(altered.has_value());
    // IncrementalAlterConfigsResponse.json v0: correlation 5, throttle 0, one response: no
    // error, null message, BROKER "0".
    EXPECT_EQ(*altered, (Bytes{}.i32(5).i32(0).i32(1).i16(0).i16(-1).i8(4).str("0").b));
  }

  // DescribeLogDirsRequest.json v5 (flexible; request header v2 with an empty tag section):
  // Topics null (compact length 0), no tags. The response's bytes.
  static std::string describe_v5(KafkaConnection& c) {
    Bytes describe;
    describe.i16(35).i16(5).i32(6).str("lds-test").i8(0);
    describe.i8(0).i8(0);
    EXPECT_TRUE(c.send_raw(KafkaConnection::frame(describe.b)));
    return c.read_frame().value_or("");
  }

  // DescribeLogDirsResponse.json v5 after response header v1 (correlation id, no tags), read to
  // its last byte: each directory, every partition of topic t in it empty and no future.
  static std::vector<DescribedDir> read_v5(const std::string& reply) {
    std::vector<DescribedDir> out;
    Cursor in{reply};
    EXPECT_EQ(in.be(4), 6u);
    in.no_tags();
    EXPECT_EQ(in.be(4), 0u);  // ThrottleTimeMs
    EXPECT_EQ(in.be(2), 0u);  // ErrorCode (v3+)
    const uint64_t results = in.uvarint() - 1;
    for (uint64_t i = 0; i < results; ++i) {
      EXPECT_EQ(in.be(2), 0u);  // ErrorCode
      DescribedDir d;
      d.dir = in.compact_string();
      const uint64_t topics = in.uvarint() - 1;
      for (uint64_t t = 0; t < topics; ++t) {
        EXPECT_EQ(in.compact_string(), "t");
        const uint64_t partitions = in.uvarint() - 1;
        for (uint64_t p = 0; p < partitions; ++p) {
          in.be(4);                 // PartitionIndex
          EXPECT_EQ(in.be(8), 0u);  // PartitionSize
          in.be(8);                 // OffsetLag
          EXPECT_EQ(in.be(1), 0u);  // IsFutureKey
          in.no_tags();
        }
        in.no_tags();
      }
      d.total_bytes = static_cast<int64_t>(in.be(8));
      d.usable_bytes = static_cast<int64_t>(in.be(8));
      d.cordoned = in.be(1) != 0;  // IsCordoned (v5)
      in.no_tags();
      out.push_back(d);
    }
    in.no_tags();
    EXPECT_EQ(in.pos, reply.size());
    return out;
  }
};

TEST_F(DescribeLogDirsV5Test, ShowsADirCordonedThroughIncrementalAlterConfigs) {
  ServerConfig config = default_config(2);
  // On tmpfs the free space changes only when this test writes, so both APIs must agree exactly.
  for (size_t i = 0; i < config.log_dirs.size(); ++i) {
    const std::string why = mount_tmpfs(config.log_dirs[i], 16 * (i + 1));
    if (!why.empty()) GTEST_SKIP() << why;
  }
  ASSERT_NO_FATAL_FAILURE(start_with_listener(config));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  const std::string cordoned = config.log_dirs[1].string();
  KafkaConnection c(port_);
  ASSERT_NO_FATAL_FAILURE(append_cordon(c, cordoned));

  const json admin = call_ok({{"api", "DescribeLogDirs"}});
  const std::string reply = describe_v5(c);
  ASSERT_FALSE(reply.empty());
  const std::vector<DescribedDir> described = read_v5(reply);
  ASSERT_EQ(described.size(), 2u);
  for (const DescribedDir& d : described) {
    const json entry = dir_entry(admin, d.dir);
    EXPECT_EQ(d.total_bytes, entry["totalBytes"].get<int64_t>()) << d.dir;
    EXPECT_EQ(d.usable_bytes, entry["usableBytes"].get<int64_t>()) << d.dir;
    EXPECT_EQ(d.cordoned, d.dir == cordoned) << d.dir;
    EXPECT_EQ(d.cordoned, entry["isCordoned"].get<bool>()) << d.dir;
  }
}

TEST_F(KafkaListenerTest, AChangeThroughIncrementalAlterConfigsIsLoggedWithItsSource) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  // IncrementalAlterConfigsRequest.json v0: BROKER (4) "0", log.partition.expected.bytes SET (0)
  // 2048, validateOnly false.
  KafkaConnection c(port_);
  Bytes alter;
  alter.i16(44).i16(0).i32(7).str("lds-test");
  alter.i32(1).i8(4).str("0").i32(1).str("log.partition.expected.bytes").i8(0).str("2048").i8(0);
  ASSERT_TRUE(c.send_raw(KafkaConnection::frame(alter.b)));
  const std::optional<std::string> altered = c.read_frame();
  ASSERT_TRUE(altered.has_value());
  EXPECT_EQ(*altered, (Bytes{}.i32(7).i32(0).i32(1).i16(0).i16(-1).i8(4).str("0").b));
  const std::string log = server_log();
  const size_t at = log.find(
      " info  [lds.broker] log.partition.expected.bytes: 0 → 2048 (Kafka "
      "IncrementalAlterConfigs)\n");
  EXPECT_NE(at, std::string::npos) << log;
}

// Kafka refuses a topic whose name differs from an existing one's only in '.' against '_' (their
// metric names would be the same), with its controller's sentence; so do both ways of creating a
// topic here.
TEST_F(KafkaTopicsTest, ATopicWhoseNameCollidesWithAnExistingOneIsRefused) {
  if (!kafka_python_available()) {
    GTEST_SKIP() << "python3-kafka does not import under /usr/bin/python3 (tools/install-deps.sh)";
  }
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(2)));
  EXPECT_EQ(admin_client(address_, "create a.b 1 1")["error_code"], 0);
  const json refused = admin_client(address_, "create a_b 1 1");
  EXPECT_EQ(refused["error_code"], 17) << refused.dump();  // INVALID_TOPIC_EXCEPTION
  EXPECT_NE(
      refused["message"].get<std::string>().find("Topic 'a_b' collides with existing topic: a.b"),
      std::string::npos)
      << refused.dump();
  const json by_socket = call({{"api", "CreatePartitions"}, {"topic", "a_b"}, {"partitions", {0}}});
  EXPECT_EQ(by_socket["partitions"][0]["error"], "INVALID_TOPIC_EXCEPTION") << by_socket.dump();
  EXPECT_EQ(by_socket["partitions"][0]["message"], "Topic 'a_b' collides with existing topic: a.b");
  EXPECT_EQ(partitions_per_dir("a_b"), (std::vector<int>{0, 0}));
  // More partitions of the existing topic, and names without '.' or '_', are fine.
  EXPECT_EQ(admin_client(address_, "partitions a.b 2")["error_code"], 0);
  EXPECT_EQ(admin_client(address_, "create a-b 1 1")["error_code"], 0);
  EXPECT_EQ(partitions_per_dir("a.b"), (std::vector<int>{1, 1}));
}

// DescribeConfigs of a TOPIC lists every topic config Kafka lists: Kafka's defaults, and the value
// of the broker key a topic config follows with that key's source (this broker keeps no topic
// overrides); a topic it does not host gets UNKNOWN_TOPIC_OR_PARTITION.
TEST_F(KafkaTopicsTest, DescribeConfigsOfATopicListsEveryTopicConfigWithItsSource) {
  if (!kafka_python_available()) {
    GTEST_SKIP() << "python3-kafka does not import under /usr/bin/python3 (tools/install-deps.sh)";
  }
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  EXPECT_EQ(admin_client(address_, "create t 1 1")["error_code"], 0);
  EXPECT_EQ(admin_client(address_, "alter-configs 0 message.max.bytes=2000000")["error_code"], 0);
  const json described = admin_client(address_, "describe-topic-configs t");
  ASSERT_EQ(described["error_code"], 0) << described.dump();
  const json& configs = described["configs"];
  EXPECT_EQ(configs.size(), 33u) << described.dump();
  auto expect = [&](const std::string& name, const std::string& value, int source) {
    EXPECT_EQ(configs[name]["value"], value) << name;
    EXPECT_EQ(configs[name]["source"], source) << name;
    EXPECT_EQ(configs[name]["read_only"], false) << name;
  };
  expect("cleanup.policy", "delete", 5);  // DEFAULT_CONFIG
  expect("retention.ms", "604800000", 5);
  expect("retention.bytes", "-1", 5);
  expect("segment.bytes", "1073741824", 5);
  expect("max.message.bytes", "2000000", 2);  // DYNAMIC_BROKER_CONFIG: message.max.bytes
  EXPECT_EQ(configs["max.message.bytes"]["synonyms"][0], json::array({"2000000", 2}));
  const json one = admin_client(address_, "describe-topic-configs t segment.bytes");
  EXPECT_EQ(one["configs"].size(), 1u) << one.dump();
  EXPECT_EQ(admin_client(address_, "describe-topic-configs absent")["error_code"], 3);
}

}  // namespace
}  // namespace lds::integration
