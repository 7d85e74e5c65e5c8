// runner_tamper_steps.cpp: the steps that tamper with what the broker trusts: a client's
// malformed batches and unread pipelined Fetches through the Kafka listener, and, with the broker
// stopped, a move copy marked complete that is not, a segment renamed off its first offset, and
// the files of a clean shutdown (Kafka's recovery-point checkpoint) torn, removed or hand-edited.
// Each checks what the broker answers and that nothing acknowledged changed.
#include <sys/types.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <thread>

#include "describe_answer.h"
#include "file_bytes.h"
#include "hostile_kafka.h"
#include "io/log_layout.h"
#include "model/record_batch.h"
#include "process_rss.h"
#include "runner.h"
#include "storage/move_protocol.h"
#include "storage/pending_deletions.h"
#include "tree_bytes.h"

namespace lds::torture {

namespace {

constexpr int kAnswerSeconds = 10;
// The unread Fetches: enough replies that holding them all would show in the broker's memory.
constexpr int kUnreadFetches = 60;
constexpr int32_t kUnreadFetchBytes = 1 << 20;
constexpr uint64_t kUnreadGrowthBound = 48ull << 20;

// The first path whose content differs between two trees, "" when none does.
std::string first_difference(const std::map<std::string, std::string>& a,
                             const std::map<std::string, std::string>& b) {
  for (const auto& [path, bytes] : a) {
    auto it = b.find(path);
    if (it == b.end()) return path + " (removed)";
    if (it->second != bytes) return path + " (changed)";
  }
  for (const auto& [path, bytes] : b) {
    if (!a.contains(path)) return path + " (added)";
  }
  return "";
}

}  // namespace

std::optional<Runner::Target> Runner::healthy_target(uint64_t r, bool with_bytes,
                                                     std::string* problem) {
  json d;
  *problem = quick_check(&d);
  if (!problem->empty()) return std::nullopt;
  std::vector<Target> found;
  for (const auto& dir : log_dirs_of(d)) {
    const size_t i = dir_index(dir["logDir"].get<std::string>());
    if (i >= env_.dir_count() || broken_[i] || !dir["error"].is_null()) continue;
    for (const auto& p : dir["partitions"]) {
      const std::string name = p["partition"];
      auto it = parts_.find(name);
      if (p["isFuture"].get<bool>() || it == parts_.end()) continue;
      if (with_bytes && it->second.acked == 0) continue;
      found.push_back({name, i, listener_port(d.value("listeners", ""))});
    }
  }
  if (found.empty()) return std::nullopt;
  return found[r % found.size()];
}

std::string Runner::step_malformed_produce(const Step& s) {
  std::string problem;
  const std::optional<Target> t = healthy_target(s.a, false, &problem);
  if (!t || t->port == 0) return problem;
  const Partition& part = parts_[t->name];
  const MalformedBatch bad = malformed_batch(s.b);
  const std::optional<int16_t> code =
      produce_batch(t->port, part.topic, part.number, bad.batch, kAnswerSeconds, &problem);
  if (!code) return problem + " (" + bad.what + " to " + t->name + ")";
  if (*code != bad.code) {
    return "a Produce to " + t->name + " of " + bad.what + " was answered with error code " +
           std::to_string(*code) + ", Kafka's is " + std::to_string(bad.code);
  }
  ++stats_["malformed_refused_" + std::to_string(*code)];
  // The partition still serves what it held, to a client reading it from the start.
  if (std::string p = fetch_once(t->port, part.topic, part.number, kAnswerSeconds); !p.empty()) {
    return "after a Produce of " + bad.what + " to " + t->name + ": " + p;
  }
  return "";
}

std::string Runner::step_unread_fetches(const Step& s) {
  std::string problem;
  const std::optional<Target> t = healthy_target(s.a, true, &problem);
  if (!t || t->port == 0) return problem;
  const Partition& part = parts_[t->name];
  const uint64_t rss_before = test::rss_of(env_.pid());
  UnreadFetches unread(t->port, part.topic, part.number, kUnreadFetches, kUnreadFetchBytes);
  if (!unread.send_problem().empty()) return unread.send_problem();
  // While they stay unread, the broker serves everyone else, in time.
  std::this_thread::sleep_for(std::chrono::milliseconds(500));
  if (std::string p = fetch_once(t->port, part.topic, part.number, kAnswerSeconds); !p.empty()) {
    return "while " + std::to_string(kUnreadFetches) + " Fetches of " + t->name +
           " stayed unread on one connection, another client's Fetch: " + p;
  }
  if (std::string p = quick_check(); !p.empty()) return p;
  const uint64_t rss_held = test::rss_of(env_.pid());
  if (rss_before > 0 && rss_held > rss_before + kUnreadGrowthBound) {
    return "the broker's memory grew from " + std::to_string(rss_before >> 20) + " to " +
           std::to_string(rss_held >> 20) + " MiB holding " + std::to_string(kUnreadFetches) +
           " unread Fetches of " + t->name + " on one connection";
  }
  // Half the time the client reads them after all: every reply whole and in order.
  if (s.c % 2 == 0) {
    uint64_t bytes = 0;
    if (std::string p = unread.read_all(kAnswerSeconds, &bytes); !p.empty()) {
      return "reading the pipelined Fetches of " + t->name + " late: " + p;
    }
    stats_["unread_fetch_bytes_read_late"] += bytes;
  }
  ++stats_["unread_fetches"];
  return "";
}

bool Runner::stop_for_tampering(const std::string& name, fs::path* copy) {
  env_.kill9();
  copy->clear();
  std::error_code ec;
  for (const auto& dir : env_.log_dirs()) {
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      const std::string entry = e.path().filename().string();
      // Two copies (a promotion under way), or a move's copy or a deletion of this partition:
      // left to the restart to finish.
      if ((entry == name && !copy->empty()) || entry.rfind(name + ".", 0) == 0) return false;
      if (entry == name) *copy = e.path();
    }
  }
  return !copy->empty() && !fs::exists(*copy / layout::kMoveCompleteMarker, ec);
}

