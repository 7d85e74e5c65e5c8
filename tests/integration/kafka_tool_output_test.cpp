// kafka_tool_output_test.cpp: lds-host's client output where scripts written for Kafka's own
// tools read it. Each expectation quotes the Kafka source it follows.
#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "server_fixture.h"
#include <lds/logdir_strategy.h>

namespace lds::integration {
namespace {

using nlohmann::ordered_json;

class KafkaToolOutputTest : public ServerFixture {};

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

std::vector<std::string> keys_of(const ordered_json& object) {
  std::vector<std::string> keys;
  for (const auto& [key, value] : object.items()) keys.push_back(key);
  return keys;
}

// `lds-host --version` names the release (the project's version in CMakeLists.txt) and the
// strategy ABI the host was built with, the one a plugin's descriptor must match in major.
TEST_F(KafkaToolOutputTest, VersionNamesTheReleaseAndTheStrategyAbi) {
  const ProcessResult r = run_host({"--version"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, std::string("lds-host ") + LDS_PROJECT_VERSION + " (strategy ABI " +
                       std::to_string(LDS_ABI_MAJOR) + "." + std::to_string(LDS_ABI_MINOR) + ")\n");
  EXPECT_EQ(r.err, "");
}

// tools/src/main/java/org/apache/kafka/tools/LogDirsCommand.java prints
//   System.out.println("Querying brokers for log directories information");
//   System.out.printf("Received log directory information from brokers %s%n", ...);
//   System.out.println(formatAsJson(...));
// We print the two progress lines on stderr, so that stdout is the JSON alone (`| jq`).
// and formatAsJson writes HashMaps with Jackson, which orders these keys as
//   {"brokers":[{"broker":0,"logDirs":[{"partitions":[{"partition":"t-0","size":0,
//    "offsetLag":0,"isFuture":false}],"error":null,"logDir":"/d"}]}],"version":1}
// with "error" the exception's class name (getClass().getName()) or null.
class DescribeJsonTest : public KafkaToolOutputTest {
 protected:
  // `describe --json`: Kafka's two progress lines on stderr, one line of JSON on stdout, with
  // Kafka's top-level keys first; its one broker's entry.
  ordered_json described_broker() {
    const ProcessResult r = run_host({"describe", "--socket", socket_.string(), "--json"});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::vector<std::string> lines = lines_of(r.out);
    EXPECT_EQ(lines.size(), 1u) << r.out;
    EXPECT_EQ(r.err,
              "Querying brokers for log directories information\n"
              "Received log directory information from brokers 0\n");
    if (lines.size() != 1) return {};
    const ordered_json doc = ordered_json::parse(lines[0]);
    const std::vector<std::string> top = keys_of(doc);
    EXPECT_GE(top.size(), 2u);
    if (top.size() >= 2) {
      EXPECT_EQ(std::vector<std::string>(top.begin(), top.begin() + 2),
                (std::vector<std::string>{"brokers", "version"}));
    }
    EXPECT_EQ(doc["version"], 1);
    EXPECT_EQ(doc["brokers"].size(), 1u);
    return doc["brokers"].empty() ? ordered_json() : doc["brokers"][0];
  }

  // One log dir's entry: Kafka's three keys, then this broker's, in the order docs/operations.md
  // lists them; each partition's keys as Kafka's; an offline dir's error and sizes as Kafka gives
  // them. Returns its partitions.
  static size_t expect_dir_as_kafka_lists_it(const ordered_json& d, bool offline) {
    EXPECT_EQ(keys_of(d),
              (std::vector<std::string>{"partitions", "error", "logDir", "errorName",
                                        "errorMessage", "directoryId", "totalBytes", "usableBytes",
                                        "reservedBytes", "isCordoned", "unreadablePartitions",
                                        "failedMoves", "projectedFillPercent"}));
    EXPECT_TRUE(d["failedMoves"].is_array()) << d.dump();
    for (const ordered_json& p : d["partitions"]) {
      EXPECT_EQ(keys_of(p),
                (std::vector<std::string>{"partition", "size", "offsetLag", "isFuture"}));
      if (p["partition"] == "t-0") {
        EXPECT_EQ(p["size"], 100);
      }
    }
    if (offline) {
      EXPECT_EQ(d["error"], "org.apache.kafka.common.errors.KafkaStorageException");
      EXPECT_EQ(d["errorName"], "KAFKA_STORAGE_ERROR");
      // DescribeLogDirs v4 (KIP-827): TotalBytes and UsableBytes are -1 for an offline dir.
      EXPECT_EQ(d["totalBytes"], -1);
      EXPECT_EQ(d["usableBytes"], -1);
    } else {
      EXPECT_TRUE(d["error"].is_null()) << d.dump();
      EXPECT_TRUE(d["errorName"].is_null()) << d.dump();
      EXPECT_GT(d["totalBytes"].get<int64_t>(), 0);
    }
    return d["partitions"].size();
  }
};

TEST_F(DescribeJsonTest, DescribeJsonIsKafkaLogDirsOutput) {
  ServerConfig c = default_config(3);
  std::ofstream(c.log_dirs[2]) << "not a directory";  // disk3 starts offline
  ASSERT_NO_FATAL_FAILURE(start(c));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0, 1}}});
  call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 100}});

  const ordered_json broker = described_broker();
  ASSERT_TRUE(broker.is_object()) << broker.dump();
  EXPECT_EQ(keys_of(broker), (std::vector<std::string>{"broker", "logDirs"}));
  EXPECT_EQ(broker["broker"], 0);
  ASSERT_EQ(broker["logDirs"].size(), 3u);
  size_t partitions = 0;
  for (const ordered_json& d : broker["logDirs"]) {
    partitions += expect_dir_as_kafka_lists_it(d, d["logDir"] == c.log_dirs[2].string());
  }
  EXPECT_EQ(partitions, 2u);
}

}  // namespace
}  // namespace lds::integration
