// kafka_connection_limits_test.cpp: what one client can take from a running lds-host through its
// Kafka listener, and what it cannot: 60 pipelined Fetches of a 4 MiB partition never read (the
// broker's memory stays bounded, everyone else is served, the replies then come whole and in
// order), connections.max.idle.ms closing idle, half-sent and unread connections, max.connections
// (a client beyond it waits; lowered through the admin API, the least recently active go), a
// Produce and a Fetch that still succeed with the broker out of file descriptors, and creations
// stuck in a strategy plugin that leave everything else answered.
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "byte_units.h"
#include "kafka/protocol/create_topics.h"
#include "kafka/protocol/fetch.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/metadata.h"
#include "kafka/protocol/produce.h"
#include "kafka_listener_fixture.h"
#include "model/record_batch.h"
#include "model/wire.h"
#include "process_rss.h"
#include "server_fixture.h"

namespace lds::integration {
namespace {

// Descriptors process `pid` has open.
size_t open_descriptors(pid_t pid) {
  size_t n = 0;
  for ([[maybe_unused]] const auto& e :
       fs::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    ++n;
  }
  return n;
}

// Fetch v4 (request header v1) of t-0 from `offset`, up to `max_bytes`.
bool send_fetch(KafkaConnection& c, int32_t correlation_id, int64_t offset, int32_t max_bytes) {
  kafka::FetchRequest f;
  f.max_wait_ms = 0;
  f.min_bytes = 0;
  f.max_bytes = max_bytes;
  f.topics.push_back(
      {"t", {{.partition = 0, .fetch_offset = offset, .partition_max_bytes = max_bytes}}});
  kafka::Writer body;
  kafka::write_fetch_request(body, f, 4);
  return c.send_request(1, 4, correlation_id, 1, body.bytes());
}

// The records of t-0 in a Fetch v4 reply with `correlation_id`; nullopt (and a failure) otherwise.
std::optional<std::string> records_of(const std::optional<std::string>& reply,
                                      int32_t correlation_id) {
  if (!reply) {
    ADD_FAILURE() << "no reply to Fetch " << correlation_id;
    return std::nullopt;
  }
  kafka::Reader in(*reply);
  EXPECT_EQ(kafka::read_response_header(in, 0), correlation_id);
  const kafka::FetchResponse r = kafka::read_fetch_response(in, 4);
  if (r.topics.size() != 1 || r.topics[0].partitions.size() != 1) {
    ADD_FAILURE() << "Fetch " << correlation_id << " answered no partition";
    return std::nullopt;
  }
  EXPECT_EQ(r.topics[0].partitions[0].error_code, 0);
  return r.topics[0].partitions[0].records.value_or("");
}

// Produce v7 of `records` to t-0 on `c`; the partition's error code, or -100 without a reply.
int16_t produce(KafkaConnection& c, int32_t correlation_id, const std::string& batch) {
  kafka::ProduceRequest request;
  request.topics.push_back({"t", {{0, batch}}});
  kafka::Writer body;
  kafka::write_produce_request(body, request, 7);
  if (!c.send_request(0, 7, correlation_id, 1, body.bytes())) return -100;
  std::optional<std::string> reply = c.read_frame();
  if (!reply) return -100;
  kafka::Reader in(*reply);
  EXPECT_EQ(kafka::read_response_header(in, 0), correlation_id);
  const kafka::ProduceResponse r = kafka::read_produce_response(in, 7);
  if (r.topics.size() != 1 || r.topics[0].partitions.size() != 1) return -100;
  return r.topics[0].partitions[0].error_code;
}

// Reads what comes until the broker closes `c`; false if it has not within `timeout`.
bool closed_within(KafkaConnection& c, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (c.read_frame(200ms).has_value()) continue;
    if (c.closed_by_peer(50ms)) return true;
  }
  return false;
}

class KafkaConnectionLimitsTest : public KafkaListenerTest {
 protected:
  void TearDown() override {
    if (asan_options_) {
      ::setenv("ASAN_OPTIONS", asan_options_->c_str(), 1);
    } else if (changed_asan_options_) {
      ::unsetenv("ASAN_OPTIONS");
    }
    KafkaListenerTest::TearDown();
  }

