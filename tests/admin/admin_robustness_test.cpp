// admin_robustness_test.cpp: the admin server of a real `lds-host serve` under bad input and load:
// oversized lines, invalid UTF-8, wrong types, bad numbers and topic names, unknown APIs, 64
// concurrent clients for 30 seconds; and the folder its socket may live in.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "reliability_support.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

using Clock = std::chrono::steady_clock;

class AdminRobustnessTest : public ServerFixture {};

constexpr size_t kMaxLine = 1 << 20;
const char* const kTooLong = "The request line is longer than 1048576 bytes.";
const char* const kNotJson = "The request is not valid JSON.";

struct BadLine {
  std::string name;
  std::string line;     // sent as is, then a newline
  std::string error;    // the Kafka error name expected
  std::string message;  // the exact message expected
};

std::vector<BadLine> bad_lines() {
  const std::string pad(kMaxLine, 'x');
  return {
      {"a line one byte over 1 MiB", std::string(kMaxLine + 1, ' '), "INVALID_REQUEST", kTooLong},
      {"a 3 MiB line", R"({"api":"DescribeLogDirs","pad":")" + pad + pad + pad + R"("})",
       "INVALID_REQUEST", kTooLong},
      {"invalid UTF-8 in a value", "{\"api\":\"\xff\xfe\"}", "INVALID_REQUEST", kNotJson},
      {"invalid UTF-8 in a key", "{\"\xc3\x28\":1,\"api\":\"DescribeLogDirs\"}", "INVALID_REQUEST",
       kNotJson},
      {"an overlong UTF-8 encoding", "{\"api\":\"\xc0\xaf\"}", "INVALID_REQUEST", kNotJson},
      {"a raw NUL byte", std::string("{\"api\":\"Describe\0LogDirs\"}", 27), "INVALID_REQUEST",
       kNotJson},
      {"a lone surrogate escape", R"({"api":"\udc00"})", "INVALID_REQUEST", kNotJson},
      {"api is a number", R"({"api":42})", "INVALID_REQUEST", "Field 'api' must be a string."},
      {"topic is a number", R"({"api":"CreatePartitions","topic":5,"partitions":[0]})",
       "INVALID_REQUEST", "Field 'topic' must be a string."},
      {"partitions is a string", R"({"api":"CreatePartitions","topic":"t","partitions":"0"})",
       "INVALID_REQUEST", "Field 'partitions' must be a non-empty array of partition numbers."},
      {"bytes is a string", R"({"api":"Produce","topic":"t","partition":0,"bytes":"10"})",
       "INVALID_REQUEST", "Field 'bytes' must be a non-negative integer."},
      {"bytes is negative", R"({"api":"Produce","topic":"t","partition":0,"bytes":-1})",
       "INVALID_REQUEST", "Field 'bytes' must be a non-negative integer."},
      {"dirs is an object", R"({"api":"AlterReplicaLogDirs","dirs":{}})", "INVALID_REQUEST",
       "Field 'dirs' must be an array."},
      {"configs is an object", R"({"api":"IncrementalAlterConfigs","configs":{}})",
       "INVALID_REQUEST", "Field 'configs' must be an array."},
      {"a negative partition", R"({"api":"Produce","topic":"t","partition":-1,"bytes":1})",
       "INVALID_REQUEST",
       "Field 'partition' must be a partition number from 0 to 2147483647, not -1."},
      {"a partition past int32",
       R"({"api":"Produce","topic":"t","partition":2147483648,"bytes":1})", "INVALID_REQUEST",
       "Field 'partition' must be a partition number from 0 to 2147483647, not 2147483648."},
      {"a partition past uint64",
       R"({"api":"CreatePartitions","topic":"t","partitions":[18446744073709551616]})",
       "INVALID_REQUEST", "Field 'partitions' must be an integer partition number."},
      {"a partition of 1e30", R"({"api":"Produce","topic":"t","partition":1e30,"bytes":1})",
       "INVALID_REQUEST", "Field 'partition' must be an integer partition number."},
      {"a negative partition to create",
       R"({"api":"CreatePartitions","topic":"t","partitions":[-3]})", "INVALID_REQUEST",
       "Field 'partitions' must be a partition number from 0 to 2147483647, not -3."},
      {"an unknown api", R"({"api":"DeleteEverything"})", "INVALID_REQUEST",
       "Unknown api 'DeleteEverything'; expected DescribeLogDirs, CreatePartitions, "
       "DescribePlacement, ExplainPlacement, "
       "DeleteTopic, Produce, AlterReplicaLogDirs, IncrementalAlterConfigs, DescribeConfigs, "
       "DescribeBalance, "
       "Balance or DrainLogDir."},
      {"a lower-case api", R"({"api":"describelogdirs"})", "INVALID_REQUEST",
       "Unknown api 'describelogdirs'; expected DescribeLogDirs, CreatePartitions, "
       "DescribePlacement, ExplainPlacement, "
       "DeleteTopic, Produce, AlterReplicaLogDirs, IncrementalAlterConfigs, DescribeConfigs, "
       "DescribeBalance, "
       "Balance or DrainLogDir."},
      {"arrays nested 500,000 deep", std::string(500000, '[') + std::string(500000, ']'),
       "INVALID_REQUEST", "The request must be a JSON object."},
      {"a topic nested 400,000 deep",
       R"({"api":"Produce","partition":0,"bytes":1,"topic":)" + std::string(400000, '[') +
           std::string(400000, ']') + "}",
       "INVALID_REQUEST", "Field 'topic' must be a string."},
      {"an unterminated nesting", std::string(kMaxLine, '{'), "INVALID_REQUEST", kNotJson},
  };
}