std::map<std::string, std::string> Runner::live_tree() const {
  // Copies recorded for deletion (a deleted topic's replica on a dir that was read-only, the old
  // copy of a move whose source could not be renamed aside).
  PendingDeletions record(env_.config_file().string() + ".pending-deletions");
  std::set<fs::path> recorded;
  try {
    record.load();
    for (const PendingDeletion& e : record.entries()) {
      recorded.insert(fs::weakly_canonical(e.log_dir) /
                      layout::partition_dir(e.topic, e.partition));
    }
  } catch (const std::exception&) {
    // Unreadable: nothing is excused, and the start's refusal says why.
  }
  std::map<std::string, std::string> out;
  for (const auto& dir : env_.log_dirs()) {
    for (auto& [path, bytes] : test::tree_bytes({dir})) {
      // A deletion acknowledged before (pending, recorded, or renamed aside) is the broker's to
      // finish at any start: only live partitions' files, and the dir's own, must stay.
      const std::string entry = fs::relative(path, dir).begin()->string();
      std::string topic;
      int32_t number = 0;
      if (entry.ends_with("-delete") ||
          (parse_partition_name(entry, &topic, &number) && !parts_.contains(entry)) ||
          recorded.contains(fs::weakly_canonical(dir) / entry)) {
        continue;
      }
      out.emplace(path, std::move(bytes));
    }
  }
  return out;
}

std::string Runner::refused_start(const std::string& expected, const char* what) {
  const auto before = live_tree();
  const uint64_t log_at = env_.log_size();
  const std::string started = env_.start();
  if (started.empty()) {
    return "the broker started over " + std::string(what) + " instead of refusing";
  }
  if (started != "lds-host serve exited with code 2") {
    return "over " + std::string(what) + " the start failed otherwise than refusing: " + started;
  }
  const std::string log = env_.log_since(log_at);
  if (log.find(expected) == std::string::npos) {
    return "the refusal over " + std::string(what) + " does not say '" + expected +
           "'; the start logged: " + log.substr(log.size() > 3000 ? log.size() - 3000 : 0);
  }
  const std::string changed = first_difference(before, live_tree());
  if (!changed.empty()) {
    return "the start refused over " + std::string(what) + " changed the log dirs: " + changed;
  }
  return "";
}

