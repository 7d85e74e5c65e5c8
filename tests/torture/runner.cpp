// runner.cpp: the steps of a torture schedule, the model, and the invariant checks.
#include "runner.h"

#include <signal.h>
#include <sys/stat.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include "describe_answer.h"
#include "kafka_client.h"
#include "reliability_support.h"

namespace lds::torture {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kCallTimeoutSeconds = 10;
constexpr auto kSettleBound = std::chrono::seconds(90);
constexpr std::array<uint64_t, 5> kProduceSizes = {4096, 16384, 262144, 1u << 20, 3u << 20};
// The acknowledged bytes of all partitions together, and of one partition, stay under these, so
// every copy fits the smallest disk and nothing unbounded reaches a real disk.
constexpr uint64_t kTotalBudget = 40ull << 20;
constexpr uint64_t kPartitionBudget = 10ull << 20;
// A kafka-produce step sends 1..kClientMessages messages of 1..kClientValueBytes bytes each.
constexpr uint64_t kClientMessages = 100;
constexpr uint64_t kClientValueBytes = 600;
constexpr int kClientTimeoutSeconds = 30;
// Which partition is where, with its size: what must not change while the disks are scanned.
std::string placement(const json& describe) {
  std::string out;
  for (const auto& d : log_dirs_of(describe)) {
    out += d["logDir"].get<std::string>() + ":";
    for (const auto& p : d["partitions"]) out += p.dump() + ",";
    out += d["error"].dump() + ";";
  }
  return out;
}

// "NOT_LEADER_OR_FOLLOWER" of confluent-kafka's
// "KafkaError{code=NOT_LEADER_OR_FOLLOWER,val=6,...}".
std::string kafka_error_code(const std::string& error) {
  const size_t at = error.find("code=");
  if (at == std::string::npos) return "other";
  return error.substr(at + 5, error.find_first_of(",}", at) - at - 5);
}

}  // namespace

json Runner::call(const json& request, std::string* problem) {
  const std::string api = request.value("api", "?");
  if (!env_.alive()) {
    *problem = "the broker exited with code " + std::to_string(env_.exit_code().value_or(-1)) +
               " although the schedule did not kill it (before " + api + ")";
    return {{"error", "CLIENT_FAILURE"}};
  }
  json answer;
  try {
    integration::RawClient client(env_.socket(), kCallTimeoutSeconds);
    answer = client.call(request.dump());
  } catch (const std::exception& e) {
    answer = {{"error", "CLIENT_FAILURE"}, {"message", e.what()}};
  }
  if (answer.value("error", "") == "CLIENT_FAILURE" || answer.value("error", "") == "NOT_JSON") {
    if (!env_.alive()) {
      *problem = "the broker exited with code " + std::to_string(env_.exit_code().value_or(-1)) +
                 " during " + api;
    } else {
      *problem = api + " did not answer within " + std::to_string(kCallTimeoutSeconds) +
                 " s: " + answer.value("message", "");
    }
  }
  return answer;
}

std::string Runner::set_config(const std::string& name, const std::string& value) {
  std::string problem;
  json entry = value.empty() ? json{{"name", name}, {"op", "DELETE"}}
                             : json{{"name", name}, {"op", "SET"}, {"value", value}};
  const json r =
      call({{"api", "IncrementalAlterConfigs"}, {"configs", json::array({entry})}}, &problem);
  if (!problem.empty()) return problem;
  if (r.value("error", "") != "NONE") {
    return "setting " + name + " = '" + value + "' answered " + r.value("error", "") + ": " +
           r.value("message", "");
  }
  return "";
}

size_t Runner::dir_index(const std::string& path) const {
  for (size_t i = 0; i < env_.dir_count(); ++i) {
    std::error_code ec;
    if (fs::path(path) == env_.log_dirs()[i] ||
        fs::weakly_canonical(path, ec) == fs::weakly_canonical(env_.log_dirs()[i], ec)) {
      return i;
    }
  }
  return env_.dir_count();
}

