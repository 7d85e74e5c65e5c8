// request_handler/topics.cpp: CreateTopics, DeleteTopics and CreatePartitions against the
// LogManager.
#include <charconv>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "broker/broker.h"
#include "broker/kafka_errors.h"
#include "io/log_layout.h"
#include "kafka/protocol/api_keys.h"
#include "kafka/protocol/create_partitions.h"
#include "kafka/protocol/create_topics.h"
#include "kafka/protocol/delete_topics.h"
#include "kafka/protocol/headers.h"
#include "kafka/protocol/topic_id.h"
#include "kafka/server/request_handler.h"
#include "kafka/server/topic_configs.h"

namespace lds::kafka {
namespace {

// What a CreateTopics entry asks for once checked: the partition count, the expected size and
// the expected append rate of each partition.
struct TopicPlan {
  int32_t partitions = 0;
  std::optional<uint64_t> expected_bytes;
  std::optional<uint64_t> expected_bytes_in_per_sec;
};

// The topic config that carries a partition's expected append rate into placement (ABI 1.1's
// lds_request.expected_bytes_in_per_sec).
constexpr std::string_view kExpectedRateConfig = "lds.expected.bytes.in.per.sec";

// A refused entry: its error code and Kafka's message.
struct Refusal {
  int16_t code = 0;
  std::string message;
};

// INVALID_REPLICA_ASSIGNMENT when an explicit assignment of `partition` names any broker but this
// one alone: a broker without replicas can host only its own.
std::optional<Refusal> foreign_assignment(int32_t partition, const std::vector<int32_t>& brokers,
                                          int32_t broker_id) {
  if (brokers == std::vector<int32_t>{broker_id}) return std::nullopt;
  std::string named;
  for (int32_t b : brokers) named += (named.empty() ? "" : ", ") + std::to_string(b);
  return Refusal{error::kInvalidReplicaAssignment,
                 "Partition " + std::to_string(partition) + " is assigned to [" + named +
                     "]; this broker (" + std::to_string(broker_id) +
                     ") is the only one, so each partition must name it alone."};
}

// The number of partitions a request entry asks for, or why it cannot be created here. A broker
// without replicas accepts only replication factor 1 (or -1, the default, which is 1), and
// explicit assignments only when they name this broker alone.
std::variant<TopicPlan, Refusal> plan_topic(const CreateTopicsRequest::Topic& t,
                                            int32_t broker_id) {
  TopicPlan plan;
  if (!t.assignments.empty()) {
    if (t.num_partitions != -1 || t.replication_factor != -1) {
      return Refusal{error::kInvalidRequest,
                     "Both numPartitions or replicationFactor and replicasAssignments were set. "
                     "Both cannot be used at the same time."};
    }
    std::set<int32_t> indexes;
    for (const auto& a : t.assignments) {
      if (auto refusal = foreign_assignment(a.partition_index, a.broker_ids, broker_id)) {
        return *refusal;
      }
      indexes.insert(a.partition_index);
    }
    const auto n = static_cast<int32_t>(t.assignments.size());
    if (static_cast<int32_t>(indexes.size()) != n || *indexes.begin() != 0 ||
        *indexes.rbegin() != n - 1) {
      return Refusal{error::kInvalidReplicaAssignment,
                     "Partitions should be a consecutive 0-based integer sequence"};
    }
    plan.partitions = n;
  } else {
    // KIP-464: -1 takes the broker's defaults (num.partitions and default.replication.factor,
    // both 1 here as in Kafka).
    plan.partitions = t.num_partitions == -1 ? 1 : t.num_partitions;
    if (plan.partitions <= 0) {
      return Refusal{error::kInvalidPartitions,
                     "Number of partitions was set to an invalid non-positive value."};
    }
    if (t.replication_factor != -1 && t.replication_factor <= 0) {
      return Refusal{error::kInvalidReplicationFactor,
                     "Replication factor was set to an invalid non-positive value."};
    }
    if (t.replication_factor > 1) {
      return Refusal{error::kInvalidReplicationFactor,
                     "Unable to replicate the partition " + std::to_string(t.replication_factor) +
                         " time(s): The target replication factor of " +
                         std::to_string(t.replication_factor) +
                         " cannot be reached because only 1 broker(s) are registered."};
    }
  }
  // retention.bytes, when set, is the partition's expected size for placement (DESIGN 4), and
  // lds.expected.bytes.in.per.sec its expected append rate; other topic configs are accepted and
  // not kept.
  for (const auto& c : t.configs) {
    if (!c.value || (c.name != "retention.bytes" && c.name != kExpectedRateConfig)) continue;
    int64_t v = 0;
    const std::string& text = *c.value;
    auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || ptr != text.data() + text.size()) {
      return Refusal{error::kInvalidConfig, "Invalid value " + text + " for configuration " +
                                                c.name + ": Not a number of type LONG"};
    }
    if (v <= 0) continue;
    (c.name == kExpectedRateConfig ? plan.expected_bytes_in_per_sec : plan.expected_bytes) =
        static_cast<uint64_t>(v);
  }
  return plan;
}

}  // namespace

