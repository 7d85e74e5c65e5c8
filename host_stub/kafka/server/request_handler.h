// request_handler.h: answers one Kafka request frame from the broker's state, as Kafka's KafkaApis
// does: Produce, Fetch, ListOffsets, ApiVersions, Metadata, CreateTopics, DeleteTopics,
// CreatePartitions, DescribeLogDirs, AlterReplicaLogDirs, DescribeConfigs, AlterConfigs and
// IncrementalAlterConfigs, in the versions api_keys.h lists.
//
// Independent of the transport: it takes the bytes of one frame (without the 4-byte size) and
// returns the response frame, or says why the connection must close (an API or version it does not
// serve, or a request that does not parse), as Kafka closes the connection in those cases.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/file_slice.h"
#include "kafka/protocol/record_reader.h"

namespace lds {
class Broker;
struct TopicPartition;
}  // namespace lds

namespace lds::kafka {

class ProducerStates;
struct ApiRange;
struct RequestHeader;

// Where clients reach this broker: what Metadata advertises.
struct Endpoint {
  std::string host;
  int32_t port = 0;
};

struct Reply {
  std::string frame;  // the response without its size prefix; empty when nothing is sent
  // Record batches still in their segment files, in their places within `frame` (a Fetch's):
  // sent from the files by the listener, read into the frame by joined() elsewhere.
  std::vector<FileSplice> splices;
  std::string close_reason;  // non-empty: close the connection (after earlier replies), logged
  // Set instead of both: a Fetch waiting for data (max_wait_ms, min_bytes). Ask again with the
  // same frame and receive time by then, or sooner once data may have arrived.
  std::optional<std::chrono::steady_clock::time_point> retry_at;
};

class RequestHandler {
 public:
  // `advertised` is the listener's bound address; the broker's id and its state are read from
  // `broker`, which must outlive the handler. Safe to call from several threads at once.
  RequestHandler(Broker& broker, Endpoint advertised);
  ~RequestHandler();

  // `received` is when the frame arrived: a Fetch's max_wait_ms counts from it, so a request asked
  // again (Reply::retry_at) passes the time of its first arrival.
  Reply handle(std::string_view frame, std::chrono::steady_clock::time_point received =
                                           std::chrono::steady_clock::now()) const;

  // Called after each Produce that appended something, so that waiting Fetches look again.
  // Set before the first request.
  void set_on_append(std::function<void()> on_append) { on_append_ = std::move(on_append); }

 private:
  // The response to one request of `api` whose header was read and whose version is served.
  Reply dispatch(const ApiRange& api, std::string_view body, int16_t version,
                 const RequestHeader& header, std::chrono::steady_clock::time_point received) const;
  // The names of the topics this broker hosts a partition of.
  std::set<std::string> hosted_topics() const;
  // This broker's partitions by topic, and those of them on an offline log dir.
  struct HostedPartitions {
    std::map<std::string, std::set<int32_t>> by_topic;
    std::set<std::pair<std::string, int32_t>> offline;
  };
  HostedPartitions hosted_partitions() const;
  std::string api_versions(int16_t version, int32_t correlation_id, int16_t error) const;
  std::string metadata(std::string_view body, int16_t version, int32_t correlation_id) const;
  std::string describe_log_dirs(std::string_view body, int16_t version,
                                int32_t correlation_id) const;
  std::string describe_cluster(std::string_view body, int16_t version,
                               int32_t correlation_id) const;
  std::string describe_topic_partitions(std::string_view body, int16_t version,
                                        int32_t correlation_id) const;
  // request_handler/topics.cpp: topics created and deleted through the LogManager, placed by the
  // active strategy exactly as the admin API's CreatePartitions places them.
  std::string create_topics(std::string_view body, int16_t version, int32_t correlation_id) const;
  std::string delete_topics(std::string_view body, int16_t version, int32_t correlation_id) const;
  std::string create_partitions(std::string_view body, int16_t version,
                                int32_t correlation_id) const;
  // request_handler/configs.cpp: the broker's configs through Broker::describe_configs and
  // Broker::alter_configs, the calls the admin API makes, with Kafka's per-resource checks.
  std::string describe_configs(std::string_view body, int16_t version,
                               int32_t correlation_id) const;
  std::string alter_configs(std::string_view body, bool incremental, int16_t version,
                            int32_t correlation_id) const;
  // request_handler/log_dirs.cpp: replica moves through LogManager::alter_replica_log_dir, as the
  // admin API's AlterReplicaLogDirs.
  std::string alter_replica_log_dirs(std::string_view body, int16_t version,
                                     int32_t correlation_id) const;
  // request_handler/reassignments.cpp: partition reassignments (KIP-455) on a single broker,
  // whose only replica set is itself: nothing is ever in progress, and the one set accepted is
  // the unchanged one.
  std::string list_partition_reassignments(std::string_view body, int16_t version,
                                           int32_t correlation_id) const;
  std::string alter_partition_reassignments(std::string_view body, int16_t version,
                                            int32_t correlation_id) const;
  // request_handler/records.cpp: record batches appended and read through the LogManager.
  Reply produce(std::string_view body, int16_t version, int32_t correlation_id,
                const std::string& client_id) const;
  Reply fetch(std::string_view body, int16_t version, int32_t correlation_id,
              std::chrono::steady_clock::time_point received) const;
  std::string list_offsets(std::string_view body, int16_t version, int32_t correlation_id) const;
  // ListOffsets by time: the first record of `tp` whose timestamp is at least `timestamp`, as
  // Kafka's fetchOffsetByTimestamp finds it; nullopt when none is. Throws KafkaError.
  std::optional<TimestampAndOffset> offset_at_time(const TopicPartition& tp,
                                                   int64_t timestamp) const;
  // An idempotent producer's id (KIP-98): a new one for every call, epoch 0. Transactional ids
  // are refused: this broker is no transaction coordinator.
  std::string init_producer_id(std::string_view body, int16_t version,
                               int32_t correlation_id) const;

  Broker& broker_;
  Endpoint advertised_;
  int32_t broker_id_;
  int32_t fetch_max_bytes_;  // fetch.max.bytes, a static key
  std::function<void()> on_append_;
  // Idempotent producers: the sequence state of their batches, and the next id to hand out
  // (microseconds since the Unix epoch at start, so that a restart hands out none twice).
  std::unique_ptr<ProducerStates> producers_;
  mutable std::atomic<int64_t> next_producer_id_;
};

}  // namespace lds::kafka