std::string Runner::step_marked_future(const Step& s) {
  if (env_.dir_count() < 2) return "";
  std::string problem;
  const std::optional<Target> t = healthy_target(s.a, true, &problem);
  if (!t) return problem;
  fs::path source;
  if (!stop_for_tampering(t->name, &source)) return restart();
  const Partition& part = parts_[t->name];
  const size_t to = (t->dir + 1 + s.b % (env_.dir_count() - 1)) % env_.dir_count();
  const fs::path future =
      env_.log_dirs()[to] /
      layout::future_dir(part.topic, part.number, "0123456789abcdef0123456789abcdef");
  const fs::path marker = future / layout::kMoveCompleteMarker;
  std::error_code ec;
  uint64_t size = 0;
  fs::path first;
  for (const auto& e : fs::directory_iterator(source, ec)) {
    uint64_t base = 0;
    if (!layout::parse_segment_file(e.path().filename().string(), &base)) continue;
    size += fs::file_size(e.path(), ec);
    if (base == 0) first = e.path();
  }
  // The copy: no segment, or half the first one, marked with the source's size; or no size.
  const uint64_t kind = s.c % 3;
  std::string text = move_protocol::marker_text(source.string(), size, part.topic, part.number);
  if (const size_t at = text.find("size="); kind == 2 && at != std::string::npos) {
    text.erase(at, text.find('\n', at) + 1 - at);
  }
  fs::create_directories(future, ec);
  // Synced: a full disk may refuse the bytes at writeback, after the writes were taken.
  bool written = !ec && test::put_file_bytes(marker, text);
  if (written && kind == 1 && !first.empty()) {
    const std::string whole = test::file_bytes(first);
    written = test::put_file_bytes(future / first.filename(), whole.substr(0, whole.size() / 2));
  }
  if (!written) {  // a full disk: nothing to show, put it back as it was
    fs::remove_all(future, ec);
    return restart();
  }
  const std::string expected =
      "The move copy " + future.string() + " of " + t->name +
      (kind == 2
           ? " has a completion marker " + marker.string() + " without a size= line"
           : " is marked complete at " + std::to_string(size) + " bytes by " + marker.string());
  if (std::string p = refused_start(expected, "a move copy marked complete that is not");
      !p.empty()) {
    return p;
  }
  ++stats_["marked_future_refused"];
  fs::remove_all(future, ec);
  if (ec) return "cannot remove " + future.string() + ": " + ec.message();
  return restart();
}

std::string Runner::step_renamed_segment(const Step& s) {
  std::string problem;
  const std::optional<Target> t = healthy_target(s.a, true, &problem);
  if (!t) return problem;
  fs::path dir;
  if (!stop_for_tampering(t->name, &dir)) return restart();
  std::error_code ec;
  std::map<uint64_t, fs::path> segments;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    uint64_t base = 0;
    if (layout::parse_segment_file(e.path().filename().string(), &base) &&
        fs::file_size(e.path(), ec) > 0) {
      segments[base] = e.path();
    }
  }
  if (segments.empty()) return restart();
  const auto [base, path] = *segments.rbegin();
  const uint64_t named = base + 1 + s.b % 7;
  const fs::path renamed = dir / layout::segment_file(named);
  if (fs::exists(renamed, ec)) return restart();
  fs::rename(path, renamed, ec);
  if (ec) return "cannot rename " + path.string() + ": " + ec.message();
  const std::string expected = "Log segment " + renamed.string() + " is named for offset " +
                               std::to_string(named) + " but its first record batch starts at " +
                               "offset " + std::to_string(base);
  if (std::string p = refused_start(expected, "a segment not named for its first offset");
      !p.empty()) {
    return p;
  }
  ++stats_["renamed_segment_refused"];
  fs::rename(renamed, path, ec);
  if (ec) return "cannot rename " + renamed.string() + " back: " + ec.message();
  return restart();
}

std::string Runner::step_tampered_clean_shutdown(const Step& s) {
  std::string problem;
  const std::optional<Target> t = healthy_target(s.a, true, &problem);
  if (!t) return problem;
  if (std::string p = stop_gracefully(); !p.empty()) return p;
  const fs::path dir = env_.log_dirs()[t->dir];
  const fs::path checkpoint = dir / "recovery-point-offset-checkpoint";
  std::error_code ec;
  const uint64_t kind = s.b % 5;
  ++stats_["clean_shutdown_tamper_" + std::to_string(kind)];
  if (kind == 1) {
    fs::remove(checkpoint, ec);
  } else if (kind == 2) {
    const std::string whole = test::file_bytes(checkpoint);
    test::put_file_bytes(checkpoint, whole.substr(0, whole.size() / 2));
  } else if (kind == 3) {
    // Every offset moved back by one: taken as it is, a log would give its last offset twice.
    std::istringstream in(test::file_bytes(checkpoint));
    std::string line, edited;
    for (int n = 0; std::getline(in, line); ++n) {
      const size_t space = line.rfind(' ');
      if (n >= 2 && space != std::string::npos) {
        const int64_t o = std::stoll(line.substr(space + 1));
        line = line.substr(0, space + 1) + std::to_string(o > 0 ? o - 1 : 0);
      }
      edited += line + "\n";
    }
    test::put_file_bytes(checkpoint, edited);
  } else if (kind == 4) {
    fs::path last;
    for (const auto& e : fs::directory_iterator(dir / t->name, ec)) {
      uint64_t base = 0;
      if (layout::parse_segment_file(e.path().filename().string(), &base) &&
          (last.empty() || e.path() > last)) {
        last = e.path();
      }
    }
    // Later than the marker by more than a clock tick; a torn batch the start must cut.
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    if (!last.empty()) std::ofstream(last, std::ios::binary | std::ios::app) << "torn batch";
  }
  return restart();
}