  // Freed memory goes back to the system at once under AddressSanitizer too (its quarantine would
  // count every reply ever built in the RSS), for the servers this test starts.
  void return_freed_memory_at_once() {
    const char* now = std::getenv("ASAN_OPTIONS");
    if (now != nullptr) asan_options_ = now;
    changed_asan_options_ = true;
    const std::string options =
        (now != nullptr && *now != '\0' ? std::string(now) + ":" : "") + "quarantine_size_mb=0";
    ::setenv("ASAN_OPTIONS", options.c_str(), 1);
  }

 private:
  std::optional<std::string> asan_options_;
  bool changed_asan_options_ = false;
};

TEST_F(KafkaConnectionLimitsTest, UnreadPipelinedFetchesKeepTheBrokersMemoryBounded) {
  return_freed_memory_at_once();
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});
  ASSERT_EQ(call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 4 * kMiB}})
                .value("size", uint64_t{0}),
            4 * kMiB);
  constexpr auto kMax = static_cast<int32_t>(4 * kMiB);
  // Warm up: a few whole Fetches, read at once, so the allocator holds what any one needs.
  std::string expected;
  for (int32_t i = 0; i < 8; ++i) {
    KafkaConnection warm(port_);
    ASSERT_TRUE(send_fetch(warm, 100 + i, 0, kMax));
    std::optional<std::string> records = records_of(warm.read_frame(), 100 + i);
    ASSERT_TRUE(records.has_value());
    ASSERT_EQ(records->size(), 4 * kMiB);
    expected = *records;
  }
  std::this_thread::sleep_for(300ms);
  const uint64_t before = test::rss_of(server_pid());
  ASSERT_GT(before, 0u);

  // 60 Fetches of the whole partition, sent at once and never read: 240 MiB if all were
  // answered.
  KafkaConnection hog(port_);
  for (int32_t id = 0; id < 60; ++id) ASSERT_TRUE(send_fetch(hog, id, 0, kMax));
  uint64_t peak = before;
  for (int i = 0; i < 20; ++i) {
    std::this_thread::sleep_for(100ms);
    peak = std::max(peak, test::rss_of(server_pid()));
  }
  EXPECT_LT(peak - before, 64 * kMiB) << "RSS " << before << " -> " << peak;

  // Everyone else is served meanwhile.
  for (int32_t i = 0; i < 3; ++i) {
    KafkaConnection other(port_);
    ASSERT_TRUE(api_versions_v3(other, 200 + i).has_value()) << i;
    ASSERT_TRUE(send_fetch(other, 300 + i, 0, 65536));
    EXPECT_TRUE(records_of(other.read_frame(), 300 + i).has_value());
  }
  peak = std::max(peak, test::rss_of(server_pid()));
  EXPECT_LT(peak - before, 64 * kMiB) << "RSS " << before << " -> " << peak;
  RecordProperty("rss_growth_mib", std::to_string((peak - before) / kMiB));

  // The client reads at last: 60 replies, in order, each the whole partition.
  for (int32_t id = 0; id < 60; ++id) {
    std::optional<std::string> records = records_of(hog.read_frame(), id);
    ASSERT_TRUE(records.has_value()) << id;
    ASSERT_TRUE(*records == expected) << "reply " << id << " differs";
  }
}

TEST_F(KafkaConnectionLimitsTest, ConnectionsIdleForConnectionsMaxIdleMsAreClosed) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1), "connections.max.idle.ms = 300"));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});
  call_ok({{"api", "Produce"}, {"topic", "t"}, {"partition", 0}, {"bytes", 4 * kMiB}});
  KafkaConnection silent(port_);
  KafkaConnection half(port_);
  KafkaConnection unread(port_);
  KafkaConnection busy(port_);
  // A frame that announces 1000 bytes and sends 6.
  kafka::Writer partial;
  partial.int32(1000);
  partial.int16(18);
  partial.int16(3);
  partial.int16(0);
  ASSERT_TRUE(half.send_raw(partial.bytes()));
  // Fetches whose replies are never read.
  for (int32_t id = 0; id < 10; ++id) {
    ASSERT_TRUE(send_fetch(unread, id, 0, static_cast<int32_t>(4 * kMiB)));
  }
  const auto start = std::chrono::steady_clock::now();
  // A client that asks every 100 ms is not idle.
  for (int32_t i = 0; i < 12; ++i) {
    ASSERT_TRUE(api_versions_v3(busy, i).has_value()) << i;
    std::this_thread::sleep_for(100ms);
  }
  EXPECT_TRUE(closed_within(silent, 3s));
  EXPECT_TRUE(closed_within(half, 3s));
  EXPECT_TRUE(closed_within(unread, 20s));
  EXPECT_GE(std::chrono::steady_clock::now() - start, 300ms);
  EXPECT_TRUE(api_versions_v3(busy, 99).has_value());
  // A new connection is served, then closed once idle in its turn.
  KafkaConnection later(port_);
  EXPECT_TRUE(api_versions_v3(later, 1).has_value());
  const auto answered = std::chrono::steady_clock::now();
  EXPECT_TRUE(closed_within(later, 3s));
  EXPECT_GE(std::chrono::steady_clock::now() - answered, 250ms);
}

