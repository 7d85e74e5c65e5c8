// kafka_harness.h: what the Kafka request fuzzer and its corpus test run frames against: the
// Kafka request handler over an in-memory broker (no segment files), and a check that a reply is
// what a client could read.
#pragma once

#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "broker/broker.h"
#include "fuzz_harness.h"
#include "kafka/protocol/alter_replica_log_dirs.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/api_versions.h"
#include "kafka/protocol/configs.h"
#include "kafka/protocol/create_partitions.h"
#include "kafka/protocol/create_topics.h"
#include "kafka/protocol/delete_topics.h"
#include "kafka/protocol/describe_cluster.h"
#include "kafka/protocol/describe_log_dirs.h"
#include "kafka/protocol/describe_topic_partitions.h"
#include "kafka/protocol/fetch.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/init_producer_id.h"
#include "kafka/protocol/list_offsets.h"
#include "kafka/protocol/metadata.h"
#include "kafka/protocol/partition_reassignments.h"
#include "kafka/protocol/produce.h"
#include "kafka/server/request_handler.h"
#include "model/wire.h"
#include "util/logging.h"

namespace lds::fuzz {

// A broker over two in-memory log dirs, strategy "partition", logging off, topic "t" with
// partitions 0 and 1, behind a RequestHandler advertising 127.0.0.1:9092.
class KafkaHarness {
 public:
  explicit KafkaHarness(fs::path plugin_dir) : plugin_dir_(std::move(plugin_dir)) { reset(); }
  ~KafkaHarness() {
    handler_.reset();
    broker_.reset();
  }
  KafkaHarness(const KafkaHarness&) = delete;
  KafkaHarness& operator=(const KafkaHarness&) = delete;

  void reset() {
    handler_.reset();
    broker_.reset();
    const fs::path config = scratch_.path() / "broker.toml";
    std::ofstream(config, std::ios::trunc)
        << "broker.id = 0\nlog.dirs = [\"disk1\", \"disk2\"]\nplugin.dir = \""
        << plugin_dir_.string() << "\"\nadmin.socket = \"unused.sock\"\nlog.level = \"off\"\n";
    broker_ = std::make_unique<Broker>(config, std::make_shared<StatvfsDiskProbe>(),
                                       /*in_memory_logs=*/true);
    broker_->start();
    broker_->logs().create_partition("t", 0);
    broker_->logs().create_partition("t", 1);
    handler_ =
        std::make_unique<kafka::RequestHandler>(*broker_, kafka::Endpoint{"127.0.0.1", 9092});
  }

  kafka::Reply handle(std::string_view frame, std::chrono::steady_clock::time_point received) {
    kafka::Reply reply = handler_->handle(frame, received);
    set_log_level("off");
    return reply;
  }

  size_t partition_count() const { return broker_->logs().partition_count(); }

 private:
  ScratchDir scratch_;
  fs::path plugin_dir_;
  std::unique_ptr<Broker> broker_;
  std::unique_ptr<kafka::RequestHandler> handler_;
};

// What is wrong with `reply` to request `frame` ("" when nothing): a frame and a close at once; a
// frame that does not carry the request's correlation id, or that the response decoder of its API
// and version does not read exactly; silence other than for a Produce (acks=0).
inline std::string reply_problem(std::string_view frame, const kafka::Reply& reply) {
  using namespace kafka;
  if (!reply.frame.empty() && !reply.close_reason.empty()) return "both a response and a close";
  if (reply.frame.empty()) {
    const bool produce = frame.size() >= 2 && frame[0] == 0 && frame[1] == 0;
    return reply.close_reason.empty() && !produce ? "neither a response nor a close" : "";
  }
  try {
    Reader request(frame);
    const int16_t key = request.int16();
    int16_t version = request.int16();
    const int32_t correlation_id = request.int32();
    const std::optional<ApiRange> api = find_api(key);
    if (!api) return "a response to an API this broker does not serve";
    if (api->key == ApiKey::kApiVersions && version > api->max_version) version = 0;
    Reader in(reply.frame);
    if (read_response_header(in, response_header_version(*api, version)) != correlation_id) {
      return "a response with another correlation id";
    }
    switch (api->key) {
      case ApiKey::kProduce:
        (void)read_produce_response(in, version);
        break;
      case ApiKey::kFetch:
        (void)read_fetch_response(in, version);
        break;
      case ApiKey::kListOffsets:
        (void)read_list_offsets_response(in, version);
        break;
      case ApiKey::kMetadata:
        (void)read_metadata_response(in, version);
        break;
      case ApiKey::kApiVersions:
        (void)read_api_versions_response(in, version);
        break;
      case ApiKey::kCreateTopics:
        (void)read_create_topics_response(in, version);
        break;
      case ApiKey::kDeleteTopics:
        (void)read_delete_topics_response(in, version);
        break;
      case ApiKey::kDescribeLogDirs:
        (void)read_describe_log_dirs_response(in, version);
        break;
      case ApiKey::kInitProducerId:
        (void)read_init_producer_id_response(in, version);
        break;
      case ApiKey::kDescribeConfigs:
        (void)read_describe_configs_response(in, version);
        break;
      case ApiKey::kAlterConfigs:
      case ApiKey::kIncrementalAlterConfigs:
        (void)read_alter_configs_response(in, api->key == ApiKey::kIncrementalAlterConfigs,
                                          version);
        break;
      case ApiKey::kAlterReplicaLogDirs:
        (void)read_alter_replica_log_dirs_response(in, version);
        break;
      case ApiKey::kCreatePartitions:
        (void)read_create_partitions_response(in, version);
        break;
      case ApiKey::kAlterPartitionReassignments:
        (void)read_alter_partition_reassignments_response(in, version);
        break;
      case ApiKey::kListPartitionReassignments:
        (void)read_list_partition_reassignments_response(in, version);
        break;
      case ApiKey::kDescribeCluster:
        (void)read_describe_cluster_response(in, version);
        break;
      case ApiKey::kDescribeTopicPartitions:
        (void)read_describe_topic_partitions_response(in, version);
        break;
    }  // every API served, so that a new one without its decoder here does not compile
    if (in.remaining() != 0) {
      return std::to_string(in.remaining()) + " bytes after the response";
    }
  } catch (const ParseError& e) {
    return std::string("a response that does not parse: ") + e.what();
  }
  return "";
}

}  // namespace lds::fuzz