std::string Runner::step_tampered_index(const Step& s) {
  std::string problem;
  const std::optional<Target> t = healthy_target(s.a, true, &problem);
  if (!t || t->port == 0) return problem;
  fs::path dir;
  if (!stop_for_tampering(t->name, &dir)) return restart();
  // The segments and their batches, as (base offset, last offset), from the files.
  std::error_code ec;
  std::vector<fs::path> segments;
  std::vector<std::pair<int64_t, int64_t>> batches;
  for (const auto& e : fs::directory_iterator(dir, ec)) {
    uint64_t base = 0;
    if (layout::parse_segment_file(e.path().filename().string(), &base)) {
      segments.push_back(e.path());
    }
  }
  std::sort(segments.begin(), segments.end());
  for (const fs::path& segment : segments) {
    const std::string bytes = test::file_bytes(segment);
    for (size_t at = 0; at + kafka::kBatchHeaderBytes <= bytes.size();) {
      const kafka::RecordBatchHeader h = kafka::read_batch_header_fields(bytes.substr(at));
      batches.emplace_back(h.base_offset, h.base_offset + h.last_offset_delta);
      at += h.size_in_bytes();
    }
  }
  if (segments.empty() || batches.empty()) return restart();
  fs::path index = segments[s.b % segments.size()];
  index.replace_extension(s.c % 2 == 0 ? ".index" : ".timeindex");
  const uint64_t kind = (s.c / 2) % 5;
  ++stats_["index_tamper_" + std::to_string(kind)];
  const std::string was = fs::exists(index, ec) ? test::file_bytes(index) : std::string();
  if (kind == 0) {
    fs::remove(index, ec);
  } else if (kind == 1) {
    test::put_file_bytes(index, was.substr(0, was.size() > 3 ? was.size() - 3 : 0));
  } else if (kind == 2) {
    test::put_file_bytes(index, was + std::string(24, '\0'));
  } else if (kind == 3 && !was.empty()) {
    std::string edited = was;
    edited[(s.b % (edited.size())) | 3] ^= 0x15;  // a low byte of some field, changed
    test::put_file_bytes(index, edited);
  } else {
    std::string noise(was.size() + 48, '\0');
    for (size_t i = 0; i < noise.size(); ++i) noise[i] = static_cast<char>((s.a * 31 + i * 7) >> 1);
    test::put_file_bytes(index, noise);
  }
  if (std::string p = restart(); !p.empty()) return p;
  const std::optional<Target> again = healthy_target(0, true, &problem);
  if (!again) return problem;
  // Fetches at offsets across the log: each answer starts with the batch that holds its offset.
  const auto& part = parts_[t->name];
  for (size_t i = 0; i < 8; ++i) {
    const auto& [base, last] = batches[(s.b + i * batches.size() / 8) % batches.size()];
    const int64_t offset = base + static_cast<int64_t>((s.c + i) % (last - base + 1));
    std::string records;
    if (std::string p = fetch_at(again->port, part.topic, part.number, offset, 1 << 16,
                                 kAnswerSeconds, &records);
        !p.empty()) {
      return "a Fetch of " + t->name + " at offset " + std::to_string(offset) + " after " +
             index.filename().string() + " was tampered with: " + p;
    }
    if (records.size() < kafka::kBatchHeaderBytes) {
      return "a Fetch of " + t->name + " at offset " + std::to_string(offset) +
             " got no batch after " + index.filename().string() + " was tampered with";
    }
    const kafka::RecordBatchHeader h = kafka::read_batch_header_fields(records);
    if (h.base_offset != base || h.base_offset + h.last_offset_delta != last) {
      return "a Fetch of " + t->name + " at offset " + std::to_string(offset) + " got the batch " +
             std::to_string(h.base_offset) + "-" +
             std::to_string(h.base_offset + h.last_offset_delta) + ", not " + std::to_string(base) +
             "-" + std::to_string(last) + ", after " + index.filename().string() +
             " was tampered with";
    }
  }
  ++stats_["index_tamper_fetches_checked"];
  return "";
}

}  // namespace lds::torture
