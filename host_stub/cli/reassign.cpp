// reassign.cpp: `lds-host reassign`: applies and verifies the log_dirs of a Kafka reassignment file
// on this broker.
#include "cli/reassign.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>
#include <tuple>

#include "admin/admin_client.h"
#include "cli/client.h"
#include "cli/command.h"
#include "cli/output.h"
#include "cli/progress_bar.h"

namespace lds::cli {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr const char* kAnyLogDir = "any";

template <typename T>
std::string kafka_list(const std::vector<T>& values) {  // Java's List.toString: [a, b]
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < values.size(); ++i) out << (i ? ", " : "") << values[i];
  out << "]";
  return out.str();
}

// One replica of this broker to place in a log dir, keyed "topic-partition-broker" as Kafka's
// TopicPartitionReplica prints.
struct ReplicaTarget {
  std::string topic;
  int32_t partition = 0;
  std::string log_dir;
  std::string name(int32_t broker) const {
    return topic + "-" + std::to_string(partition) + "-" + std::to_string(broker);
  }
};

json call(AdminClient& client, const json& request) {
  json response = json::parse(client.call(request.dump()));
  if (response.value("error", "") != kNone) {
    throw std::runtime_error(response.value("error", kUnknownServerError) + ": " +
                             response.value("message", ""));
  }
  return response;
}

// Where each partition of this broker lives now: current dir and future (move target) dir.
struct ReplicaLocation {
  std::string current;
  std::string future;
  uint64_t size = 0;
  uint64_t lag = 0;
  // The last failed move of the replica: the dir it did not reach, the error name and sentence.
  std::string failed_dir;
  std::string failed_error;
  std::string failed_message;
};

std::map<std::string, ReplicaLocation> locate(const json& describe, int32_t* broker) {
  std::map<std::string, ReplicaLocation> out;
  const json& b = describe["brokers"][0];
  *broker = b["broker"].get<int32_t>();
  for (const auto& dir : b["logDirs"]) {
    // A move may have failed because its destination went offline: listed there too.
    for (const auto& f : dir.value("failedMoves", json::array())) {
      ReplicaLocation& loc = out[f["partition"].get<std::string>()];
      loc.failed_dir = dir["logDir"].get<std::string>();
      loc.failed_error = f["error"].get<std::string>();
      loc.failed_message = f["message"].get<std::string>();
    }
    if (!dir["error"].is_null()) continue;
    for (const auto& p : dir["partitions"]) {
      ReplicaLocation& loc = out[p["partition"].get<std::string>()];
      if (p["isFuture"].get<bool>()) {
        loc.future = dir["logDir"].get<std::string>();
        loc.lag = p["offsetLag"].get<uint64_t>();
      } else {
        loc.current = dir["logDir"].get<std::string>();
        loc.size = p["size"].get<uint64_t>();
      }
    }
  }
  return out;
}

std::vector<ReplicaTarget> targets_for(const std::vector<ReassignmentEntry>& entries,
                                       int32_t broker) {
  std::vector<ReplicaTarget> out;
  for (const auto& e : entries) {
    for (size_t i = 0; i < e.replicas.size(); ++i) {
      if (e.replicas[i] == broker && e.log_dirs[i] != kAnyLogDir) {
        out.push_back({e.topic, e.partition, e.log_dirs[i]});
      }
    }
  }
  // One broker: Kafka's order of replicas (broker, topic, partition) is topic, then partition.
  std::sort(out.begin(), out.end(), [](const ReplicaTarget& a, const ReplicaTarget& b) {
    return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
  });
  return out;
}

std::string joined(const std::vector<std::string>& names) {
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ",") + n;
  return all;
}

// Kafka's JSON decoding (DecodeJson): a value of the wrong type, or a number outside int32, is
// refused with "Expected `<type>` value, received <the JSON text>".
[[noreturn]] void expected(const char* type, const json& value) {
  throw std::runtime_error(std::string("Expected `") + type + "` value, received " + value.dump());
}

int32_t json_int32(const json& value) {
  if (value.is_number_integer()) {
    // nlohmann keeps large values unsigned; compare before any narrowing.
    if (value.is_number_unsigned()) {
      const auto u = value.get<uint64_t>();
      if (u <= static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
        return static_cast<int32_t>(u);
      }
    } else {
      const auto i = value.get<int64_t>();
      if (i >= std::numeric_limits<int32_t>::min() && i <= std::numeric_limits<int32_t>::max()) {
        return static_cast<int32_t>(i);
      }
    }
  }
  expected("Integer", value);
}