TEST_F(KafkaConnectionLimitsTest, ConnectionsBeyondMaxConnectionsWaitWhileTheOthersAreServed) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1), "max.connections = 3"));
  std::vector<std::unique_ptr<KafkaConnection>> open;
  for (int32_t i = 0; i < 3; ++i) {
    open.push_back(std::make_unique<KafkaConnection>(port_));
    ASSERT_TRUE(api_versions_v3(*open.back(), i).has_value()) << i;
  }
  // The fourth: connected by the kernel, never accepted while three are open.
  KafkaConnection fourth(port_);
  ASSERT_TRUE(fourth.connected());
  kafka::Writer body;
  kafka::write_api_versions_request(body, {"lds-test", "1.0"}, 3);
  ASSERT_TRUE(fourth.send_request(18, 3, 44, 2, body.bytes()));
  EXPECT_FALSE(fourth.read_frame(1s).has_value());
  for (int32_t i = 0; i < 3; ++i) {
    EXPECT_TRUE(api_versions_v3(*open[static_cast<size_t>(i)], 10 + i).has_value()) << i;
  }
  // One closes: the fourth is taken, and its request answered.
  open.erase(open.begin());
  std::optional<std::string> reply = fourth.read_frame(5s);
  ASSERT_TRUE(reply.has_value()) << server_log();
  kafka::Reader in(*reply);
  EXPECT_EQ(kafka::read_response_header(in, 0), 44);

  // max.connections is dynamic: lowered to 1, the two least recently active of the three go.
  EXPECT_TRUE(api_versions_v3(fourth, 45).has_value());
  call_ok({{"api", "IncrementalAlterConfigs"},
           {"configs", {{{"name", "max.connections"}, {"op", "SET"}, {"value", "1"}}}}});
  EXPECT_TRUE(closed_within(*open[0], 5s)) << server_log();
  EXPECT_TRUE(closed_within(*open[1], 5s)) << server_log();
  EXPECT_TRUE(api_versions_v3(fourth, 46).has_value()) << server_log();
  const std::string log = server_log();
  size_t shed = 0;
  for (size_t at = log.find("over max.connections (1)"); at != std::string::npos;
       at = log.find("over max.connections (1)", at + 1)) {
    ++shed;
  }
  EXPECT_EQ(shed, 2u) << log;
  EXPECT_NE(server_log().find("max.connections: 3 → 1"), std::string::npos) << server_log();
}

TEST_F(KafkaConnectionLimitsTest, AProduceSucceedsWithTheBrokerOutOfFileDescriptors) {
  ASSERT_NO_FATAL_FAILURE(start_with_listener(default_config(1)));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});
  KafkaConnection producer(port_);
  ASSERT_TRUE(api_versions_v3(producer, 1).has_value());
  kafka::Record record;
  record.value = std::string("before");
  ASSERT_EQ(produce(producer, 2, kafka::build_batch(0, 1700000000000, {record})), 0);

  // The broker may open a few more descriptors than it has now, and clients take them all.
  const pid_t pid = server_pid();
  rlimit original{};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, nullptr, &original), 0);
  const rlim_t low = open_descriptors(pid) + 4;
  const rlimit lowered{low, low};
  ASSERT_EQ(::prlimit(pid, RLIMIT_NOFILE, &lowered, nullptr), 0) << std::strerror(errno);
  std::vector<std::unique_ptr<KafkaConnection>> clients;
  bool refused = false;
  for (int i = 0; i < 64 && !refused; ++i) {
    clients.push_back(std::make_unique<KafkaConnection>(port_));
    refused = clients.back()->closed_by_peer(300ms);
  }
  ASSERT_TRUE(refused) << "the broker never ran out of descriptors";
  EXPECT_NE(server_log().find("Refused a Kafka connection: out of file descriptors"),
            std::string::npos)
      << server_log();

  // Appends and reads still work: the log's descriptors were kept back for it.
  for (int32_t i = 0; i < 5; ++i) {
    record.value = "at the limit " + std::to_string(i);
    EXPECT_EQ(produce(producer, 10 + i, kafka::build_batch(0, 1700000000000, {record})), 0) << i;
  }
  ASSERT_TRUE(send_fetch(producer, 20, 0, 1 << 20));
  std::optional<std::string> records = records_of(producer.read_frame(), 20);
  ASSERT_TRUE(records.has_value());
  const std::vector<std::string_view> batches = kafka::split_batches(*records);
  ASSERT_EQ(batches.size(), 6u);
  EXPECT_EQ(kafka::read_records(batches[5]).at(0).value,
            std::optional<std::string>("at the limit 4"));
  EXPECT_EQ(server_log().find("short of file descriptors"), std::string::npos) << server_log();

  clients.clear();
  ::prlimit(pid, RLIMIT_NOFILE, &original, nullptr);
}