std::vector<std::string> Runner::partition_names() const {
  std::vector<std::string> out;
  for (const auto& [name, p] : parts_) out.push_back(name);
  return out;
}

std::string Runner::pick_partition(uint64_t r) const {
  const auto names = partition_names();
  return names.empty() ? "" : names[r % names.size()];
}

std::string Runner::quick_check(json* describe) {
  std::string problem;
  const json d = call({{"api", "DescribeLogDirs"}}, &problem);
  if (!problem.empty()) return problem;
  for (const auto& dir : log_dirs_of(d)) {
    const size_t i = dir_index(dir["logDir"].get<std::string>());
    if (i == env_.dir_count()) return "DescribeLogDirs names an unknown dir " + dir.dump();
    if (!dir["error"].is_null() && !broken_[i]) {
      return "healthy log dir " + dir["logDir"].get<std::string>() +
             " is offline: " + dir.value("errorMessage", "");
    }
  }
  if (describe != nullptr) *describe = d;
  return "";
}

std::string Runner::step_check() {
  json d;
  if (std::string p = quick_check(&d); !p.empty()) return p;
  // With nothing in flight and no balancer to start a move, the full check costs little.
  if (balancer_on_ || any_future(d)) return "";
  return full_check();
}

std::string Runner::settled_check() {
  const auto deadline = Clock::now() + kSettleBound;
  for (;;) {
    json d;
    if (std::string p = quick_check(&d); !p.empty()) return p;
    bool moving = any_future(d);
    if (!moving && balancer_on_) {
      std::string problem;
      const json b = call({{"api", "DescribeBalance"}}, &problem);
      if (!problem.empty()) return problem;
      moving = b.contains("inFlight") && !b["inFlight"].empty();
    }
    if (!moving) break;
    ++stats_["settle_waits"];
    if (Clock::now() > deadline) {
      return "moves did not settle within 90 s: " + d.dump().substr(0, 2000);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  return full_check();
}

std::string Runner::fingerprint(const fs::path& dir, uint64_t acked) {
  std::vector<std::string> files;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    struct stat st {};
    if (::lstat(e.path().c_str(), &st) != 0) return "";
    files.push_back(e.path().filename().string() + ":" + std::to_string(st.st_ino) + ":" +
                    std::to_string(st.st_size) + ":" + std::to_string(st.st_ctim.tv_sec) + "." +
                    std::to_string(st.st_ctim.tv_nsec));
  }
  if (ec) return "";
  std::sort(files.begin(), files.end());
  std::string out = std::to_string(acked);
  for (const auto& f : files) out += " " + f;
  return out;
}

std::string Runner::check_copies(const std::map<std::string, std::vector<size_t>>& copies,
                                 const json& describe) {
  // Sizes DescribeLogDirs reports, by partition, from healthy dirs.
  std::map<std::string, std::pair<size_t, uint64_t>> listed;
  for (const auto& dir : log_dirs_of(describe)) {
    const size_t i = dir_index(dir["logDir"].get<std::string>());
    for (const auto& p : dir["partitions"]) {
      listed[p["partition"].get<std::string>()] = {i, p["size"].get<uint64_t>()};
    }
  }
  static const std::vector<size_t> kNone;
  for (const auto& [name, part] : parts_) {
    std::vector<size_t> healthy;
    size_t on_broken = 0;
    for (size_t i : (copies.contains(name) ? copies.at(name) : kNone)) {
      if (broken_[i]) {
        ++on_broken;
      } else {
        healthy.push_back(i);
      }
    }
    if (healthy.size() > 1) {
      return "partition " + name + " is in two dirs: " + env_.log_dirs()[healthy[0]].string() +
             " and " + env_.log_dirs()[healthy[1]].string();
    }
    if (healthy.empty()) {
      if (on_broken > 0) continue;  // on a dir the schedule broke: unreadable until a restart
      return "partition " + name + " (" + std::to_string(part.acked) +
             " bytes acknowledged) is in no dir";
    }
    const fs::path dir = env_.log_dirs()[healthy[0]] / name;
    const std::string seen = fingerprint(dir, part.acked);
    if (!seen.empty() && checked_[dir] == seen) {
      ++stats_["rechecks_skipped"];
    } else if (std::string p = integration::partition_problem(dir, part.topic, part.number,
                                                              part.acked, part.client);
               !p.empty()) {
      return "acknowledged bytes of " + name + " are not on disk as written: " + p;
    } else {
      checked_[dir] = seen;
    }
    auto it = listed.find(name);
    if (it == listed.end() || it->second.first != healthy[0]) {
      return "DescribeLogDirs does not list " + name + " in " + dir.parent_path().string();
    }
    if (it->second.second != part.acked) {
      return "DescribeLogDirs gives " + name + " " + std::to_string(it->second.second) +
             " bytes, " + std::to_string(part.acked) + " were acknowledged";
    }
  }
  return "";
}

bool Runner::source_is_broken(const fs::path& marker) const {
  std::stringstream text;
  text << std::ifstream(marker).rdbuf();
  for (size_t i = 0; i < env_.dir_count(); ++i) {
    if (broken_[i] && text.str().find(env_.log_dirs()[i].string() + "/") != std::string::npos) {
      return true;
    }
  }
  return false;
}

std::string Runner::log_lines_naming(const fs::path& leftover) const {
  std::string name = leftover.filename().string();  // "t-0" of "t-0.<id>-delete"
  name.resize(std::min(name.size(), name.rfind('.')));
  std::istringstream log(env_.log_tail(1 << 20));
  std::vector<std::string> lines;
  for (std::string line; std::getline(log, line);) {
    if (line.find(name) != std::string::npos) lines.push_back(line);
  }
  std::string out;
  for (size_t i = lines.size() > 3 ? lines.size() - 3 : 0; i < lines.size(); ++i) {
    out += "\n  " + lines[i];
  }
  return out.empty() ? "none" : out;
}

bool Runner::old_copy_of_broken_move(const fs::path& deleted) const {
  std::string name = deleted.filename().string();
  if (!name.ends_with("-delete")) return false;
  name.resize(name.size() - std::string_view("-delete").size());
  const size_t dot = name.rfind('.');
  if (dot == std::string::npos) return false;
  name.resize(dot);
  for (size_t j = 0; j < env_.dir_count(); ++j) {
    std::error_code ec;
    if (broken_[j] && fs::exists(env_.log_dirs()[j] / name / "move.complete", ec)) return true;
  }
  return false;
}

std::string Runner::full_check() {
  // A move may start (balancer) or end between the listing and the scan: the scan counts only
  // when DescribeLogDirs shows the same placement before and after it.
  std::string last;
  for (int attempt = 0; attempt < 50; ++attempt) {
    json before;
    if (std::string p = quick_check(&before); !p.empty()) return p;
    if (any_future(before)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
      last = "a move was still in flight at every try";
      continue;
    }
    // Where each partition is on disk: final names, and leftovers in healthy dirs.
    std::map<std::string, std::vector<size_t>> copies;
    std::vector<std::string> problems;
    std::vector<std::string> leftovers;
    std::string promoting;  // a copy under its final name that still holds the move marker
    for (size_t i = 0; i < env_.dir_count(); ++i) {
      std::error_code ec;
      for (const auto& e : fs::directory_iterator(env_.log_dirs()[i], ec)) {
        if (!e.is_directory()) continue;
        const std::string name = e.path().filename().string();
        if (name.ends_with("-future") || name.ends_with("-delete")) {
          if (!broken_[i] && !old_copy_of_broken_move(e.path())) {
            leftovers.push_back(e.path().string());
          }
          continue;
        }
        std::string topic;
        int32_t number = 0;
        if (!parse_partition_name(name, &topic, &number)) continue;
        if (!parts_.contains(name)) {
          if (!broken_[i])
            problems.push_back("partition " + e.path().string() +
                               " is on disk but was deleted or never created");
          continue;
        }
        copies[name].push_back(i);
        if (!broken_[i] && fs::exists(e.path() / "move.complete", ec) &&
            !source_is_broken(e.path() / "move.complete")) {
          promoting = e.path();
        }
      }
    }
    json after;
    if (std::string p = quick_check(&after); !p.empty()) return p;
    if (any_future(after) || placement(before) != placement(after)) {
      last = "the placement kept changing during the scan";
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (!promoting.empty()) {
      // Between the complete copy's rename to its final name and the source's rename aside, the
      // broker serves the new copy while both dirs hold the name; the marker says which is
      // current (recovery reads it), and promotion removes it last.
      last = "a move was still being promoted, its marker in " + promoting;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (attempt < 49) continue;
      return last;
    }
    if (!leftovers.empty()) {
      // Deletions of renamed-aside dirs may still be running: give them a moment.
      last = "left over once no move was in flight: " + leftovers.front();
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      if (attempt < 49) continue;
      return last + "; the broker's last lines on it: " + log_lines_naming(leftovers.front());
    }
    if (!problems.empty()) return problems.front();
    std::string verdict = check_copies(copies, after);
    // The bytes were read after the second listing: a move that started since invalidates them.
    json last_listing;
    if (std::string p = quick_check(&last_listing); !p.empty()) return p;
    if (any_future(last_listing) || placement(last_listing) != placement(after)) {
      last = "the placement kept changing during the scan";
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      continue;
    }
    if (!verdict.empty()) return verdict;
    if (std::string p = check_moves_into_cordons(copies, after); !p.empty()) return p;
    // Reservations: each healthy dir reserves the unwritten part of its partitions' expected size.
    for (const auto& dir : log_dirs_of(after)) {
      const size_t i = dir_index(dir["logDir"].get<std::string>());
      if (broken_[i] || !dir["error"].is_null()) continue;
      uint64_t want = 0;
      for (const auto& p : dir["partitions"]) {
        auto it = parts_.find(p["partition"].get<std::string>());
        if (it == parts_.end() || p["isFuture"].get<bool>()) continue;
        const uint64_t size = p["size"].get<uint64_t>();
        want += size < kExpectedBytes ? kExpectedBytes - size : 0;
      }
      const uint64_t got = dir["reservedBytes"].get<uint64_t>();
      if (got != want) {
        return "log dir " + dir["logDir"].get<std::string>() + " reserves " + std::to_string(got) +
               " bytes; its partitions' unwritten expected bytes add to " + std::to_string(want);
      }
    }
    return "";
  }
  return last;
}

std::string Runner::stats() const {
  std::string out;
  for (const auto& [name, n] : stats_)
    out += (out.empty() ? "" : " ") + name + "=" + std::to_string(n);
  return out;
}

std::string Runner::stop_gracefully() {
  ++stats_["graceful_stops"];
  const uint64_t offset = env_.log_size();
  const std::optional<int> code = env_.terminate(30000);
  if (!code) return "the broker did not stop within 30 s of SIGTERM";
  if (*code != 0) {
    return "the broker exited with code " + std::to_string(*code) +
           " after SIGTERM: " + env_.log_since(offset);
  }
  return "";
}

std::string Runner::restart(bool graceful) {
  ++stats_["restarts"];
  if (graceful) {
    if (std::string p = stop_gracefully(); !p.empty()) return p;
  }
  env_.kill9();
  std::fill(broken_.begin(), broken_.end(), false);
  if (std::string p = env_.start(); !p.empty()) return "restart failed: " + p;
  std::string problem;
  const json b = call({{"api", "DescribeConfigs"}}, &problem);
  if (!problem.empty()) return problem;
  balancer_on_ = false;
  for (const auto& c : b.value("configs", json::array())) {
    if (c.value("name", "") == "log.dir.balance.enable")
      balancer_on_ = c.value("value", "") == "true";
    if (c.value("name", "") == "log.directory.select.strategy" &&
        c.value("value", "") != strategy_) {
      return "after a restart the active strategy is " + c.value("value", "") + ", not " +
             strategy_;
    }
  }
  return settled_check();
}

std::string Runner::step_create(const Step& s) {
  const std::string topic = "t" + std::to_string(s.a % 6);
  json numbers = json::array();
  if (topics_.contains(topic)) {
    const auto n = static_cast<int32_t>(s.b % 4);
    if (parts_.contains(topic + "-" + std::to_string(n))) return "";
    numbers.push_back(n);
  } else {
    for (uint64_t i = 0; i <= s.b % 3; ++i) numbers.push_back(i);
  }
  std::map<std::string, size_t> placed;
  if (std::string p = create_partitions(topic, numbers, &placed); !p.empty()) return p;
  stats_["created"] += placed.size();
  return "";
}

std::string Runner::create_partitions(const std::string& topic, const json& numbers,
                                      std::map<std::string, size_t>* placed,
                                      std::vector<std::string>* errors) {
  json d;
  if (std::string p = quick_check(&d); !p.empty()) return p;
  std::set<size_t> cordoned;
  for (const auto& dir : log_dirs_of(d)) {
    if (dir.value("isCordoned", false)) cordoned.insert(dir_index(dir["logDir"]));
  }
  std::string problem;
  const json r =
      call({{"api", "CreatePartitions"}, {"topic", topic}, {"partitions", numbers}}, &problem);
  if (!problem.empty()) return problem;
  for (const auto& p : r.value("partitions", json::array())) {
    const std::string error = p.value("error", "?");
    if (errors != nullptr) errors->push_back(error);
    if (error != "NONE" || !p.value("created", false)) continue;
    const int32_t n = p["partition"].get<int32_t>();
    const std::string name = topic + "-" + std::to_string(n);
    const size_t i = dir_index(p["logDir"].get<std::string>());
    if (cordoned.contains(i)) {
      return "cordoned dir " + p["logDir"].get<std::string>() + " took new partition " + name;
    }
    parts_[name] = {topic, n, 0, {}};
    topics_.insert(topic);
    (*placed)[name] = i;
  }
  return "";
}

std::string Runner::step_delete(const Step& s) {
  if (topics_.size() < 3) return "";  // keep data around for the other steps to meet
  auto it = topics_.begin();
  std::advance(it, static_cast<long>(s.a % topics_.size()));
  const std::string topic = *it;
  std::string problem;
  const json r = call({{"api", "DeleteTopic"}, {"topic", topic}}, &problem);
  if (!problem.empty()) return problem;
  if (r.value("error", "") != "NONE") {
    return "DeleteTopic " + topic + " answered " + r.value("error", "") + ": " +
           r.value("message", "");
  }
  topics_.erase(topic);
  std::erase_if(parts_, [&](const auto& e) { return e.second.topic == topic; });
  std::erase_if(last_dir_, [&](const auto& e) { return !parts_.contains(e.first); });
  return "";
}

std::string Runner::step_produce(const Step& s) {
  const std::string name = pick_partition(s.a);
  if (name.empty()) return "";
  Partition& part = parts_[name];
  uint64_t total = 0;
  for (const auto& [n, p] : parts_) total += p.acked;
  uint64_t bytes = kProduceSizes[s.b % kProduceSizes.size()];
  if (total + bytes > kTotalBudget || part.acked + bytes > kPartitionBudget) bytes = 4096;
  if (total + bytes > kTotalBudget || part.acked + bytes > kPartitionBudget) return "";
  std::string problem;
  const json r = call(
      {{"api", "Produce"}, {"topic", part.topic}, {"partition", part.number}, {"bytes", bytes}},
      &problem);
  if (!problem.empty()) return problem;
  if (r.value("error", "") != "NONE") {  // refused: nothing acknowledged
    ++stats_["produce_refused"];
    return "";
  }
  stats_["acked_bytes"] += bytes;
  const uint64_t size = r.value("size", uint64_t{0});
  if (size != part.acked + bytes) {
    return "Produce of " + std::to_string(bytes) + " bytes to " + name + " answered size " +
           std::to_string(size) + ", expected " + std::to_string(part.acked + bytes);
  }
  part.acked = size;
  return "";
}

std::string Runner::step_kafka_produce(const Step& s) {
  if (kafka_client_.empty()) return "";
  const std::string name = pick_partition(s.a);
  if (name.empty()) return "";
  Partition& part = parts_[name];
  std::vector<test::ClientRecord> messages;
  uint64_t bytes = 0;
  const uint64_t count = 1 + s.b % kClientMessages;
  for (uint64_t i = 0; i < count; ++i) {
    std::string key = "k" + std::to_string(++client_messages_);
    std::string value(1 + (s.c * 31 + i * 17) % kClientValueBytes, 'a');
    for (size_t j = 0; j < value.size(); ++j)
      value[j] = static_cast<char>('a' + (j + i + s.c) % 26);
    bytes += key.size() + value.size() + 80;  // the batch and record headers, generously
    messages.push_back({std::move(key), std::move(value)});
  }
  uint64_t total = 0;
  for (const auto& [n, p] : parts_) total += p.acked;
  if (total + bytes > kTotalBudget || part.acked + bytes > kPartitionBudget) return "";
  json before;
  if (std::string p = quick_check(&before); !p.empty()) return p;
  const std::string listener = before.value("listeners", "");
  const std::string scheme = "PLAINTEXT://";
  if (listener.rfind(scheme, 0) != 0) {
    return "DescribeLogDirs names no PLAINTEXT listener: '" + listener + "'";
  }
  const Delivery d =
      produce_through_listener(kafka_client_, listener.substr(scheme.size()), part.topic,
                               part.number, messages, env_.temp(), kClientTimeoutSeconds);
  if (!d.problem.empty()) {
    if (!env_.alive()) {
      return "the broker exited with code " + std::to_string(env_.exit_code().value_or(-1)) +
             " during a Kafka client's produce";
    }
    return d.problem;
  }
  stats_["kafka_delivered"] += d.offsets.size();
  stats_["kafka_failed"] += d.failed;
  if (d.failed > 0) ++stats_["kafka_refused_" + kafka_error_code(d.first_error)];
  // A message that timed out may still have been written; on a healthy dir the broker must have
  // answered long before (the client waits 5 s). On a dir the schedule broke the partition has no
  // leader, and the client waits for one in vain.
  if (d.first_error.find("timed out") != std::string::npos) {
    for (const auto& dir : log_dirs_of(before)) {
      for (const auto& p : dir["partitions"]) {
        if (p["partition"] == name && !broken_[dir_index(dir["logDir"])]) {
          return "a Kafka client's produce to " + name +
                 " on a healthy dir failed: " + d.first_error;
        }
      }
    }
  }
  if (d.offsets.empty()) return "";  // nothing written: the size stays what it was
  uint64_t written = 0;
  for (const auto& m : messages) {
    auto it = d.offsets.find(m.key);
    if (it == d.offsets.end()) continue;
    if (!part.client.emplace(it->second, m).second) {
      return "a Kafka client was told offset " + std::to_string(it->second) + " of " + name +
             " holds " + m.key + ", but it already held " + part.client[it->second].key;
    }
    written += m.key.size() + m.value.size();
  }
  json after;
  if (std::string p = quick_check(&after); !p.empty()) return p;
  for (const auto& dir : log_dirs_of(after)) {
    for (const auto& p : dir["partitions"]) {
      if (p["partition"] != name || p["isFuture"].get<bool>()) continue;
      const uint64_t size = p["size"].get<uint64_t>();
      if (size < part.acked + written) {
        return "after a Kafka client wrote " + std::to_string(d.offsets.size()) + " messages to " +
               name + ", DescribeLogDirs gives it " + std::to_string(size) +
               " bytes, less than the " + std::to_string(part.acked) + " before plus the " +
               std::to_string(written) + " of their keys and values";
      }
      part.acked = size;
      return "";
    }
  }
  return "a Kafka client was told " + std::to_string(d.offsets.size()) +
         " messages were written to " + name + ", but DescribeLogDirs does not list it";
}

std::string Runner::step_move(const Step& s, bool cancel) {
  const std::string name = pick_partition(s.a);
  if (name.empty()) return "";
  const Partition& part = parts_[name];
  if (!cancel) {
    // A third of the moves crawl at 2 MiB/s, so later steps meet them in flight.
    const std::string throttle = s.c % 3 == 0 ? std::to_string(2u << 20) : "";
    if (std::string p = set_config("replica.alter.log.dirs.io.max.bytes.per.second", throttle);
        !p.empty()) {
      return p;
    }
  }
  const std::string path = cancel ? "any" : env_.log_dirs()[s.b % env_.dir_count()].string();
  std::string problem;
  const json r =
      call({{"api", "AlterReplicaLogDirs"},
            {"dirs", json::array({{{"path", path},
                                   {"partitions", json::array({{{"topic", part.topic},
                                                                {"partition", part.number}}})}}})}},
           &problem);
  if (problem.empty() && r.contains("results") && !r["results"].empty()) {
    ++stats_[std::string(cancel ? "cancel_" : "move_") + r["results"][0].value("error", "?")];
  }
  return problem;
}

std::string Runner::step_cordon(const Step& s) {
  std::string value;
  std::set<size_t> dirs;
  for (size_t i = 0; i < env_.dir_count(); ++i) {
    if ((s.b >> i) & 1) {
      // Appended: GCC 12 at -O3 reports a false -Wrestrict on `(c ? "" : ",") + path.string()`.
      if (!value.empty()) value += ',';
      value += env_.log_dirs()[i].string();
      dirs.insert(i);
    }
  }
  if (std::string p = set_config("cordoned.log.dirs", value); !p.empty()) return p;
  std::erase_if(held_cordoned_, [&](size_t i) { return !dirs.contains(i); });
  return "";
}

std::string Runner::check_moves_into_cordons(
    const std::map<std::string, std::vector<size_t>>& copies, const json& describe) {
  std::map<std::string, size_t> now;
  for (const auto& [name, dirs] : copies) {
    for (size_t i : dirs) {
      if (!broken_[i]) now[name] = i;
    }
  }
  std::string problem;
  for (const auto& [name, i] : now) {
    auto it = last_dir_.find(name);
    if (problem.empty() && it != last_dir_.end() && it->second != i && held_cordoned_.contains(i)) {
      problem = "partition " + name + " moved from " + env_.log_dirs()[it->second].string() +
                " into " + env_.log_dirs()[i].string() + ", which was cordoned all along";
    }
  }
  last_dir_ = std::move(now);
  // Cordons set by the schedule and by drains alike; only a cordon step lifts one.
  held_cordoned_.clear();
  for (const auto& dir : log_dirs_of(describe)) {
    if (dir.value("isCordoned", false)) held_cordoned_.insert(dir_index(dir["logDir"]));
  }
  return problem;
}

std::string Runner::step_sighup(const Step& s) {
  if (s.b % 2 == 0) {
    ::kill(env_.pid(), SIGHUP);
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return "";
  }
  // An invalid file: the broker keeps serving on what it had; the file is put back after.
  std::stringstream saved;
  saved << std::ifstream(env_.config_file()).rdbuf();
  std::ofstream(env_.config_file(), std::ios::trunc) << "log.dirs = [unterminated\n";
  ::kill(env_.pid(), SIGHUP);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  std::ofstream(env_.config_file(), std::ios::trunc) << saved.str();
  return "";
}

std::string Runner::step_second_broker() {
  const std::optional<int> code = env_.run_second_broker(15000);
  if (!code) return "a second broker on the same dirs was still running after 15 s";
  ++stats_["second_broker_refused"];
  if (*code != 2) {
    return "a second broker on the same dirs exited with " + std::to_string(*code) + ", expected 2";
  }
  return "";
}

std::string Runner::execute(const Step& s) {
  const size_t dir = s.a % env_.dir_count();
  switch (s.kind) {
    case Kind::kCreate:
      return step_create(s);
    case Kind::kDelete:
      return step_delete(s);
    case Kind::kProduce:
      return step_produce(s);
    case Kind::kKafkaProduce:
      return step_kafka_produce(s);
    case Kind::kMove:
      return step_move(s, false);
    case Kind::kCancelMove:
      return step_move(s, true);
    case Kind::kCordon:
      return step_cordon(s);
    case Kind::kStrategy:
      return step_strategy(s);
    case Kind::kSighup:
      return step_sighup(s);
    case Kind::kKillRestart:
      return restart();
    case Kind::kGracefulRestart:
      return restart(true);
    case Kind::kTamperedCleanShutdown:
      return step_tampered_clean_shutdown(s);
    case Kind::kTamperedIndex:
      return step_tampered_index(s);
    case Kind::kSecondBroker:
      return step_second_broker();
    case Kind::kBalancer: {
      balancer_on_ = s.b % 2 == 0;
      return set_config("log.dir.balance.enable", balancer_on_ ? "true" : "false");
    }
    case Kind::kDrain: {
      std::string problem;
      const json r =
          call({{"api", "DrainLogDir"}, {"logDir", env_.log_dirs()[dir].string()}}, &problem);
      ++stats_["drain_" + r.value("error", std::string("?"))];
      return problem;
    }
    case Kind::kSettle:
      return settled_check();
    case Kind::kFillDisk:
      if (!env_.filled(dir)) stats_["fill_bytes"] += env_.fill(dir);
      return "";
    case Kind::kUnfillDisk:
      for (size_t i = 0; i < env_.dir_count(); ++i) env_.unfill(i);
      return "";
    case Kind::kRemountReadOnly:
      return step_remount(s);
    case Kind::kShareFilesystem:
      return step_share_filesystem(s);
    case Kind::kMalformedProduce:
      return step_malformed_produce(s);
    case Kind::kUnreadFetches:
      return step_unread_fetches(s);
    case Kind::kMarkedFuture:
      return step_marked_future(s);
    case Kind::kRenamedSegment:
      return step_renamed_segment(s);
    case Kind::kExt4Disk:
      return step_ext4_disk(s);
    case Kind::kSwapQueuedMoves:
      return step_swap_queued_moves(s);
  }
  return "";
}

Outcome run_schedule(const std::vector<Step>& steps, const RunOptions& options) {
  Environment env(options.host, options.plugin_dir,
                  {options.hostile_plugin_dir, options.forbid_plugin_dir});
  Runner runner(env, options);
  const auto with_stats = [&](Outcome o) {
    o.stats = runner.stats();
    return o;
  };
  if (std::string p = env.start(); !p.empty()) return {"first start failed: " + p, 0, ""};
  for (size_t i = 0; i < steps.size(); ++i) {
    std::string p = runner.execute(steps[i]);
    if (options.verbose) {
      std::printf("  step %zu: %s -> %s\n", i, describe(steps[i]).c_str(), runner.stats().c_str());
    }
    if (p.empty()) p = runner.step_check();
    if (!p.empty()) {
      if (options.verbose) std::printf("%s\n", env.log_tail(400000).c_str());
      return with_stats({p, i, ""});
    }
  }
  // The disks get their space back before the final check, as an operator would.
  for (size_t i = 0; i < env.dir_count(); ++i) env.unfill(i);
  if (std::string p = runner.settled_check(); !p.empty()) return with_stats({p, steps.size(), ""});
  return with_stats({});
}

}  // namespace lds::torture