namespace {

// Kafka's controller refuses a request that would create more partitions than this
// (ReplicationControlManager.MAX_PARTITIONS_PER_BATCH), whole, with this sentence: a client cannot
// make the broker create partitions without end.
constexpr int64_t kMaxPartitionsPerRequest = 10000;
constexpr const char* kTooManyPartitions = "Excessively large number of partitions per request.";

}  // namespace

std::string RequestHandler::create_topics(std::string_view body, int16_t version,
                                          int32_t correlation_id) const {
  Reader in(body);
  const CreateTopicsRequest request = read_create_topics_request(in, version);
  const std::set<std::string> hosted = hosted_topics();
  std::map<std::string, int> mentions;
  for (const auto& t : request.topics) ++mentions[t.name];

  int64_t requested = 0;
  for (const auto& t : request.topics) {
    requested += t.num_partitions > 0    ? t.num_partitions
                 : t.assignments.empty() ? 1
                                         : static_cast<int64_t>(t.assignments.size());
  }

  const std::string cluster_id = broker_.logs().cluster_id();
  std::optional<std::vector<DescribedConfig>> described;  // read once, when a topic needs it
  CreateTopicsResponse r;
  for (const auto& t : request.topics) {
    CreateTopicsResponse::Topic result;
    result.name = t.name;
    auto refuse = [&](int16_t code, std::string message) {
      result.error_code = code;
      result.error_message = std::move(message);
    };
    if (requested > kMaxPartitionsPerRequest) {
      refuse(error::kPolicyViolation, kTooManyPartitions);
    } else if (mentions[t.name] > 1) {
      refuse(error::kInvalidRequest,
             "Create topics request contains multiple entries for the topic " + t.name + ".");
    } else if (std::string why = layout::topic_name_problem(t.name); !why.empty()) {
      refuse(error::kInvalidTopicException, why);
    } else if (hosted.count(t.name) != 0) {
      refuse(error::kTopicAlreadyExists, "Topic '" + t.name + "' already exists.");
    } else if (std::string collision = broker_.logs().topic_collision_problem(t.name);
               !collision.empty()) {
      refuse(error::kInvalidTopicException, collision);
    } else {
      auto plan = plan_topic(t, broker_id_);
      if (auto* refusal = std::get_if<Refusal>(&plan)) {
        refuse(refusal->code, refusal->message);
      } else {
        result.num_partitions = std::get<TopicPlan>(plan).partitions;
      }
      if (result.error_code == error::kNone && !request.validate_only) {
        const TopicPlan& p = std::get<TopicPlan>(plan);
        for (int32_t partition = 0; partition < p.partitions; ++partition) {
          try {
            const PlacementResult placed = broker_.logs().create_partition(
                t.name, partition, p.expected_bytes, p.expected_bytes_in_per_sec);
            if (!placed.created && partition == 0) {
              // Created meanwhile by another request.
              refuse(error::kTopicAlreadyExists, "Topic '" + t.name + "' already exists.");
              break;
            }
          } catch (const StorageError& e) {
            refuse(error_code_of(kafka_error_code(e.code())), kafka_error(e).what());
            break;
          }
        }
      }
    }
    if (result.error_code == error::kNone) {
      // Kafka answers what the topic got (v5+): its partitions, replication factor and configs,
      // and its id (v7+).
      result.replication_factor = 1;
      result.topic_id = topic_id(cluster_id, t.name);
      if (version >= 5) {
        if (!described) described = broker_.describe_configs();
        result.configs = topic_config_entries(*described, std::nullopt, false);
      }
    } else {
      result.num_partitions = -1;
    }
    r.topics.push_back(std::move(result));
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kCreateTopics, version));
  write_create_topics_response(out, r, version);
  return out.take();
}