// Creations, deletions, moves and config changes have workers of their own. Five CreateTopics
// stuck for good (a strategy plugin that never returns from rank for topic "hang"), more than the
// listener's request workers, leave Produce, Fetch and Metadata answered on other connections.
TEST_F(KafkaConnectionLimitsTest, CreationsStuckInAPluginLeaveProduceFetchAndMetadataAnswered) {
  const fs::path plugins = make_dir("plugins");
  ::chmod(plugins.c_str(), 0755);
  for (const fs::path& file : {build_plugin_dir() / "liblds_partition.so",
                               fs::path(LDS_BAD_PLUGIN_DIR) / "liblds_bad_rank_hangs.so"}) {
    fs::copy_file(file, plugins / file.filename());
    ::chmod((plugins / file.filename()).c_str(), 0755);
  }
  ServerConfig config = default_config(1, "bad_rank_hangs");
  config.plugin_dir = plugins;
  ASSERT_NO_FATAL_FAILURE(start_with_listener(config));
  call_ok({{"api", "CreatePartitions"}, {"topic", "t"}, {"partitions", {0}}});
  KafkaConnection producer(port_);
  kafka::Record record;
  record.value = std::string("before");
  ASSERT_EQ(produce(producer, 1, kafka::build_batch(0, 1700000000000, {record})), 0);

  std::vector<std::unique_ptr<KafkaConnection>> creators;
  for (int32_t i = 0; i < 5; ++i) {
    kafka::CreateTopicsRequest create;
    kafka::CreateTopicsRequest::Topic topic;
    topic.name = "hang";
    topic.num_partitions = 1;
    topic.replication_factor = 1;
    create.topics.push_back(topic);
    kafka::Writer body;
    kafka::write_create_topics_request(body, create, 4);
    creators.push_back(std::make_unique<KafkaConnection>(port_));
    ASSERT_TRUE(creators.back()->send_request(19, 4, 100 + i, 1, body.bytes()));
  }
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (server_log().find("rank hangs for hang-0") == std::string::npos &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(20ms);
  }
  ASSERT_NE(server_log().find("rank hangs for hang-0"), std::string::npos) << server_log();

  record.value = std::string("while creations hang");
  EXPECT_EQ(produce(producer, 2, kafka::build_batch(0, 1700000000000, {record})), 0);
  ASSERT_TRUE(send_fetch(producer, 3, 0, 1 << 20));
  std::optional<std::string> records = records_of(producer.read_frame(), 3);
  ASSERT_TRUE(records.has_value());
  EXPECT_EQ(kafka::split_batches(*records).size(), 2u);
  KafkaConnection reader(port_);
  kafka::Writer body;
  kafka::write_metadata_request(body, {std::vector<std::string>{"t"}, false}, 4);
  ASSERT_TRUE(reader.send_request(3, 4, 4, 1, body.bytes()));
  std::optional<std::string> reply = reader.read_frame();
  ASSERT_TRUE(reply.has_value()) << "no answer to Metadata while creations hang";
  kafka::Reader in(*reply);
  EXPECT_EQ(kafka::read_response_header(in, 0), 4);
  const kafka::MetadataResponse metadata = kafka::read_metadata_response(in, 4);
  ASSERT_EQ(metadata.topics.size(), 1u);
  EXPECT_EQ(metadata.topics[0].error_code, 0);
  for (auto& c : creators) EXPECT_FALSE(c->read_frame(0ms).has_value());  // still stuck
}

}  // namespace
}  // namespace lds::integration