void expect_alive(RawClient& client, const std::string& after) {
  nlohmann::json ok = client.call(R"({"api":"DescribeLogDirs"})");
  EXPECT_EQ(ok.value("error", "?"), "NONE") << "the connection stopped answering after " << after;
}

TEST_F(AdminRobustnessTest, EachBadLineGetsItsKafkaErrorAndOneSentenceOnALiveConnection) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});
  RawClient client(socket_);
  for (const BadLine& bad : bad_lines()) {
    SCOPED_TRACE(bad.name);
    nlohmann::json r = client.call(bad.line);
    EXPECT_EQ(r.value("error", "?"), bad.error) << r.dump().substr(0, 500);
    EXPECT_EQ(r.value("message", "?"), bad.message);
    EXPECT_TRUE(client.pending().empty()) << "more than one response to one line";
    expect_alive(client, bad.name);
  }
  // Nothing any of them asked for happened.
  nlohmann::json describe = call_ok({{"api", "DescribeLogDirs"}});
  size_t partitions = 0;
  for (const auto& d : log_dirs_of(describe)) {
    for (const auto& p : d["partitions"]) {
      ++partitions;
      EXPECT_EQ(p["size"], 0) << p.dump();
    }
  }
  EXPECT_EQ(partitions, 1u);
  ASSERT_NO_FATAL_FAILURE(stop());  // exit status 0: the server never crashed
}

TEST_F(AdminRobustnessTest, LinesAtTheLimitAndFramingEdgesAreHandled) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(1)));
  RawClient client(socket_);
  // Exactly 1 MiB is still a request.
  std::string at_limit = R"({"api":"DescribeLogDirs"})";
  at_limit.resize(kMaxLine, ' ');
  EXPECT_EQ(client.call(at_limit).value("error", "?"), "NONE");
  // Blank lines get no answer; CRLF is a line end; pipelined requests are answered in order.
  ASSERT_TRUE(client.send("\n  \t\n\r\n"));
  ASSERT_TRUE(client.send("{\"api\":\"DescribeConfigs\"}\r\n{\"api\":\"Nope\"}\n"));
  nlohmann::json first = nlohmann::json::parse(client.read_line().value_or("{}"));
  nlohmann::json second = nlohmann::json::parse(client.read_line().value_or("{}"));
  EXPECT_TRUE(first.contains("configs")) << first.dump();
  EXPECT_EQ(second.value("error", "?"), "INVALID_REQUEST");
  // A request written one byte at a time is one request.
  for (char ch : std::string("{\"api\":\"DescribeLogDirs\"}\n")) {
    ASSERT_TRUE(client.send(std::string_view(&ch, 1)));
  }
  EXPECT_EQ(nlohmann::json::parse(client.read_line().value_or("{}")).value("error", "?"), "NONE");
  // A client that disconnects in the middle of a line leaves the server serving others.
  {
    RawClient quitter(socket_);
    ASSERT_TRUE(quitter.send(R"({"api":"Produce","topic":)"));
  }
  expect_alive(client, "a client left mid-line");
}