std::string RequestHandler::delete_topics(std::string_view body, int16_t version,
                                          int32_t correlation_id) const {
  Reader in(body);
  const DeleteTopicsRequest request = read_delete_topics_request(in, version);
  const std::string cluster_id = broker_.logs().cluster_id();
  const std::set<std::string> hosted = hosted_topics();
  DeleteTopicsResponse r;
  for (const DeleteTopicsRequest::Topic& topic : request.topics) {
    DeleteTopicsResponse::Result result;
    result.name = topic.name;
    result.topic_id = topic.topic_id;
    if (!topic.name) {
      // By id (v6+): the hosted topic whose id it is, else Kafka's UNKNOWN_TOPIC_ID.
      for (const std::string& name : hosted) {
        if (topic_id(cluster_id, name) == topic.topic_id) result.name = name;
      }
      if (!result.name) {
        result.error_code = error::kUnknownTopicId;
        result.error_message = "This server does not host this topic ID.";
        r.responses.push_back(std::move(result));
        continue;
      }
    }
    if (hosted.count(*result.name) != 0) result.topic_id = topic_id(cluster_id, *result.name);
    try {
      broker_.logs().delete_topic(*result.name);
    } catch (const StorageError& e) {
      const KafkaError answer = kafka_error(e);
      result.error_code = error_code_of(answer.code());
      result.error_message = answer.what();
    }
    r.responses.push_back(std::move(result));
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kDeleteTopics, version));
  write_delete_topics_response(out, r, version);
  return out.take();
}

}  // namespace lds::kafka

namespace lds::kafka {

std::string RequestHandler::create_partitions(std::string_view body, int16_t version,
                                              int32_t correlation_id) const {
  Reader in(body);
  const CreatePartitionsRequest request = read_create_partitions_request(in, version);
  const std::map<std::string, std::set<int32_t>> hosted = hosted_partitions().by_topic;
  std::map<std::string, int> mentions;
  for (const auto& t : request.topics) ++mentions[t.name];

  int64_t requested = 0;
  for (const auto& t : request.topics) {
    auto it = hosted.find(t.name);
    const auto current = it == hosted.end() ? 0 : static_cast<int64_t>(it->second.size());
    requested += std::max<int64_t>(0, int64_t{t.count} - current);
  }

  CreatePartitionsResponse r;
  for (const auto& t : request.topics) {
    CreatePartitionsResponse::Result result;
    result.name = t.name;
    auto refuse = [&](int16_t code, std::optional<std::string> message) {
      result.error_code = code;
      result.error_message = std::move(message);
    };
    if (requested > kMaxPartitionsPerRequest) {
      refuse(error::kPolicyViolation, kTooManyPartitions);
      r.results.push_back(std::move(result));
      continue;
    }
    auto it = hosted.find(t.name);
    // The partitions to add: the indexes below the new count that this broker does not host, so
    // that a topic the admin API created with gaps ends with exactly `count` partitions.
    std::vector<int32_t> added;
    const auto current = it == hosted.end() ? 0 : static_cast<int32_t>(it->second.size());
    if (it != hosted.end()) {
      for (int32_t p = 0; p < t.count && static_cast<int32_t>(added.size()) < t.count - current;
           ++p) {
        if (it->second.count(p) == 0) added.push_back(p);
      }
    }
    if (mentions[t.name] > 1) {
      refuse(error::kInvalidRequest, "Duplicate topic in request.");
    } else if (it == hosted.end()) {
      refuse(error::kUnknownTopicOrPartition, std::nullopt);
    } else if (t.count == current) {
      // Kafka's controller (ReplicationControlManager.createPartitions).
      refuse(error::kInvalidPartitions,
             "Topic already has " + std::to_string(current) + " partition(s).");
    } else if (t.count < current) {
      refuse(error::kInvalidPartitions, "The topic " + t.name + " currently has " +
                                            std::to_string(current) + " partition(s); " +
                                            std::to_string(t.count) + " would not be an increase.");
    } else if (t.assignments && t.assignments->size() != added.size()) {
      refuse(error::kInvalidReplicaAssignment, "Attempted to add " + std::to_string(added.size()) +
                                                   " additional partition(s), but only " +
                                                   std::to_string(t.assignments->size()) +
                                                   " assignment(s) were specified.");
    } else {
      std::optional<Refusal> foreign;
      for (size_t i = 0; t.assignments && i < t.assignments->size() && !foreign; ++i) {
        foreign = foreign_assignment(added[i], (*t.assignments)[i], broker_id_);
      }
      if (foreign) {
        refuse(foreign->code, foreign->message);
      } else if (!request.validate_only) {
        for (int32_t partition : added) {
          try {
            (void)broker_.logs().create_partition(t.name, partition);
          } catch (const StorageError& e) {
            refuse(error_code_of(kafka_error_code(e.code())), kafka_error(e).what());
            break;
          }
        }
      }
    }
    r.results.push_back(std::move(result));
  }
  Writer out;
  write_response_header(out, correlation_id,
                        response_header_version(ApiKey::kCreatePartitions, version));
  write_create_partitions_response(out, r, version);
  return out.take();
}

}  // namespace lds::kafka
