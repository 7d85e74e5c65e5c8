// admin_api.cpp: decodes admin requests, calls the broker, encodes Kafka-style responses.
#include "admin/admin_api.h"

#include <chrono>
#include <cstdio>
#include <ctime>
#include <limits>

#include "admin/admin_logger.h"
#include "admin/balance_api.h"
#include "broker/broker.h"
#include "broker/kafka_errors.h"
#include "io/log_layout.h"
#include "util/errors.h"

namespace lds {
namespace {

using nlohmann::json;

// The active strategy's options (log.directory.select.<name>.*) as the config sets them.
json strategy_options(const BrokerConfig& config, const std::string& name) {
  json options = json::object();
  for (const auto& [key, value] : config.options_of(name)) options[key] = value;
  return options;
}

json optional_number(std::optional<double> v) { return v ? json(*v) : json(nullptr); }

KafkaError bad_request(const std::string& message) {
  return KafkaError(ErrorCode::kInvalidRequest, message);
}

const json& field(const json& request, const char* name) {
  auto it = request.find(name);
  if (it == request.end()) throw bad_request(std::string("Field '") + name + "' is required.");
  return *it;
}

std::string string_field(const json& request, const char* name) {
  const json& v = field(request, name);
  if (!v.is_string()) throw bad_request(std::string("Field '") + name + "' must be a string.");
  return v.get<std::string>();
}

int32_t partition_value(const json& v, const char* name) {
  if (!v.is_number_integer()) {
    throw bad_request(std::string("Field '") + name + "' must be an integer partition number.");
  }
  if (v.is_number_unsigned()
          ? v.get<uint64_t>() > std::numeric_limits<int32_t>::max()
          : (v.get<int64_t>() < 0 || v.get<int64_t>() > std::numeric_limits<int32_t>::max())) {
    throw bad_request(std::string("Field '") + name + "' must be a partition number from 0 to " +
                      std::to_string(std::numeric_limits<int32_t>::max()) + ", not " + v.dump() +
                      ".");
  }
  return v.get<int32_t>();
}

uint64_t bytes_value(const json& v, const char* name) {
  if (!v.is_number_integer() || (!v.is_number_unsigned() && v.get<int64_t>() < 0)) {
    throw bad_request(std::string("Field '") + name + "' must be a non-negative integer.");
  }
  return v.get<uint64_t>();
}

}  // namespace

json error_response(ErrorCode error, const std::string& message) {
  return json{{"error", error_name(error)}, {"message", message}};
}

json ok_response() { return error_response(ErrorCode::kNone, ""); }

AdminApi::AdminApi(Broker& broker, std::string listeners)
    : broker_(broker),
      max_request_bytes_(static_cast<uint64_t>(broker.config().socket_request_max_bytes)),
      listeners_(std::move(listeners)) {}

std::string AdminApi::handle_line(std::string_view line) {
  json request = json::parse(line.begin(), line.end(), nullptr, /*allow_exceptions=*/false);
  if (request.is_discarded()) {
    return error_response(ErrorCode::kInvalidRequest, "The request is not valid JSON.").dump();
  }
  return handle(request).dump(-1, ' ', false, json::error_handler_t::replace);
}

json AdminApi::handle(const json& request) {
  try {
    if (!request.is_object()) throw bad_request("The request must be a JSON object.");
    const std::string api = string_field(request, "api");
    if (api == "DescribeLogDirs") return describe_log_dirs();
    if (api == "CreatePartitions") return create_partitions(request);
    if (api == "DescribePlacement") return describe_placement(request);
    if (api == "ExplainPlacement") return explain_placement(request);
    if (api == "DeleteTopic") return delete_topic(request);
    if (api == "Produce") return produce(request);
    if (api == "AlterReplicaLogDirs") return alter_replica_log_dirs(request);
    if (api == "IncrementalAlterConfigs") return incremental_alter_configs(request);
    if (api == "DescribeConfigs") return describe_configs();
    if (api == "DescribeBalance") return describe_balance(broker_);
    if (api == "Balance") return balance(broker_, request);
    if (api == "DrainLogDir") return drain_log_dir(broker_, request);
    throw bad_request(
        "Unknown api '" + api +
        "'; expected DescribeLogDirs, CreatePartitions, DescribePlacement, ExplainPlacement, "
        "DeleteTopic, Produce, AlterReplicaLogDirs, IncrementalAlterConfigs, DescribeConfigs, "
        "DescribeBalance, Balance or DrainLogDir.");
  } catch (const KafkaError& e) {
    return error_response(e.code(), e.what());
  } catch (const StorageError& e) {
    const KafkaError answer = kafka_error(e);
    return error_response(answer.code(), answer.what());
  } catch (const std::exception& e) {
    admin_logger()->error("Request failed unexpectedly: {}", e.what());
    return error_response(ErrorCode::kUnknownServerError, e.what());
  }
}

json AdminApi::describe_log_dirs() {
  const StrategyInfo strategy = broker_.strategy_info();
  json dirs = json::array();
  // The last failed move of each replica, listed under the destination it did not reach.
  const std::vector<FailedMoveDescription> failed = broker_.logs().failed_moves();
  // A new topic's partition, for each dir's projected fill: what `size` would sort it on now.
  const uint64_t expected = broker_.logs().new_partition_expected_bytes();
  for (const auto& d : broker_.logs().describe()) {
    json failed_moves = json::array();
    for (const auto& f : failed) {
      if (f.log_dir != d.log_dir) continue;
      failed_moves.push_back({{"partition", f.partition},
                              {"error", error_name(kafka_error_code(f.error))},
                              {"message", f.message}});
    }
    json partitions = json::array();
    for (const auto& p : d.partitions) {
      partitions.push_back({{"partition", p.partition},
                            {"size", p.size},
                            {"offsetLag", p.offset_lag},
                            {"isFuture", p.is_future}});
    }
    dirs.push_back(
        {{"logDir", d.log_dir},
         {"error", d.error == StorageErrc::kNone ? json(nullptr)
                                                 : json(error_name(kafka_error_code(d.error)))},
         {"errorMessage", d.error_message},
         {"directoryId", d.directory_id},
         {"totalBytes", d.total_bytes},
         {"usableBytes", d.usable_bytes},
         {"reservedBytes", d.reserved_bytes},
         {"projectedFillPercent",
          d.error == StorageErrc::kNone && d.space_known
              ? optional_number(projected_fill_percent(d.total_bytes, d.usable_bytes,
                                                       d.reserved_bytes, expected))
              : json(nullptr)},
         {"isCordoned", d.cordoned},
         {"partitions", partitions},
         {"unreadablePartitions", d.unreadable_partitions},
         {"unreadableBytes", d.unreadable_bytes},
         {"failedMoves", failed_moves}});
  }
  json out = ok_response();
  out["version"] = 1;
  out["brokers"] = json::array({{{"broker", broker_.config().broker_id}, {"logDirs", dirs}}});
  out["newPartitionExpectedBytes"] = expected;
  out["listeners"] = listeners_;
  out["strategy"] = {{"name", strategy.name},
                     {"version", strategy.version},
                     {"generation", strategy.generation},
                     {"honorsCordon", strategy.honors_cordon},
                     {"swaps", strategy.swaps},
                     {"fallbacks", strategy.fallbacks},
                     {"options", strategy_options(broker_.config(), strategy.name)}};
  return out;
}

namespace {

// What CreatePartitions and DescribePlacement are asked: a topic, its partitions, the estimates.
struct PartitionsRequest {
  std::string topic;
  std::vector<int32_t> numbers;
  std::optional<uint64_t> expected;
  std::optional<uint64_t> expected_rate;  // ABI 1.1's lds_request.expected_bytes_in_per_sec
};

PartitionsRequest partitions_request(const json& request) {
  PartitionsRequest r;
  r.topic = string_field(request, "topic");
  const json& list = field(request, "partitions");
  if (!list.is_array() || list.empty()) {
    throw bad_request("Field 'partitions' must be a non-empty array of partition numbers.");
  }
  if (auto it = request.find("expectedBytes"); it != request.end() && !it->is_null()) {
    r.expected = bytes_value(*it, "expectedBytes");
  }
  if (auto it = request.find("expectedBytesInPerSec"); it != request.end() && !it->is_null()) {
    r.expected_rate = bytes_value(*it, "expectedBytesInPerSec");
  }
  for (const auto& v : list) r.numbers.push_back(partition_value(v, "partitions"));
  return r;
}

// A placement's explanation, with what a creation would answer: `error` (kNone when it would place
// the partition) and its `message`.
json placement_json(const PlacementExplanation& e, ErrorCode error = ErrorCode::kNone,
                    const std::string& message = "") {
  json dirs = json::array();
  json first = nullptr;
  for (const PlacementCandidate& c : e.dirs) {
    if (c.rank == 1) first = c.log_dir;
    const bool offline = c.left_out == "offline";
    dirs.push_back(
        {{"logDir", c.log_dir},
         {"rank", c.rank > 0 ? json(c.rank) : json(nullptr)},
         {"leftOut", c.left_out.empty() ? json(nullptr) : json(c.left_out)},
         {"spaceKnown", c.space_known},
         {"fillPercent", optional_number(c.fill_percent())},
         {"projectedFillPercent", optional_number(c.projected_fill_percent(e.expected_bytes))},
         {"score", optional_number(c.score)},
         {"totalBytes", offline || !c.space_known ? json(nullptr) : json(c.total_bytes)},
         {"usableBytes", offline || !c.space_known ? json(nullptr) : json(c.usable_bytes)},
         {"reservedBytes", offline ? json(nullptr) : json(c.reserved_bytes)},
         {"partitionCount", offline ? json(nullptr) : json(c.partition_count)},
         {"topicPartitionCount", offline ? json(nullptr) : json(c.topic_partition_count)}});
  }
  const bool existing = !e.existing_log_dir.empty();
  return {{"partition", e.partition},
          {"logDir", existing ? json(e.existing_log_dir) : first},
          {"exists", existing},
          {"strategy", e.strategy},
          {"generation", e.generation},
          {"fellBack", e.fell_back},
          {"scoreName", e.score_name.empty() ? json(nullptr) : json(e.score_name)},
          {"expectedBytes", e.expected_bytes},
          {"dirs", std::move(dirs)},
          {"error", error_name(error)},
          {"message", message}};
}

// "2026-12-03T08:10:00.123Z": a placement's time, UTC, to the millisecond.
std::string utc_text(std::chrono::system_clock::time_point t) {
  const auto ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  const std::time_t seconds = static_cast<std::time_t>(ms / 1000);
  std::tm utc{};
  gmtime_r(&seconds, &utc);
  char text[80];
  std::snprintf(text, sizeof text, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<int>(ms % 1000));
  return text;
}

}  // namespace

json AdminApi::explain_placement(const json& request) {
  const TopicPartition tp{string_field(request, "topic"),
                          partition_value(field(request, "partition"), "partition")};
  const LogManager::PlacementRecall recall = broker_.logs().past_placement(tp);
  json out = ok_response();
  out["topic"] = tp.topic;
  out["partition"] = tp.partition;
  out["logDir"] = recall.log_dir;
  out["kept"] = recall.placement.has_value();
  if (!recall.placement) {
    out["placement"] = nullptr;
    out["reason"] = "The explanation of " + tp.str() +
                    "'s placement is no longer kept: the broker keeps those of its " +
                    std::to_string(broker_.logs().kept_placements()) +
                    " most recent placements since it started, and " + tp.str() +
                    " was placed before them or before the last restart.";
    return out;
  }
  json placement = placement_json(recall.placement->explanation);
  placement.erase("exists");
  placement["logDir"] = recall.placement->placed_in;
  placement["placedAt"] = utc_text(recall.placement->placed_at);
  out["placement"] = std::move(placement);
  out["reason"] = "";
  return out;
}

json AdminApi::describe_placement(const json& request) {
  const PartitionsRequest r = partitions_request(request);
  json results = json::array();
  for (int32_t p : r.numbers) {
    const LogManager::PlacementPreview preview =
        broker_.logs().explain_placement(r.topic, p, r.expected, r.expected_rate);
    const KafkaError refusal = kafka_error(preview.error, preview.message);
    results.push_back(placement_json(preview, refusal.code(), refusal.what()));
  }
  json out = ok_response();
  out["topic"] = r.topic;
  out["partitions"] = std::move(results);
  return out;
}

json AdminApi::create_partitions(const json& request) {
  const PartitionsRequest req = partitions_request(request);
  json results = json::array();
  for (int32_t p : req.numbers) {
    json r{{"partition", p}};
    try {
      PlacementResult placed =
          broker_.logs().create_partition(req.topic, p, req.expected, req.expected_rate);
      r["logDir"] = placed.log_dir;
      r["created"] = placed.created;
      r["strategy"] = placed.strategy;
      r["generation"] = placed.generation;
      r["error"] = error_name(ErrorCode::kNone);
      r["message"] = "";
    } catch (const StorageError& e) {
      const KafkaError answer = kafka_error(e);
      r["logDir"] = nullptr;
      r["created"] = false;
      r["error"] = error_name(answer.code());
      r["message"] = answer.what();
    }
    results.push_back(std::move(r));
  }
  json out = ok_response();
  out["topic"] = req.topic;
  out["partitions"] = std::move(results);
  return out;
}

json AdminApi::delete_topic(const json& request) {
  const std::string topic = string_field(request, "topic");
  const DeletedTopic done = broker_.logs().delete_topic(topic);
  json pending = json::array();
  for (const PendingDeletion& d : done.pending) {
    pending.push_back({{"partition", layout::partition_dir(d.topic, d.partition)},
                       {"logDir", d.log_dir},
                       {"reason", "Log directory " + d.log_dir + " is offline: " + d.reason}});
  }
  json out = ok_response();
  out["deleted"] = done.deleted;
  out["pending"] = std::move(pending);
  return out;
}

json AdminApi::produce(const json& request) {
  const std::string topic = string_field(request, "topic");
  const int32_t partition = partition_value(field(request, "partition"), "partition");
  const uint64_t bytes = bytes_value(field(request, "bytes"), "bytes");
  // Kafka refuses a request above socket.request.max.bytes before reading it; here the Produce's
  // byte count is its size, so it is refused before a byte is written.
  if (bytes > max_request_bytes_) {
    throw bad_request("Invalid receive (size = " + std::to_string(bytes) + " larger than " +
                      std::to_string(max_request_bytes_) +
                      "): a Produce may carry at most socket.request.max.bytes (" +
                      std::to_string(max_request_bytes_) +
                      ") bytes; send more as several requests.");
  }
  json out = ok_response();
  out["size"] = broker_.logs().append(topic, partition, bytes);
  return out;
}

json AdminApi::alter_replica_log_dirs(const json& request) {
  const json& dirs = field(request, "dirs");
  if (!dirs.is_array()) throw bad_request("Field 'dirs' must be an array.");
  // Validate the whole request before moving anything.
  std::vector<std::pair<std::string, TopicPartition>> moves;
  for (const auto& d : dirs) {
    if (!d.is_object()) throw bad_request("Each entry of 'dirs' must be an object.");
    const std::string path = string_field(d, "path");
    const json& partitions = field(d, "partitions");
    if (!partitions.is_array()) throw bad_request("Field 'partitions' must be an array.");
    for (const auto& p : partitions) {
      if (!p.is_object()) throw bad_request("Each entry of 'partitions' must be an object.");
      moves.push_back(
          {path, {string_field(p, "topic"), partition_value(field(p, "partition"), "partition")}});
    }
  }
  json results = json::array();
  for (const auto& [path, tp] : moves) {
    LogManager::AlterResult r;
    if (std::string why = layout::topic_name_problem(tp.topic); !why.empty()) {
      r = {StorageErrc::kInvalidTopicName, why};
    } else {
      r = broker_.logs().alter_replica_log_dir(tp, path);
    }
    const KafkaError answer = kafka_error(r.error, r.message);
    results.push_back({{"topic", tp.topic},
                       {"partition", tp.partition},
                       {"path", path},
                       {"error", error_name(answer.code())},
                       {"message", answer.what()}});
  }
  json out = ok_response();
  out["results"] = std::move(results);
  return out;
}

json AdminApi::incremental_alter_configs(const json& request) {
  const json& configs = field(request, "configs");
  if (!configs.is_array()) throw bad_request("Field 'configs' must be an array.");
  std::vector<ConfigAlteration> changes;
  for (const auto& c : configs) {
    if (!c.is_object()) throw bad_request("Each entry of 'configs' must be an object.");
    ConfigAlteration a;
    a.name = string_field(c, "name");
    std::string op = c.contains("op") ? string_field(c, "op") : "SET";
    if (op == "SET") {
      a.op = ConfigAlteration::Op::kSet;
      const json& v = field(c, "value");
      if (v.is_string()) {
        a.value = v.get<std::string>();
      } else if (v.is_number() || v.is_boolean()) {
        a.value = v.dump();
      } else {
        throw bad_request("The value of config " + a.name +
                          " must be a string, number or boolean.");
      }
    } else if (op == "DELETE") {
      a.op = ConfigAlteration::Op::kDelete;
    } else {
      throw bad_request("Config op '" + op + "' is not supported; use SET or DELETE.");
    }
    changes.push_back(std::move(a));
  }
  broker_.alter_configs(changes, ConfigChangeSource::kAdminApi);
  return ok_response();
}

json AdminApi::describe_configs() {
  json list = json::array();
  for (const auto& c : broker_.describe_configs()) {
    json synonyms = json::array();
    for (const auto& [source, value] : c.synonyms) {
      synonyms.push_back({{"source", source}, {"value", value}});
    }
    list.push_back({{"name", c.name},
                    {"value", c.value},
                    {"source", c.source},
                    {"dynamic", c.dynamic},
                    {"sensitive", false},
                    {"synonyms", std::move(synonyms)}});
  }
  const StrategyInfo s = broker_.strategy_info();
  json out = ok_response();
  out["configs"] = std::move(list);
  out["strategy"] = {{"name", s.name},
                     {"version", s.version},
                     {"generation", s.generation},
                     {"swaps", s.swaps},
                     {"fallbacks", s.fallbacks}};
  return out;
}

}  // namespace lds