TEST_F(AdminRobustnessTest, TopicNamesThatBreakKafkasRuleAreRefusedPerPartition) {
  ASSERT_NO_FATAL_FAILURE(start(default_config(2)));
  // Kafka's Topic.validate texts (clients/src/main/java/org/apache/kafka/common/internals/
  // Topic.java, 3.4 and later): "Topic name is invalid: " and the reason, the whole name quoted.
  const std::string invalid = "Topic name is invalid: ";
  const std::string chars =
      "' contains one or more characters other than ASCII alphanumerics, '.', '_' and '-'";
  struct Case {
    std::string topic, message;
  };
  // 63 'x' and 100 'é': 263 bytes but 163 characters as Java counts them, so it is refused for its
  // characters, not its length, and the response is valid UTF-8 JSON.
  std::string accented = std::string(63, 'x');
  for (int i = 0; i < 100; ++i) accented += "\xc3\xa9";
  const std::vector<Case> cases = {
      {"", invalid + "the empty string is not allowed"},
      {".", invalid + "'.' is not allowed"},
      {"..", invalid + "'..' is not allowed"},
      {"../etc", invalid + "'../etc" + chars},
      {"a/b", invalid + "'a/b" + chars},
      {"sp ace", invalid + "'sp ace" + chars},
      {"\xc3\xbc", invalid + "'\xc3\xbc" + chars},
      {std::string(250, 'x'), invalid + "the length of '" + std::string(250, 'x') +
                                  "' is longer than the max allowed length 249"},
      {accented, invalid + "'" + accented + chars},
  };
  RawClient client(socket_);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.topic.substr(0, 80));
    nlohmann::json request = {{"api", "CreatePartitions"}, {"topic", c.topic}, {"partitions", {0}}};
    nlohmann::json r = client.call(request.dump());
    ASSERT_EQ(r.value("error", "?"), "NONE") << r.dump();
    ASSERT_EQ(r["partitions"].size(), 1u);
    EXPECT_EQ(r["partitions"][0]["error"], "INVALID_TOPIC_EXCEPTION");
    EXPECT_EQ(r["partitions"][0]["message"], c.message);
    EXPECT_EQ(r["partitions"][0]["created"], false);
  }
  for (const auto& d : log_dirs_of(call_ok({{"api", "DescribeLogDirs"}}))) {
    EXPECT_TRUE(d["partitions"].empty()) << d.dump();
    for (const auto& e : fs::directory_iterator(d["logDir"].get<std::string>())) {
      const std::string name = e.path().filename().string();
      EXPECT_TRUE(name == "meta.properties" || name == ".lock")
          << "a refused topic left " << e.path();
    }
  }
}

// What one client of the stress test saw.
struct ClientLog {
  std::map<int32_t, uint64_t> acked;  // partition of topic c<id> -> acknowledged size
  uint64_t requests = 0;
  std::string failure;  // the first unexpected answer, empty if none
};

