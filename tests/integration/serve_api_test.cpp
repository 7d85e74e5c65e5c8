// serve_api_test.cpp: the admin API of a running lds-host: the data path (create, produce,
// describe, delete), the DescribeLogDirs shape, malformed requests, and the socket's mode.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <set>
#include <span>
#include <string>
#include <vector>

#include "admin/admin_client.h"
#include "filler_log.h"
#include "io/log_layout.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

class ServeTest : public ServerFixture {};

std::set<std::string> entries_starting_with(const fs::path& dir, const std::string& prefix) {
  std::set<std::string> out;
  if (!fs::exists(dir)) return out;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().filename().string();
    if (name.rfind(prefix, 0) == 0) out.insert(name);
  }
  return out;
}

// The data path, step by step, on one topic of six partitions over three dirs.
class RoundTripTest : public ServeTest {
 protected:
  const std::string topic_ = "orders";
  std::map<int32_t, std::string> dir_of_;  // each partition's dir, as created
  std::map<int32_t, uint64_t> produced_;   // each partition's bytes, as appended

  // Creates partitions 0-5: each created, each in one of log.dirs.
  void create_six() {
    const json created = call_ok(
        {{"api", "CreatePartitions"}, {"topic", topic_}, {"partitions", {0, 1, 2, 3, 4, 5}}});
    ASSERT_EQ(created["partitions"].size(), 6u) << created.dump();
    for (const auto& p : created["partitions"]) {
      EXPECT_EQ(p["error"], "NONE") << p.dump();
      EXPECT_EQ(p["created"], true) << p.dump();
      const std::string dir = p["logDir"].get<std::string>();
      EXPECT_TRUE(std::find(config_.log_dirs.begin(), config_.log_dirs.end(), fs::path(dir)) !=
                  config_.log_dirs.end())
          << dir << " is not one of log.dirs";
      dir_of_[p["partition"].get<int32_t>()] = dir;
    }
  }

  // Two appends each, so the filler pattern must continue at the right offset.
  void produce_twice_each() {
    for (const auto& [p, dir] : dir_of_) {
      const uint64_t first = 1000u * static_cast<uint64_t>(p + 1) + 7u;
      const uint64_t second = 333u;
      EXPECT_EQ(call_ok(produce(p, first))["size"], first);
      EXPECT_EQ(call_ok(produce(p, second))["size"], first + second);
      produced_[p] = first + second;
    }
  }

  json produce(int32_t partition, uint64_t bytes) const {
    return {{"api", "Produce"}, {"topic", topic_}, {"partition", partition}, {"bytes", bytes}};
  }

  // DescribeLogDirs lists every partition where it was created, with what was appended.
  void expect_described_where_created() {
    std::map<int32_t, uint64_t> described;
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      for (const auto& p : d["partitions"]) {
        const std::string name = p["partition"].get<std::string>();
        ASSERT_EQ(name.rfind(topic_ + "-", 0), 0u) << name;
        const int32_t number = std::stoi(name.substr(topic_.size() + 1));
        described[number] = p["size"].get<uint64_t>();
        EXPECT_EQ(d["logDir"].get<std::string>(), dir_of_[number]) << name << " moved";
      }
    }
    EXPECT_EQ(described, produced_);
  }

  // Each partition's first segment holds exactly the filler pattern of what was appended.
  void expect_segments_hold_what_was_produced() {
    for (const auto& [p, bytes] : produced_) {
      const fs::path segment =
          fs::path(dir_of_[p]) / lds::layout::partition_dir(topic_, p) / "00000000000000000000.log";
      ASSERT_TRUE(fs::is_regular_file(segment)) << segment;
      EXPECT_EQ(lds::test::filler_log_problem(segment.parent_path(), topic_, p, bytes), "");
    }
  }

  // An existing replica is not an error: created:false with its directory.
  void expect_creating_again_is_no_error() {
    const json again =
        call_ok({{"api", "CreatePartitions"}, {"topic", topic_}, {"partitions", {0, 6}}});
    ASSERT_EQ(again["partitions"].size(), 2u);
    EXPECT_EQ(again["partitions"][0]["error"], "NONE");
    EXPECT_EQ(again["partitions"][0]["created"], false);
    EXPECT_EQ(again["partitions"][0]["logDir"], dir_of_[0]);
    EXPECT_EQ(again["partitions"][1]["created"], true);
  }

  // DeleteTopic removes all `count` replicas from disk and from DescribeLogDirs; a second one
  // names the topic unknown.
  void expect_deleted_everywhere(int count) {
    EXPECT_EQ(call_ok({{"api", "DeleteTopic"}, {"topic", topic_}})["deleted"], count);
    for (const auto& dir : config_.log_dirs) {
      EXPECT_TRUE(entries_starting_with(dir, topic_ + "-").empty())
          << dir << " still holds the topic";
    }
    for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
      EXPECT_TRUE(d["partitions"].empty()) << d.dump();
    }
    const json missing = call({{"api", "DeleteTopic"}, {"topic", topic_}});
    EXPECT_EQ(missing["error"], "UNKNOWN_TOPIC_OR_PARTITION") << missing.dump();
  }
};

TEST_F(RoundTripTest, CreateProduceDescribeDeleteRoundTrip) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(3)));
  ASSERT_NO_FATAL_FAILURE(create_six());
  produce_twice_each();
  ASSERT_NO_FATAL_FAILURE(expect_described_where_created());
  ASSERT_NO_FATAL_FAILURE(expect_segments_hold_what_was_produced());
  ASSERT_NO_FATAL_FAILURE(expect_creating_again_is_no_error());
  expect_deleted_everywhere(7);
}

