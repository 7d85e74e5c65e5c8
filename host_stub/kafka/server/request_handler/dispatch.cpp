// request_handler/dispatch.cpp: decoding a request frame, dispatching by API, and encoding the
// response.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <vector>

#include "broker/broker.h"
#include "broker/kafka_errors.h"
#include "io/heap_trim.h"
#include "io/log_layout.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/api_versions.h"
#include "kafka/protocol/describe_cluster.h"
#include "kafka/protocol/describe_log_dirs.h"
#include "kafka/protocol/describe_topic_partitions.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/metadata.h"
#include "kafka/protocol/topic_id.h"
#include "kafka/server/producer_states.h"
#include "kafka/server/request_handler.h"
#include "model/wire.h"

namespace lds::kafka {
namespace {

// The most partitions one DescribeTopicPartitions answer holds, whatever the client asks
// (Kafka's max.request.partition.size.limit default).
constexpr int32_t kMaxPartitionsPerPage = 2000;

const char* api_name(ApiKey key) {
  switch (key) {
    case ApiKey::kProduce:
      return "Produce";
    case ApiKey::kFetch:
      return "Fetch";
    case ApiKey::kListOffsets:
      return "ListOffsets";
    case ApiKey::kMetadata:
      return "Metadata";
    case ApiKey::kApiVersions:
      return "ApiVersions";
    case ApiKey::kDescribeLogDirs:
      return "DescribeLogDirs";
    case ApiKey::kCreateTopics:
      return "CreateTopics";
    case ApiKey::kDeleteTopics:
      return "DeleteTopics";
    case ApiKey::kDescribeConfigs:
      return "DescribeConfigs";
    case ApiKey::kAlterConfigs:
      return "AlterConfigs";
    case ApiKey::kAlterReplicaLogDirs:
      return "AlterReplicaLogDirs";
    case ApiKey::kCreatePartitions:
      return "CreatePartitions";
    case ApiKey::kIncrementalAlterConfigs:
      return "IncrementalAlterConfigs";
    case ApiKey::kAlterPartitionReassignments:
      return "AlterPartitionReassignments";
    case ApiKey::kListPartitionReassignments:
      return "ListPartitionReassignments";
    case ApiKey::kDescribeCluster:
      return "DescribeCluster";
    case ApiKey::kDescribeTopicPartitions:
      return "DescribeTopicPartitions";
    case ApiKey::kInitProducerId:
      return "InitProducerId";
  }
  return "?";
}

// "topic-3" (as LogManager::describe names partitions) split at its last dash.
std::optional<std::pair<std::string, int32_t>> split_partition_name(const std::string& name) {
  const size_t dash = name.rfind('-');
  if (dash == std::string::npos || dash == 0 || dash + 1 == name.size()) return std::nullopt;
  try {
    return std::make_pair(name.substr(0, dash), std::stoi(name.substr(dash + 1)));
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

}  // namespace

RequestHandler::RequestHandler(Broker& broker, Endpoint advertised)
    : broker_(broker),
      advertised_(std::move(advertised)),
      broker_id_(broker.config().broker_id),
      fetch_max_bytes_(broker.config().fetch_max_bytes),
      producers_(std::make_unique<ProducerStates>()),
      next_producer_id_(std::chrono::duration_cast<std::chrono::microseconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count()) {}

RequestHandler::~RequestHandler() = default;

Reply RequestHandler::handle(std::string_view frame,
                             std::chrono::steady_clock::time_point received) const {
  Reply reply;
  try {
    if (frame.size() < 4) {
      reply.close_reason = "a request of " + std::to_string(frame.size()) +
                           " bytes is shorter than a request header";
      return reply;
    }
    Reader peek(frame);
    const int16_t key = peek.int16();
    const int16_t version = peek.int16();
    const std::optional<ApiRange> api = find_api(key);
    if (!api) {
      reply.close_reason = "unknown or unsupported API key " + std::to_string(key);
      return reply;
    }
    Reader in(frame);
    if (api->key == ApiKey::kApiVersions && version > api->max_version) {
      // Kafka (KIP-511) answers a newer ApiVersions than it knows in the v0 layout, with
      // UNSUPPORTED_VERSION and its ranges, so the client can retry with a version both know.
      const RequestHeader header = read_request_header(in, request_header_version(*api, version));
      reply.frame = api_versions(0, header.correlation_id, error::kUnsupportedVersion);
      return reply;
    }
    if (version < api->min_version || version > api->max_version) {
      reply.close_reason = std::string("unsupported version ") + std::to_string(version) + " of " +
                           api_name(api->key) + " (this broker serves " +
                           std::to_string(api->min_version) + " to " +
                           std::to_string(api->max_version) + ")";
      return reply;
    }
    const RequestHeader header = read_request_header(in, request_header_version(*api, version));
    reply = dispatch(*api, frame.substr(in.position()), version, header, received);
  } catch (const ParseError& e) {
    reply = Reply{};
    reply.close_reason = std::string("malformed request: ") + e.what();
  }
  return reply;
}

Reply RequestHandler::dispatch(const ApiRange& api, std::string_view body, int16_t version,
                               const RequestHeader& header,
                               std::chrono::steady_clock::time_point received) const {
  Reply reply;
  switch (api.key) {
    case ApiKey::kApiVersions: {
      Reader b(body);
      (void)read_api_versions_request(b, version);
      reply.frame = api_versions(version, header.correlation_id, error::kNone);
      break;
    }
    case ApiKey::kMetadata:
      reply.frame = metadata(body, version, header.correlation_id);
      break;
    case ApiKey::kDescribeLogDirs:
      reply.frame = describe_log_dirs(body, version, header.correlation_id);
      // An answer naming many partitions was built from many small allocations, all freed now:
      // their pages go back to the kernel (the admin API's DescribeLogDirs does the same).
      return_free_heap_after(reply.frame.size());
      break;
    case ApiKey::kCreateTopics:
      reply.frame = create_topics(body, version, header.correlation_id);
      break;
    case ApiKey::kDeleteTopics:
      reply.frame = delete_topics(body, version, header.correlation_id);
      break;
    case ApiKey::kProduce:
      reply = produce(body, version, header.correlation_id, header.client_id.value_or(""));
      break;
    case ApiKey::kFetch:
      reply = fetch(body, version, header.correlation_id, received);
      break;
    case ApiKey::kListOffsets:
      reply.frame = list_offsets(body, version, header.correlation_id);
      break;
    case ApiKey::kCreatePartitions:
      reply.frame = create_partitions(body, version, header.correlation_id);
      break;
    case ApiKey::kDescribeConfigs:
      reply.frame = describe_configs(body, version, header.correlation_id);
      break;
    case ApiKey::kAlterConfigs:
      reply.frame = alter_configs(body, false, version, header.correlation_id);
      break;
    case ApiKey::kIncrementalAlterConfigs:
      reply.frame = alter_configs(body, true, version, header.correlation_id);
      break;
    case ApiKey::kDescribeCluster:
      reply.frame = describe_cluster(body, version, header.correlation_id);
      break;
    case ApiKey::kDescribeTopicPartitions:
      reply.frame = describe_topic_partitions(body, version, header.correlation_id);
      break;
    case ApiKey::kInitProducerId:
      reply.frame = init_producer_id(body, version, header.correlation_id);
      break;
    case ApiKey::kListPartitionReassignments:
      reply.frame = list_partition_reassignments(body, version, header.correlation_id);
      break;
    case ApiKey::kAlterPartitionReassignments:
      reply.frame = alter_partition_reassignments(body, version, header.correlation_id);
      break;
    case ApiKey::kAlterReplicaLogDirs:
      reply.frame = alter_replica_log_dirs(body, version, header.correlation_id);
      break;
  }
  return reply;
}

RequestHandler::HostedPartitions RequestHandler::hosted_partitions() const {
  HostedPartitions out;
  for (const TopicPartition& tp : broker_.logs().hosted_partitions()) {
    out.by_topic[tp.topic].insert(tp.partition);
  }
  for (const TopicPartition& tp : broker_.logs().offline_partitions()) {
    out.offline.emplace(tp.topic, tp.partition);
  }
  return out;
}

std::set<std::string> RequestHandler::hosted_topics() const {
  std::set<std::string> topics;
  for (const TopicPartition& tp : broker_.logs().hosted_partitions()) topics.insert(tp.topic);
  return topics;
}

std::string RequestHandler::api_versions(int16_t version, int32_t correlation_id,
                                         int16_t error) const {
  ApiVersionsResponse r;
  r.error_code = error;
  for (const ApiRange& api : supported_apis()) {
    r.api_keys.push_back({static_cast<int16_t>(api.key), api.min_version, api.max_version});
  }
  std::sort(r.api_keys.begin(), r.api_keys.end(),
            [](const auto& a, const auto& b) { return a.api_key < b.api_key; });
  Writer out;
  write_response_header(out, correlation_id, 0);  // always v0 for ApiVersions
  write_api_versions_response(out, r, version);
  return out.take();
}

std::string RequestHandler::metadata(std::string_view body, int16_t version,
                                     int32_t correlation_id) const {
  Reader in(body);
  const MetadataRequest request = read_metadata_request(in, version);
  const HostedPartitions here = hosted_partitions();
  const auto& hosted = here.by_topic;
  const auto& offline = here.offline;
  MetadataResponse r;
  r.brokers.push_back({broker_id_, advertised_.host, advertised_.port, std::nullopt});
  const std::string cluster_id = broker_.logs().cluster_id();
  r.cluster_id = cluster_id;
  r.controller_id = broker_id_;
  auto add_topic = [&](const std::string& name, const std::set<int32_t>* partitions) {
    MetadataResponse::Topic t;
    t.name = name;
    if (partitions != nullptr) t.topic_id = topic_id(cluster_id, name);
    if (partitions == nullptr) {
      t.error_code = error::kUnknownTopicOrPartition;
    } else {
      for (int32_t p : *partitions) {
        if (offline.count({name, p}) != 0) {
          // The only replica is on an offline log dir, so the partition has no leader: Kafka's
          // metadata cache answers LEADER_NOT_AVAILABLE, leader -1, and the replica as offline
          // (KRaftMetadataCache: a replica whose directory is not online is offline).
          t.partitions.push_back(
              {error::kLeaderNotAvailable, p, -1, -1, {broker_id_}, {}, {broker_id_}});
        } else {
          t.partitions.push_back({error::kNone, p, broker_id_, -1, {broker_id_}, {broker_id_}, {}});
        }
      }
    }
    r.topics.push_back(std::move(t));
  };
  if (!request.topics && request.topic_ids.empty()) {
    for (const auto& [name, partitions] : hosted) add_topic(name, &partitions);
  } else if (request.topics) {
    std::set<std::string> seen;
    for (const std::string& name : *request.topics) {
      if (!seen.insert(name).second) continue;
      if (std::string why = layout::topic_name_problem(name); !why.empty()) {
        MetadataResponse::Topic invalid;
        invalid.name = name;
        invalid.error_code = error::kInvalidTopicException;
        r.topics.push_back(std::move(invalid));
        continue;
      }
      auto it = hosted.find(name);
      add_topic(name, it == hosted.end() ? nullptr : &it->second);
    }
  }
  // Topics asked for by id alone (v10+): each id is matched against the hosted topics' ids.
  for (const Uuid& id : request.topic_ids) {
    auto it = std::find_if(hosted.begin(), hosted.end(), [&](const auto& entry) {
      return topic_id(cluster_id, entry.first) == id;
    });
    if (it != hosted.end()) {
      add_topic(it->first, &it->second);
    } else {
      MetadataResponse::Topic unknown;
      unknown.name = std::nullopt;
      unknown.topic_id = id;
      unknown.error_code = error::kUnknownTopicId;
      r.topics.push_back(std::move(unknown));
    }
  }
  Writer out;
  write_response_header(out, correlation_id, response_header_version(ApiKey::kMetadata, version));
  write_metadata_response(out, r, version);
  return out.take();
}

std::string RequestHandler::describe_cluster(std::string_view body, int16_t version,
                                             int32_t correlation_id) const {
  Reader in(body);
  const DescribeClusterRequest request = read_describe_cluster_request(in, version);
  DescribeClusterResponse r;
  r.endpoint_type = request.endpoint_type;
  if (request.endpoint_type != endpoint_type::kBroker) {
    // Kafka's broker answers this for controller endpoints (it lists brokers only).
    r.error_code = error::kUnsupportedEndpointType;
    r.error_message = "The broker does not support EndpointType " +
                      std::to_string(static_cast<int>(request.endpoint_type));
  } else {
    r.cluster_id = broker_.logs().cluster_id();
    r.controller_id = broker_id_;
    r.brokers.push_back({broker_id_, advertised_.host, advertised_.port, std::nullopt, false});
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kDescribeCluster, version));
  write_describe_cluster_response(out, r, version);
  return out.take();
}

std::string RequestHandler::describe_topic_partitions(std::string_view body, int16_t version,
                                                      int32_t correlation_id) const {
  Reader in(body);
  const DescribeTopicPartitionsRequest request =
      read_describe_topic_partitions_request(in, version);
  const HostedPartitions here = hosted_partitions();
  const auto& hosted = here.by_topic;
  const auto& offline = here.offline;
  // Kafka answers the topics by name order, from the cursor on, and stops after the partition
  // limit with a cursor to the next partition.
  std::set<std::string> names(request.topics.begin(), request.topics.end());
  if (request.topics.empty()) {
    for (const auto& [name, partitions] : hosted) names.insert(name);
  }
  const std::string cluster_id = broker_.logs().cluster_id();
  int32_t budget = std::clamp(request.response_partition_limit, 1, kMaxPartitionsPerPage);
  DescribeTopicPartitionsResponse r;
  for (const std::string& name : names) {
    if (request.cursor && name < request.cursor->topic_name) continue;
    DescribeTopicPartitionsResponse::Topic t;
    t.name = name;
    auto it = hosted.find(name);
    if (it == hosted.end()) {
      t.error_code = error::kUnknownTopicOrPartition;
      r.topics.push_back(std::move(t));
      continue;
    }
    if (budget == 0) {
      r.next_cursor = TopicPartitionsCursor{name, 0};
      break;
    }
    t.topic_id = topic_id(cluster_id, name);
    for (int32_t p : it->second) {
      if (request.cursor && name == request.cursor->topic_name &&
          p < request.cursor->partition_index) {
        continue;
      }
      if (budget == 0) {
        r.next_cursor = TopicPartitionsCursor{name, p};
        break;
      }
      --budget;
      DescribeTopicPartitionsResponse::Partition part;
      part.partition_index = p;
      part.replica_nodes = {broker_id_};
      part.eligible_leader_replicas = std::vector<int32_t>{};
      part.last_known_elr = std::vector<int32_t>{};
      if (offline.count({name, p}) != 0) {
        part.error_code = error::kLeaderNotAvailable;
        part.leader_id = -1;
        part.offline_replicas = {broker_id_};
      } else {
        part.leader_id = broker_id_;
        part.isr_nodes = {broker_id_};
      }
      t.partitions.push_back(std::move(part));
    }
    r.topics.push_back(std::move(t));
    if (r.next_cursor) break;
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kDescribeTopicPartitions, version));
  write_describe_topic_partitions_response(out, r, version);
  return out.take();
}

std::string RequestHandler::describe_log_dirs(std::string_view body, int16_t version,
                                              int32_t correlation_id) const {
  Reader in(body);
  const DescribeLogDirsRequest request = read_describe_log_dirs_request(in, version);
  std::set<std::pair<std::string, int32_t>> wanted;
  if (request.topics) {
    for (const auto& t : *request.topics) {
      for (int32_t p : t.partitions) wanted.emplace(t.topic, p);
    }
  }
  DescribeLogDirsResponse r;
  for (const LogDirDescription& d : broker_.logs().describe()) {
    DescribeLogDirsResponse::Result result;
    result.error_code = error_code_of(kafka_error_code(d.error));
    result.log_dir = d.log_dir;
    const bool online = d.error == StorageErrc::kNone;
    result.total_bytes = online && d.space_known ? static_cast<int64_t>(d.total_bytes) : -1;
    result.usable_bytes = online && d.space_known ? static_cast<int64_t>(d.usable_bytes) : -1;
    result.is_cordoned = d.cordoned;
    std::map<std::string, std::vector<DescribeLogDirsResponse::Partition>> topics;
    for (const PartitionDescription& p : d.partitions) {
      auto name = split_partition_name(p.partition);
      if (!name) continue;
      if (request.topics && wanted.count(*name) == 0) continue;
      topics[name->first].push_back({name->second, static_cast<int64_t>(p.size),
                                     static_cast<int64_t>(p.offset_lag), p.is_future});
    }
    for (auto& [name, partitions] : topics) result.topics.push_back({name, std::move(partitions)});
    r.results.push_back(std::move(result));
  }
  const ApiRange api = *find_api(static_cast<int16_t>(ApiKey::kDescribeLogDirs));
  Writer out;
  write_response_header(out, correlation_id, response_header_version(api, version));
  write_describe_log_dirs_response(out, r, version);
  return out.take();
}

}  // namespace lds::kafka