void run_client(const fs::path& socket, int id, Clock::time_point deadline,
                const std::vector<std::string>& dirs, ClientLog& log) {
  std::mt19937 rng(static_cast<uint32_t>(id) * 7919u + 1u);
  const std::string topic = "c" + std::to_string(id);
  const std::string scratch = "s" + std::to_string(id);
  auto client = std::make_unique<RawClient>(socket);
  auto expect = [&](const nlohmann::json& request, const std::string& error) -> nlohmann::json {
    nlohmann::json r =
        client->call(request.is_string() ? request.get<std::string>() : request.dump());
    ++log.requests;
    if (log.failure.empty() && r.value("error", "?") != error) {
      log.failure = "client " + std::to_string(id) + ": " +
                    (request.is_string() ? request.get<std::string>() : request.dump()) + " got " +
                    r.dump() + ", expected " + error;
    }
    return r;
  };
  auto create = [&](int32_t p) {
    nlohmann::json r =
        expect({{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", {p}}}, "NONE");
    if (r.contains("partitions") && r["partitions"][0]["error"] == "NONE") log.acked[p] = 0;
  };
  const std::vector<std::string> malformed = {
      "not json",
      "{\"api\":\"\xff\"}",
      R"({"api":"Produce","topic":"x","partition":-5,"bytes":1})",
      R"({"api":7})",
      "[[[[[[[[[[]]]]]]]]]]",
      R"({"api":"CreatePartitions","topic":"a/b"})"};
  create(0);
  create(1);
  int moves = 0;
  uint64_t produced = 0;
  while (Clock::now() < deadline && log.failure.empty() && log.requests < 200000) {
    const auto pick = rng() % 100;
    if (pick < 50) {
      auto it = log.acked.begin();
      std::advance(it, rng() % log.acked.size());
      // At least the smallest record batch (68 bytes).
      const uint64_t bytes = produced < (2u << 20) ? 68 + rng() % 8192 : 0;
      nlohmann::json r =
          expect({{"api", "Produce"}, {"topic", topic}, {"partition", it->first}, {"bytes", bytes}},
                 "NONE");
      if (r.value("error", "") == "NONE") {
        it->second += bytes;
        produced += bytes;
        if (r["size"] != it->second && log.failure.empty()) {
          log.failure = topic + "-" + std::to_string(it->first) + " acknowledged size " +
                        r["size"].dump() + ", expected " + std::to_string(it->second);
        }
      }
    } else if (pick < 55) {
      if (log.acked.size() < 8) create(static_cast<int32_t>(log.acked.size()));
    } else if (pick < 65) {
      expect({{"api", "DescribeLogDirs"}}, "NONE");
    } else if (pick < 70) {
      expect({{"api", "DescribeConfigs"}}, "NONE");
    } else if (pick < 80) {
      expect(nlohmann::json(malformed[rng() % malformed.size()]), "INVALID_REQUEST");
    } else if (pick < 85) {
      expect({{"api", "Produce"}, {"topic", topic}, {"partition", 999}, {"bytes", 1}},
             "UNKNOWN_TOPIC_OR_PARTITION");
    } else if (pick < 90) {
      expect({{"api", "CreatePartitions"}, {"topic", scratch}, {"partitions", {0, 1}}}, "NONE");
      expect({{"api", "Produce"}, {"topic", scratch}, {"partition", 1}, {"bytes", 100}}, "NONE");
      expect({{"api", "DeleteTopic"}, {"topic", scratch}}, "NONE");
    } else if (pick < 95) {
      // A new connection, the old one closed first: 64 clients stay within admin.max.connections.
      client.reset();
      client = std::make_unique<RawClient>(socket);
    } else if (moves < 3) {
      ++moves;
      const std::string dest = dirs[rng() % dirs.size()];
      nlohmann::json r = expect(
          {{"api", "AlterReplicaLogDirs"},
           {"dirs", {{{"path", dest}, {"partitions", {{{"topic", topic}, {"partition", 0}}}}}}}},
          "NONE");
      if (r.contains("results") && r["results"][0]["error"] != "NONE" && log.failure.empty()) {
        log.failure = "move of " + topic + "-0 to " + dest + " got " + r.dump();
      }
    }
  }
}

// 10 s of load by default; LDS_STRESS_SECONDS=N for a soak.
TEST_F(AdminRobustnessTest, SixtyFourClientsHammeringTheSocketLeaveEveryAcknowledgedByte) {
  constexpr int kClients = 64;
  const int seconds =
      std::getenv("LDS_STRESS_SECONDS") ? std::atoi(std::getenv("LDS_STRESS_SECONDS")) : 10;
  ServerConfig config = default_config(3);
  ASSERT_NO_FATAL_FAILURE(start(config));
  std::vector<std::string> dirs;
  for (const auto& d : config.log_dirs) dirs.push_back(d.string());

  std::vector<ClientLog> logs(kClients);
  std::vector<std::thread> clients;
  const auto deadline = Clock::now() + std::chrono::seconds(seconds);
  for (int i = 0; i < kClients; ++i) {
    clients.emplace_back([&, i] {
      try {
        run_client(socket_, i, deadline, dirs, logs[static_cast<size_t>(i)]);
      } catch (const std::exception& e) {
        logs[static_cast<size_t>(i)].failure = "client " + std::to_string(i) + ": " + e.what();
      }
    });
  }
  for (auto& t : clients) t.join();
  uint64_t requests = 0;
  for (const ClientLog& log : logs) {
    EXPECT_EQ(log.failure, "");
    requests += log.requests;
  }
  std::cout << "[ stress   ] " << kClients << " clients sent " << requests << " requests in "
            << seconds << " s\n";

  // Still responsive, and every move has finished.
  const auto asked = Clock::now();
  nlohmann::json describe = call_ok({{"api", "DescribeLogDirs"}});
  EXPECT_LT(Clock::now() - asked, std::chrono::seconds(5)) << "DescribeLogDirs took too long";
  for (int tries = 0; tries < 600; ++tries) {
    bool moving = false;
    for (const auto& d : log_dirs_of(describe)) {
      for (const auto& p : d["partitions"]) moving = moving || p["isFuture"].get<bool>();
    }
    if (!moving) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    describe = call_ok({{"api", "DescribeLogDirs"}});
  }

  // Every acknowledged byte is there, once, in the partition's one directory, and nothing else is.
  std::map<std::string, uint64_t> reported;
  for (const auto& d : log_dirs_of(describe)) {
    EXPECT_TRUE(d["error"].is_null()) << d.dump();
    for (const auto& p : d["partitions"]) {
      EXPECT_FALSE(p["isFuture"].get<bool>()) << "a move did not finish: " << p.dump();
      reported[p["partition"].get<std::string>()] = p["size"].get<uint64_t>();
    }
  }
  size_t expected_partitions = 0;
  for (int i = 0; i < kClients; ++i) {
    const std::string topic = "c" + std::to_string(i);
    for (const auto& [partition, size] : logs[static_cast<size_t>(i)].acked) {
      ++expected_partitions;
      const std::string name = layout::partition_dir(topic, partition);
      EXPECT_EQ(reported[name], size) << name;
      std::vector<fs::path> copies = copies_of(config.log_dirs, name);
      ASSERT_EQ(copies.size(), 1u) << name;
      EXPECT_EQ(partition_problem(copies[0], topic, partition, size), "");
    }
  }
  EXPECT_EQ(reported.size(), expected_partitions) << "partitions nobody acknowledged exist";
  ASSERT_NO_FATAL_FAILURE(stop());
}

// The last line of a process's stderr, with its newline (the broker logs its start before the
// socket is bound).
std::string last_line(const std::string& err) {
  if (err.size() < 2) return err;
  const size_t start = err.rfind('\n', err.size() - 2);
  return start == std::string::npos ? err : err.substr(start + 1);
}

class AdminSocketFolderTest : public ServerFixture {
 protected:
  ProcessResult serve_with_socket_in(const fs::path& folder) {
    ServerConfig c = default_config(1);
    c.socket = folder / "admin.sock";
    socket_ = c.socket;
    return run_host({"serve", "--config", write_config(c).string()}, 20);
  }
};

TEST_F(AdminSocketFolderTest, AFolderOthersCanWriteWithoutTheStickyBitIsRefused) {
  const fs::path folder = make_dir("shared");
  ::chmod(folder.c_str(), 0777);
  ProcessResult r = serve_with_socket_in(folder);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(last_line(r.err),
            "lds-host: admin.socket " + (folder / "admin.sock").string() +
                " is refused: its folder " + folder.string() +
                " is writable by group or others without the sticky bit, so another user "
                "could replace the socket (chmod go-w to fix).\n");
  EXPECT_FALSE(fs::exists(fs::symlink_status(folder / "admin.sock")));
  ::chmod(folder.c_str(), 0775);
  EXPECT_EQ(serve_with_socket_in(folder).exit_code, 2) << "group-writable is refused too";
}

TEST_F(AdminSocketFolderTest, AFolderOwnedByAnotherUserIsRefused) {
  if (::geteuid() != 0)
    GTEST_SKIP() << "not running as root, so a folder cannot be given to uid 65534";
  const fs::path folder = make_dir("theirs");
  ::chmod(folder.c_str(), 0755);
  ASSERT_EQ(::chown(folder.c_str(), 65534, 65534), 0);
  ProcessResult r = serve_with_socket_in(folder);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(last_line(r.err),
            "lds-host: admin.socket " + (folder / "admin.sock").string() +
                " is refused: its folder " + folder.string() +
                " is owned by uid 65534, not by root or by this server's user.\n");
}

TEST_F(AdminSocketFolderTest, AStickyWorldWritableFolderLikeTmpIsAccepted) {
  const fs::path folder = make_dir("sticky");
  ::chmod(folder.c_str(), 01777);
  ServerConfig c = default_config(1);
  c.socket = folder / "admin.sock";
  ASSERT_NO_FATAL_FAILURE(start(c));
  struct stat st {};
  ASSERT_EQ(::lstat(c.socket.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  call_ok({{"api", "DescribeLogDirs"}});
}

}  // namespace
}  // namespace lds::integration
