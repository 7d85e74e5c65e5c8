// fuzz_corpus_test.cpp: every hand-written seed of the fuzzers' corpora (bad configs, bad admin
// requests) gets its exact expected message, listed in config_corpus.json and admin_corpus.json;
// every captured Kafka client request (corpus/kafka) is served; every record batch seed
// (corpus/record_batch) passes Kafka's validation.
#include <gtest/gtest.h>
#include <spdlog/sinks/ringbuffer_sink.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "config/config.h"
#include "fuzz_harness.h"
#include "kafka/protocol/framing.h"
#include "kafka/protocol/headers.h"
#include "kafka/server/record_validator.h"
#include "kafka_harness.h"
#include "util/errors.h"
#include "util/logging.h"

namespace lds::fuzz {

namespace fs = std::filesystem;
namespace {

using nlohmann::json;

const fs::path kCorpus = LDS_FUZZ_CORPUS_DIR;
const fs::path kExpected = LDS_FUZZ_EXPECTED_DIR;

std::string bytes_of(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

json expectations(const std::string& name) { return json::parse(bytes_of(kExpected / name)); }

// Replaces every "{key}" of `vars` in `text`.
std::string substitute(std::string text,
                       const std::vector<std::pair<std::string, std::string>>& vars) {
  for (const auto& [key, value] : vars) {
    const std::string token = "{" + key + "}";
    for (size_t at = text.find(token); at != std::string::npos;
         at = text.find(token, at + value.size())) {
      text.replace(at, token.size(), value);
    }
  }
  return text;
}

std::set<std::string> files_in(const fs::path& dir) {
  std::set<std::string> names;
  for (const auto& e : fs::directory_iterator(dir)) names.insert(e.path().filename().string());
  return names;
}

fs::path plugin_dir() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  return dir != nullptr ? fs::path(dir) : fs::path("plugins");
}

TEST(FuzzCorpus, EveryConfigSeedHasItsExactMessage) {
  const json expected = expectations("config_corpus.json");
  std::set<std::string> listed;
  for (const auto& [name, message] : expected.items()) listed.insert(name);
  EXPECT_EQ(listed, files_in(kCorpus / "config")) << "config_corpus.json and corpus/config differ";
  EXPECT_GE(listed.size(), 20u);
  for (const auto& [name, message] : expected.items()) {
    SCOPED_TRACE(name);
    ScratchDir dir;
    const fs::path file = write_config_input(dir.path(), bytes_of(kCorpus / "config" / name));
    // A dynamic entry that does not validate is not an error: it is logged and left out.
    auto warnings = std::make_shared<spdlog::sinks::ringbuffer_sink_mt>(8);
    warnings->set_pattern("%v");
    const auto config_log = logger("lds.config");
    config_log->sinks().push_back(warnings);
    std::string error = "no error";
    try {
      ConfigStore store(file);
    } catch (const ConfigError& e) {
      error = e.what();
    }
    config_log->sinks().pop_back();
    if (error == "no error" && !warnings->last_formatted().empty()) {
      error = "ignored: " + warnings->last_formatted().front();
      while (!error.empty() && (error.back() == '\n' || error.back() == '\r')) error.pop_back();
    }
    EXPECT_EQ(error, substitute(message.get<std::string>(),
                                {{"file", file.string()}, {"dir", dir.path().string()}}));
  }
}

TEST(FuzzCorpus, EveryAdminSeedGetsItsKafkaErrorAndExactMessage) {
  const json expected = expectations("admin_corpus.json");
  std::set<std::string> listed;
  for (const auto& [name, e] : expected.items()) listed.insert(name);
  EXPECT_EQ(listed, files_in(kCorpus / "admin")) << "admin_corpus.json and corpus/admin differ";
  EXPECT_GE(listed.size(), 20u);
  AdminHarness harness(plugin_dir());
  const std::vector<std::pair<std::string, std::string>> vars = {
      {"dir1", harness.dir(1).string()}, {"plugins", plugin_dir().string()}};
  size_t refused = 0;
  for (const auto& [name, e] : expected.items()) {
    SCOPED_TRACE(name);
    const std::string request = substitute(bytes_of(kCorpus / "admin" / name), vars);
    const std::string raw = harness.handle(request);
    const json response = json::parse(raw, nullptr, false);
    ASSERT_FALSE(response.is_discarded()) << "not JSON: " << raw;
    EXPECT_EQ(response.value("error", "?"), e["error"].get<std::string>()) << raw;
    EXPECT_EQ(response.value("message", "?"), substitute(e["message"].get<std::string>(), vars))
        << raw;
    if (e.contains("item")) {
      const char* list = response.contains("results") ? "results" : "partitions";
      ASSERT_TRUE(response.contains(list) && response[list].size() == 1) << raw;
      const json& item = response[list][0];
      EXPECT_EQ(item.value("error", "?"), e["item"]["error"].get<std::string>()) << raw;
      EXPECT_EQ(item.value("message", "?"),
                substitute(e["item"]["message"].get<std::string>(), vars))
          << raw;
    }
    if (e["error"] != "NONE" || e.contains("item")) ++refused;
  }
  EXPECT_EQ(refused, listed.size()) << "every seed is a bad request";
  // None of them created, moved or configured anything.
  EXPECT_EQ(harness.partition_count(), 2u);
  EXPECT_FALSE(fs::exists(harness.config_file().string() + ".dynamic"));
}

// The Kafka seeds are what kcat, kafka-python, confluent-kafka and Kafka 4.4's own tools
// (kafka-tools-4.4-*: kafka-topics, kafka-configs, kafka-log-dirs, kafka-reassign-partitions, the
// console producer, kafka-broker-api-versions) really sent: each one frame that
// this broker serves (answered, or taken silently for an acks=0 Produce), never closed.
TEST(FuzzCorpus, EveryKafkaSeedIsARealClientRequestThatIsServed) {
  KafkaHarness harness(plugin_dir());
  std::set<int16_t> apis;
  std::set<std::string> clients;
  const std::set<std::string> seeds = files_in(kCorpus / "kafka");
  EXPECT_GE(seeds.size(), 20u);
  for (const std::string& name : seeds) {
    SCOPED_TRACE(name);
    const std::string bytes = bytes_of(kCorpus / "kafka" / name);
    const kafka::FrameCut cut = kafka::cut_frame(bytes, 1 << 20);
    ASSERT_EQ(cut.state, kafka::FrameCut::kComplete);
    ASSERT_EQ(bytes.size(), 4 + static_cast<size_t>(cut.size)) << "one frame per seed";
    const std::string_view frame = std::string_view(bytes).substr(4);
    kafka::Reader in(frame);
    const kafka::RequestHeader header = kafka::read_request_header(in, 1);
    apis.insert(header.api_key);
    clients.insert(header.client_id.value_or(""));
    // As if any max_wait_ms had passed, so that a Fetch answers at once.
    const kafka::Reply reply =
        harness.handle(frame, std::chrono::steady_clock::now() - std::chrono::hours(1));
    EXPECT_TRUE(reply.close_reason.empty()) << reply.close_reason;
    EXPECT_FALSE(reply.retry_at.has_value());
    EXPECT_EQ(reply_problem(frame, reply), "");
    if (header.api_key == 0 && !reply.frame.empty()) {
      // A real client's batch passes Kafka's validation (kafka/server/record_validator.h).
      kafka::Reader out(reply.frame);
      (void)kafka::read_response_header(out, 0);
      for (const auto& t : kafka::read_produce_response(out, header.api_version).topics) {
        for (const auto& p : t.partitions) {
          EXPECT_TRUE(p.error_code != 2 && p.error_code != 76 && p.error_code != 87)
              << t.name << "-" << p.index << ": " << p.error_code << " "
              << p.error_message.value_or("");
        }
      }
    }
  }
  // Produce, Fetch, ListOffsets, Metadata and ApiVersions at least, from each client library, and
  // what only Kafka's tools send: InitProducerId, the reassignment APIs, DescribeCluster and
  // DescribeTopicPartitions.
  for (int key : {0, 1, 2, 3, 18, 22, 45, 46, 60, 75}) {
    EXPECT_EQ(apis.count(static_cast<int16_t>(key)), 1u) << "API key " << key;
  }
  EXPECT_EQ(clients.count("rdkafka"), 1u);  // kcat and confluent-kafka (librdkafka)
  EXPECT_TRUE(std::any_of(clients.begin(), clients.end(),
                          [](const std::string& c) { return c.rfind("kafka-python", 0) == 0; }));
}

// The record batch seeds are valid batches a client sends: one per codec and record count built
// with the codecs' libraries (gzip-5.bin, snappy-raw-5.bin as librdkafka writes snappy, ...), and
// kcat's and kafka-python's own (kcat-zstd-30.bin, kafka-python-gzip-40.bin).
TEST(FuzzCorpus, EveryRecordBatchSeedPassesKafkasValidation) {
  const std::set<std::string> seeds = files_in(kCorpus / "record_batch");
  EXPECT_GE(seeds.size(), 12u);
  std::set<std::string> codecs;
  for (const std::string& name : seeds) {
    SCOPED_TRACE(name);
    const std::string batch = bytes_of(kCorpus / "record_batch" / name);
    EXPECT_NO_THROW(kafka::validate_produce_records(batch, 8, "t-0"));
    try {
      kafka::validate_client_batch(batch, "t-0");
    } catch (const KafkaError& e) {
      ADD_FAILURE() << e.what();
    }
    codecs.insert(name.substr(0, name.find('-')));
  }
  for (const char* codec : {"none", "gzip", "snappy", "lz4", "zstd", "kcat", "kafka"}) {
    EXPECT_EQ(codecs.count(codec), 1u) << codec;
  }
}

}  // namespace
}  // namespace lds::fuzz
