// reassign.cpp: `lds-host reassign`: applies and verifies the log_dirs of a Kafka reassignment file
// on this broker.
#include "cli/reassign.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
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
  bool unreadable = false;  // hosted on a log dir that is offline
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
    if (!dir["error"].is_null()) {
      // Still this broker's replicas, on a dir that went offline.
      for (const auto& name : dir.value("unreadablePartitions", json::array())) {
        out[name.get<std::string>()].unreadable = true;
      }
      continue;
    }
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

// Kafka's partitionReassignmentStatesToString, after its header: a line per partition of the file,
// by topic and partition. A single broker has no reassignment between brokers, so each is done:
// completed when the file's replica set is this broker, a partition it hosts; else the two sets
// (an empty one for a partition it does not host, as Kafka prints an unknown one).
void print_partition_states(const std::vector<ReassignmentEntry>& entries,
                            const std::map<std::string, ReplicaLocation>& where, int32_t broker) {
  std::vector<const ReassignmentEntry*> sorted;
  sorted.reserve(entries.size());
  for (const auto& e : entries) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(), [](const auto* a, const auto* b) {
    return std::tie(a->topic, a->partition) < std::tie(b->topic, b->partition);
  });
  std::printf("Status of partition reassignment:\n");
  for (const ReassignmentEntry* e : sorted) {
    const std::string tp = e->topic + "-" + std::to_string(e->partition);
    auto it = where.find(tp);
    const bool hosted = it != where.end() && (!it->second.current.empty() ||
                                              !it->second.future.empty() || it->second.unreadable);
    const std::string current = hosted ? std::to_string(broker) : "";
    std::string target;
    for (size_t i = 0; i < e->replicas.size(); ++i) {
      // Appended: GCC 12 at -O3 reports a false -Wrestrict on `(i ? "," : "") + std::to_string(n)`.
      if (i) target += ',';
      target += std::to_string(e->replicas[i]);
    }
    if (current == target) {
      std::printf("Reassignment of partition %s is completed.\n", tp.c_str());
    } else {
      std::printf(
          "There is no active reassignment of partition %s, but replica set is %s rather "
          "than %s.\n",
          tp.c_str(), current.c_str(), target.c_str());
    }
  }
}

// As Kafka's clearAllThrottles once nothing moves: the broker-level move throttle is deleted
// (this broker has no topic-level throttles to clear), and both of Kafka's lines are printed.
void clear_throttles(AdminClient& client, const std::vector<ReassignmentEntry>& entries,
                     int32_t broker) {
  std::printf("Clearing broker-level throttles on broker %d\n", broker);
  call(client,
       {{"api", "IncrementalAlterConfigs"},
        {"configs", json::array({{{"name", "replica.alter.log.dirs.io.max.bytes.per.second"},
                                  {"op", "DELETE"}}})}});
  std::set<std::string> topics;
  for (const auto& e : entries) topics.insert(e.topic);
  std::string names;
  for (const auto& t : topics) names += (names.empty() ? "" : ",") + t;
  std::printf("Clearing topic-level throttles on topic%s %s\n", topics.size() == 1 ? "" : "s",
              names.c_str());
}