std::string json_string(const json& value) {
  if (!value.is_string()) expected("String", value);
  return value.get<std::string>();
}

const json& json_array(const json& value) {
  if (!value.is_array()) expected("JSON array", value);
  return value;
}

// The checks Kafka's parseExecuteAssignmentArgs makes once the whole file is read, in its order and
// with its sentences.
void check_reassignment(const std::vector<ReassignmentEntry>& entries) {
  if (entries.empty()) throw std::runtime_error("Partition reassignment list cannot be empty");
  for (const auto& e : entries) {
    if (e.replicas.empty()) throw std::runtime_error("Partition replica list cannot be empty");
  }
  std::set<std::pair<std::string, int32_t>> seen;
  std::vector<std::string> duplicate_partitions;
  for (const auto& e : entries) {
    if (!seen.insert({e.topic, e.partition}).second) {
      duplicate_partitions.push_back(e.topic + "-" + std::to_string(e.partition));
    }
  }
  if (!duplicate_partitions.empty()) {
    throw std::runtime_error("Partition reassignment contains duplicate topic partitions: " +
                             joined(duplicate_partitions));
  }
  std::string duplicate_replicas;
  for (const auto& e : entries) {
    std::set<int32_t> ids;
    std::set<int32_t> repeated;
    for (int32_t r : e.replicas) {
      if (!ids.insert(r).second) repeated.insert(r);
    }
    if (repeated.empty()) continue;
    std::vector<std::string> names;
    names.reserve(repeated.size());
    for (int32_t r : repeated) names.push_back(std::to_string(r));
    duplicate_replicas += (duplicate_replicas.empty() ? "" : ". ") + e.topic + "-" +
                          std::to_string(e.partition) + " contains multiple entries for " +
                          joined(names);
  }
  if (!duplicate_replicas.empty()) {
    throw std::runtime_error("Partition replica lists may not contain duplicate entries: " +
                             duplicate_replicas);
  }
}

// Whether two spellings name one directory: the broker reports canonical paths, and a file may say
// "/data/d1/" or go through a symlink. The client runs on the broker's machine (a Unix socket), so
// it resolves paths as the broker does.
bool same_dir(const std::string& broker_path, const std::string& file_path) {
  std::error_code ec;
  const std::filesystem::path canonical = std::filesystem::weakly_canonical(file_path, ec);
  std::string resolved = ec ? file_path : canonical.string();
  while (resolved.size() > 1 && resolved.back() == '/') resolved.pop_back();
  return broker_path == resolved;
}

// Prints each replica's state as Kafka's --verify does, under its header, sorted by broker, topic
// and partition. Returns 1 when a move failed, or, with `until_done`, when any is not completed;
// else 0: as Kafka, a move that still runs is no error.
int verify(AdminClient& client, const std::vector<ReassignmentEntry>& entries, bool until_done) {
  int32_t broker = 0;
  auto where = locate(call(client, {{"api", "DescribeLogDirs"}}), &broker);
  bool all_done = true;
  bool failed = false;
  std::printf("Status of partition reassignment:\n");
  for (const auto& t : targets_for(entries, broker)) {
    const std::string tp = t.topic + "-" + std::to_string(t.partition);
    auto it = where.find(tp);
    const std::string replica = t.name(broker);
    if (it == where.end() || (it->second.current.empty() && it->second.future.empty())) {
      std::printf("Partition %s cannot be found in any live log directory on broker %d.\n",
                  tp.c_str(), broker);
      failed = true;
    } else if (it->second.current.empty()) {
      std::printf(
          "Partition %s is not found in any live log dir on broker %d. There is likely an "
          "offline log directory on the broker.\n",
          tp.c_str(), broker);
      failed = true;
    } else if (!it->second.future.empty()) {
      if (same_dir(it->second.future, t.log_dir)) {
        std::printf("Reassignment of replica %s is still in progress.\n", replica.c_str());
      } else {
        std::printf("Partition %s on broker %d is being moved to log dir %s instead of %s.\n",
                    tp.c_str(), broker, it->second.future.c_str(), t.log_dir.c_str());
        failed = true;
      }
      all_done = false;
    } else if (same_dir(it->second.current, t.log_dir)) {
      std::printf("Reassignment of replica %s completed successfully.\n", replica.c_str());
    } else if (!it->second.failed_dir.empty() && same_dir(it->second.failed_dir, t.log_dir)) {
      std::printf("Reassignment of replica %s failed: %s: %s\n", replica.c_str(),
                  it->second.failed_error.c_str(), it->second.failed_message.c_str());
      failed = true;
    } else {
      std::printf("Partition %s on broker %d is not being moved from log dir %s to %s.\n",
                  tp.c_str(), broker, it->second.current.c_str(), t.log_dir.c_str());
      failed = true;
    }
  }
  return failed || (until_done && !all_done) ? 1 : 0;
}