TEST_F(ServeTest, DescribeLogDirsHasKafkaLogDirsToolShape) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "shape"}, {"partitions", {0}}});
  call_ok({{"api", "Produce"}, {"topic", "shape"}, {"partition", 0}, {"bytes", 100}});

  json r = call_ok({{"api", "DescribeLogDirs"}});
  EXPECT_EQ(r["error"], "NONE");
  EXPECT_EQ(r["message"], "");
  ASSERT_TRUE(r["version"].is_number_integer());
  EXPECT_EQ(r["version"], 1);
  ASSERT_TRUE(r["brokers"].is_array());
  ASSERT_EQ(r["brokers"].size(), 1u);
  const json& broker = r["brokers"][0];
  ASSERT_TRUE(broker["broker"].is_number_integer());
  EXPECT_EQ(broker["broker"], 0);
  ASSERT_TRUE(broker["logDirs"].is_array());
  ASSERT_EQ(broker["logDirs"].size(), 2u);
  size_t partitions = 0;
  for (const auto& d : broker["logDirs"]) {
    ASSERT_TRUE(d.is_object()) << d.dump();
    EXPECT_TRUE(d["logDir"].is_string()) << d.dump();
    EXPECT_TRUE(d.contains("error")) << d.dump();
    EXPECT_TRUE(d["error"].is_null()) << "an online dir has error null, as kafka-log-dirs.sh shows";
    EXPECT_TRUE(d["totalBytes"].is_number_unsigned()) << d.dump();
    EXPECT_TRUE(d["usableBytes"].is_number_unsigned()) << d.dump();
    EXPECT_GT(d["totalBytes"].get<uint64_t>(), 0u);
    EXPECT_LE(d["usableBytes"].get<uint64_t>(), d["totalBytes"].get<uint64_t>());
    EXPECT_TRUE(d["isCordoned"].is_boolean()) << d.dump();
    ASSERT_TRUE(d["partitions"].is_array()) << d.dump();
    for (const auto& p : d["partitions"]) {
      ++partitions;
      EXPECT_EQ(p["partition"], "shape-0") << p.dump();
      EXPECT_TRUE(p["size"].is_number_integer()) << p.dump();
      EXPECT_EQ(p["size"], 100);
      EXPECT_TRUE(p["offsetLag"].is_number_integer()) << p.dump();
      EXPECT_EQ(p["offsetLag"], 0);
      EXPECT_TRUE(p["isFuture"].is_boolean()) << p.dump();
      EXPECT_EQ(p["isFuture"], false);
    }
  }
  EXPECT_EQ(partitions, 1u);
}

TEST_F(ServeTest, MalformedLinesGetInvalidRequestAndConnectionStaysUsable) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  const std::vector<std::string> bad_lines = {
      "this is not json",
      R"({"api":)",
      "[1,2,3]",
      R"("DescribeLogDirs")",
      "{}",
      R"({"topic":"t"})",
      R"({"api":"NoSuchApi"})",
      R"({"api":42})",
      R"({"api":"CreatePartitions","topic":5,"partitions":[0]})",
      R"({"api":"CreatePartitions","topic":"t","partitions":"0"})",
      R"({"api":"CreatePartitions","topic":"t","partitions":[]})",
      R"({"api":"CreatePartitions","topic":"t","partitions":[-3]})",
      R"({"api":"CreatePartitions","topic":"t","partitions":[1.5]})",
      R"({"api":"CreatePartitions","topic":"t","partitions":[0],"expectedBytes":-1})",
      R"({"api":"Produce","topic":"t","partition":0,"bytes":"10"})",
      R"({"api":"Produce","topic":"t","partition":-1,"bytes":10})",
      R"({"api":"Produce","topic":"t","bytes":10})",
      R"({"api":"DeleteTopic"})",
      R"({"api":"IncrementalAlterConfigs","configs":{}})",
      R"({"api":"IncrementalAlterConfigs","configs":[{"name":"log.level","op":"MERGE","value":"x"}]})",
  };
  lds::AdminClient client(socket_);
  for (const auto& line : bad_lines) {
    const std::string raw = client.call(line);
    json r = json::parse(raw, nullptr, false);
    ASSERT_FALSE(r.is_discarded()) << "response to " << line << " is not JSON: " << raw;
    EXPECT_EQ(r.value("error", "?"), "INVALID_REQUEST") << line << " -> " << raw;
    EXPECT_FALSE(r.value("message", "").empty()) << line << " -> " << raw;
    // The same connection still answers a good request.
    json ok = json::parse(client.call(R"({"api":"DescribeLogDirs"})"), nullptr, false);
    EXPECT_EQ(ok.value("error", "?"), "NONE") << "after " << line;
  }
  json describe = call_ok({{"api", "DescribeLogDirs"}});
  for (const auto& d : log_dirs_of(describe)) {
    EXPECT_TRUE(d["partitions"].empty()) << "a malformed request created something: " << d.dump();
  }
}

TEST_F(ServeTest, AdminSocketHasMode0600) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(1)));
  struct stat st {};
  ASSERT_EQ(::lstat(socket_.c_str(), &st), 0) << socket_;
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u) << std::oct << (st.st_mode & 07777);
}

}  // namespace
}  // namespace lds::integration