// Prints the state of each partition, then of each replica, as Kafka's --verify does, sorted by
// broker, topic and partition, then clears the throttles once nothing moves (unless
// `preserve_throttles`). Returns 1 when a move failed, or, with `until_done`, when any is not
// completed; else 0: as Kafka, a move that still runs is no error.
int verify(AdminClient& client, const std::vector<ReassignmentEntry>& entries, bool until_done,
           bool preserve_throttles) {
  int32_t broker = 0;
  auto where = locate(call(client, {{"api", "DescribeLogDirs"}}), &broker);
  bool all_done = true;
  bool failed = false;
  print_partition_states(entries, where, broker);
  const std::vector<ReplicaTarget> targets = targets_for(entries, broker);
  if (targets.empty()) std::printf("\n");  // Kafka prints its empty list of replica states too
  for (const auto& t : targets) {
    const std::string tp = t.topic + "-" + std::to_string(t.partition);
    auto it = where.find(tp);
    const std::string replica = t.name(broker);
    if (it == where.end() ||
        (it->second.current.empty() && it->second.future.empty() && !it->second.unreadable)) {
      std::printf("Partition %s cannot be found in any live log directory on broker %d.\n",
                  tp.c_str(), broker);
      failed = true;
    } else if (it->second.current.empty()) {
      // Kafka's MissingLogDirMoveState: the replica is this broker's, its log dir is offline.
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
  if (all_done && !preserve_throttles) clear_throttles(client, entries, broker);
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
    if (moving == 0) {
      // A move that failed ended short of its bytes: the bar says so by not reaching 100%.
      for (const auto& t : targets) {
        auto it = where.find(t.topic + "-" + std::to_string(t.partition));
        if (it != where.end() && !it->second.failed_dir.empty() &&
            same_dir(it->second.failed_dir, t.log_dir) &&
            !same_dir(it->second.current, t.log_dir)) {
          bar.stop();
          return;
        }
      }
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  bar.finish();
}

// The entries of the reassignment file; nullopt, after saying why, when it cannot be read or
// parsed.
std::optional<std::vector<ReassignmentEntry>> read_reassignment_file(
    const std::filesystem::path& file) {
  try {
    std::ifstream in(file);
    if (!in) throw std::runtime_error("Cannot read the reassignment file " + file.string() + ".");
    std::stringstream text;
    text << in.rdbuf();
    return parse_reassignment(text.str());
  } catch (const std::exception& e) {
    std::cerr << "lds-host: " << file.string() << ": " << e.what() << "\n";
    return std::nullopt;
  }
}

// The id of the broker behind `client`, as DescribeLogDirs names it.
int32_t broker_of(AdminClient& client) {
  int32_t broker = 0;
  locate(call(client, {{"api", "DescribeLogDirs"}}), &broker);
  return broker;
}

// Asks once for every move in `pending`: the moves that started, or nullopt, after saying why, when
// one was refused for another reason than its replica not being here yet.
std::optional<std::vector<ReplicaTarget>> request_moves(
    AdminClient& client, const std::map<std::string, ReplicaTarget>& pending, int32_t broker) {
  json dirs = json::array();
  for (const auto& [name, t] : pending) {
    dirs.push_back(
        {{"path", t.log_dir},
         {"partitions", json::array({{{"topic", t.topic}, {"partition", t.partition}}})}});
  }
  json response = call(client, {{"api", "AlterReplicaLogDirs"}, {"dirs", dirs}});
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
      return std::nullopt;
    }
  }
  return started;
}

// Starts the move of each of `targets`, asking again for replicas not here yet until `timeout_ms`
// has passed; returns the exit code: 0 once all started, 1 when one was refused or timed out.
int start_moves(AdminClient& client, const std::vector<ReplicaTarget>& targets, int32_t broker,
                int64_t timeout_ms) {
  std::map<std::string, ReplicaTarget> pending;
  for (const auto& t : targets) pending[t.name(broker)] = t;
  const auto deadline = Clock::now() + std::chrono::milliseconds(timeout_ms);
  for (;;) {
    std::optional<std::vector<ReplicaTarget>> started = request_moves(client, pending, broker);
    if (!started) return 1;
    // Kafka's line per replica, its trailing space included (ReassignPartitionsCommand.
    // executeMoves), in its order: broker, topic, partition.
    std::sort(started->begin(), started->end(), [](const ReplicaTarget& a, const ReplicaTarget& b) {
      return std::tie(a.topic, a.partition) < std::tie(b.topic, b.partition);
    });
    for (const auto& t : *started) {
      std::printf(
          "Successfully started moving log directory to %s for replica %s-%d with broker %d \n",
          t.log_dir.c_str(), t.topic.c_str(), t.partition, broker);
      pending.erase(t.name(broker));
    }
    if (pending.empty()) return 0;
    if (Clock::now() >= deadline) {
      std::vector<std::string> names;
      names.reserve(pending.size());
      for (const auto& [name, t] : pending) names.push_back(name);
      std::cerr << "lds-host: Timed out before log directory move" << (names.size() == 1 ? "" : "s")
                << " could be started for: " << comma_joined(names) << "\n";
      return 1;
    }
    // The replica is not here yet; the preference is remembered, and we keep asking.
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
}

}  // namespace

int run_reassign(const ReassignOptions& o) {
  const std::optional<std::vector<ReassignmentEntry>> entries = read_reassignment_file(o.file);
  if (!entries) return 2;
  std::unique_ptr<AdminClient> client;
  try {
    client = std::make_unique<AdminClient>(o.socket);
    if (o.verify) {
      if (o.wait) wait_for_moves(*client, targets_for(*entries, broker_of(*client)));
      return verify(*client, *entries, o.wait, o.preserve_throttles);
    }

    const int32_t broker = broker_of(*client);
    std::vector<ReplicaTarget> targets = targets_for(*entries, broker);
    if (targets.empty()) {
      std::printf("No log directory moves for broker %d in %s.\n", broker, o.file.c_str());
      return 0;
    }
    if (const int code = start_moves(*client, targets, broker, o.timeout_ms); code != 0) {
      return code;
    }
    if (o.wait) {
      wait_for_moves(*client, targets);
      return verify(*client, *entries, true, o.preserve_throttles);
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
  // No --json: the output is kafka-reassign-partitions.sh's text, which scripts already read.
  add_target_options(cmd, args->target, false);
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
  cmd->add_flag("--preserve-throttles", args->options.preserve_throttles,
                "With --verify: keep replica.alter.log.dirs.io.max.bytes.per.second once every "
                "move ended, instead of clearing it as Kafka does");
  return {cmd, [args] {
            ReassignOptions options = args->options;
            options.socket = socket_of(args->target);
            options.file = args->file;
            return run_reassign(options);
          }};
}

}  // namespace lds::cli