// Polls until none of `targets` is still moving, with a progress bar of the bytes copied (on a
// terminal): a move that finished counts as copied whole.
void wait_for_moves(AdminClient& client, const std::vector<ReplicaTarget>& targets) {
  ProgressBar bar(ProgressBar::stderr_is_terminal(), std::chrono::milliseconds(0));
  std::map<std::string, uint64_t> sizes;  // every move seen running, and its largest size
  uint64_t shown_total = 0;
  for (;;) {
    int32_t broker = 0;
    auto where = locate(call(client, {{"api", "DescribeLogDirs"}}), &broker);
    uint64_t left = 0;
    int moving = 0;
    for (const auto& t : targets) {
      const std::string tp = t.topic + "-" + std::to_string(t.partition);
      auto it = where.find(tp);
      if (it == where.end() || it->second.future.empty()) continue;
      ++moving;
      sizes[tp] = std::max(sizes[tp], it->second.size);
      left += it->second.lag;
    }
    uint64_t total = 0;
    for (const auto& [tp, size] : sizes) total += size;
    if (total != shown_total) {
      // Appends during the moves grow what there is to copy.
      bar.set_total(
          "moving " + std::to_string(sizes.size()) + " replica" + (sizes.size() == 1 ? "" : "s"),
          total, ProgressBar::Unit::kBytes);
      shown_total = total;
    }
    bar.update(total - std::min(left, total));
    if (moving == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  bar.finish();
}

}  // namespace

std::vector<ReassignmentEntry> parse_reassignment(const std::string& json_text) {
  json doc = json::parse(json_text, nullptr, false);
  if (doc.is_discarded()) throw std::runtime_error("The reassignment file is not valid JSON.");
  if (!doc.is_object()) throw std::runtime_error("Expected JSON object, received " + doc.dump());
  if (auto v = doc.find("version"); v != doc.end() && (!v->is_number_integer() || *v != 1)) {
    throw std::runtime_error("Not supported version field value " + v->dump());
  }
  // As Kafka's parser: a missing "partitions" is an empty list, refused below.
  const json no_partitions = json::array();
  auto parts = doc.find("partitions");
  const json& partitions = parts == doc.end() ? no_partitions : *parts;
  std::vector<ReassignmentEntry> out;
  for (const auto& p : json_array(partitions)) {
    if (!p.is_object()) throw std::runtime_error("Expected JSON object, received " + p.dump());
    for (const char* key : {"topic", "partition", "replicas"}) {
      if (!p.contains(key)) {
        throw std::runtime_error(std::string("No such field exists: `") + key + "`");
      }
    }
    ReassignmentEntry e;
    e.topic = json_string(p["topic"]);
    e.partition = json_int32(p["partition"]);
    for (const auto& r : json_array(p["replicas"])) e.replicas.push_back(json_int32(r));
    const std::string tp = e.topic + "-" + std::to_string(e.partition);
    if (auto dirs = p.find("log_dirs"); dirs != p.end()) {
      for (const auto& d : json_array(*dirs)) e.log_dirs.push_back(json_string(d));
    } else {
      e.log_dirs.assign(e.replicas.size(), kAnyLogDir);
    }
    if (e.log_dirs.size() != e.replicas.size()) {
      throw std::runtime_error("Size of replicas list " + kafka_list(e.replicas) +
                               " is different from size of log dirs list " +
                               kafka_list(e.log_dirs) + " for partition " + tp);
    }
    for (const auto& d : e.log_dirs) {
      if (d != kAnyLogDir && (d.empty() || d[0] != '/')) {
        throw std::runtime_error("Log dir " + d + " of partition " + tp +
                                 " must be \"any\" or an absolute path starting with /");
      }
    }
    out.push_back(std::move(e));
  }
  check_reassignment(out);
  return out;
}

int run_reassign(const ReassignOptions& o) {
  std::vector<ReassignmentEntry> entries;
  try {
    std::ifstream in(o.file);
    if (!in) throw std::runtime_error("Cannot read the reassignment file " + o.file.string() + ".");
    std::stringstream text;
    text << in.rdbuf();
    entries = parse_reassignment(text.str());
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << o.file.string() << ": " << e.what() << "\n";
    return 2;
  }
  std::unique_ptr<AdminClient> client;
  try {
    client = std::make_unique<AdminClient>(o.socket);
    if (o.verify) {
      if (o.wait) {
        int32_t broker = 0;
        locate(call(*client, {{"api", "DescribeLogDirs"}}), &broker);
        wait_for_moves(*client, targets_for(entries, broker));
      }
      return verify(*client, entries, o.wait);
    }

    int32_t broker = 0;
    locate(call(*client, {{"api", "DescribeLogDirs"}}), &broker);
    std::vector<ReplicaTarget> targets = targets_for(entries, broker);
    if (targets.empty()) {
      std::printf("No log directory moves for broker %d in %s.\n", broker, o.file.c_str());
      return 0;
    }
    std::map<std::string, ReplicaTarget> pending;
    for (const auto& t : targets) pending[t.name(broker)] = t;
    const auto deadline = Clock::now() + std::chrono::milliseconds(o.timeout_ms);
    for (;;) {
      json dirs = json::array();
      for (const auto& [name, t] : pending) {
        dirs.push_back(
            {{"path", t.log_dir},
             {"partitions", json::array({{{"topic", t.topic}, {"partition", t.partition}}})}});
      }
      json response = call(*client, {{"api", "AlterReplicaLogDirs"}, {"dirs", dirs}});
      std::vector<ReplicaTarget> started;
      for (const auto& r : response["results"]) {
        const std::string name = r["topic"].get<std::string>() + "-" +
                                 std::to_string(r["partition"].get<int32_t>()) + "-" +
                                 std::to_string(broker);
        const std::string error = r["error"];
        if (error == kNone) {
          started.push_back(pending.at(name));
        } else if (error != kReplicaNotAvailable) {
          std::cerr << "lds-host: Error: Failed to alter dir for " << name << ": " << error << ": "
                    << r["message"].get<std::string>() << "\n";
          return 1;
        }
      }
      // Kafka's line per replica, its trailing space included (ReassignPartitionsCommand.
      // executeMoves), in its order: broker, topic, partition.
      std::sort(started.begin(), started.end(), [](const ReplicaTarget& a, const ReplicaTarget& b) {
        return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
      });
      for (const auto& t : started) {
        std::printf(
            "Successfully started moving log directory to %s for replica %s-%d with broker %d \n",
            t.log_dir.c_str(), t.topic.c_str(), t.partition, broker);
        pending.erase(t.name(broker));
      }
      if (pending.empty()) break;
      if (Clock::now() >= deadline) {
        std::vector<std::string> names;
        names.reserve(pending.size());
        for (const auto& [name, t] : pending) names.push_back(name);
        std::cerr << "lds-host: Timed out before log directory move"
                  << (names.size() == 1 ? "" : "s") << " could be started for: " << joined(names)
                  << "\n";
        return 1;
      }
      // The replica is not here yet; the preference is remembered, and we keep asking.
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    if (o.wait) {
      wait_for_moves(*client, targets);
      return verify(*client, entries, true);
    }
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << e.what() << "\n";
    return 2;
  }
}

Command add_reassign_command(CLI::App& app) {
  struct ReassignArgs {
    Target target;
    std::string file;
    ReassignOptions options;
  };
  auto args = std::make_shared<ReassignArgs>();
  auto* cmd = app.add_subcommand(
      "reassign", "Apply or verify the log_dirs of a Kafka reassignment file on this broker");
  add_target_options(cmd, args->target);
  cmd->add_option("--reassignment-json-file", args->file,
                  "Kafka's reassignment JSON ({\"version\":1,\"partitions\":[...]})")
      ->required();
  cmd->add_option("--timeout", args->options.timeout_ms,
                  "How long to retry moves of replicas not here yet, in ms (default 10000)");
  cmd->add_flag("--verify", args->options.verify,
                "Report each move's state instead of starting it, as Kafka: exits 0 while moves "
                "run, 1 when one failed or is not under way");
  cmd->add_flag("--wait", args->options.wait,
                "For scripts: show progress until every move of the file on this broker finishes, "
                "then verify, exiting 0 only when all completed (with or without --verify)");
  return {cmd, [args] {
            ReassignOptions options = args->options;
            options.socket = socket_of(args->target);
            options.file = args->file;
            return run_reassign(options);
          }};
}

}  // namespace lds::cli
