// log_manager/recovery.cpp: the last step of the startup scan: every copy of every partition found
// in the log directories is resolved into exactly one served copy. A replica move a crash
// interrupted is finished or discarded, a -delete directory is removed only once nothing can need
// it, and two copies no move explains refuse the start, as Kafka does.
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <optional>
#include <set>

#include "io/durable_file.h"
#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "storage/log_manager/internal.h"
#include "storage/move_protocol.h"
#include "util/errors.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

// One directory of a partition found by the scan.
struct Copy {
  uint32_t dir = 0;
  const fs::path* dir_path = nullptr;  // its log directory's
  std::string name;                    // its entry there
  // A path keeps each of its components apart: built when needed, not held by every copy.
  fs::path path() const { return *dir_path / name; }
  bool marked = false;                          // holds a move's completion marker
  std::optional<uint64_t> marked_size;          // the partition's size the marker records
  std::optional<std::string> marked_size_text;  // its size= value as written (none: no line)
  std::string marked_source;                    // the move's source the marker records
  std::string marked_topic;  // the topic-partition the marker records (none: older)
  std::optional<int32_t> marked_partition;
  uint64_t size = 0;  // bytes of its segments
  ScannedLog log;     // read for a copy that may be served (not unmarked futures)
};

struct Found {
  std::vector<Copy> current;  // <topic>-<partition>, in log.dirs order
  std::vector<Copy> future;   // <topic>-<partition>.<id>-future
  std::vector<Copy> deleted;  // <topic>-<partition>.<id>-delete
};

// What startup does with one partition's copies.
struct Plan {
  TopicPartition tp;
  const Copy* keep = nullptr;        // the complete copy that is served
  bool promote = false;              // keep is a future, renamed to its final name first
  const Copy* stale = nullptr;       // the move's source, renamed aside once keep is in place
  std::vector<const Copy*> discard;  // unfinished move copies
  const Found* found = nullptr;
};

// The log of copy `c` as the clean shutdown of its directory left it, or nullopt when it must be
// read through: no clean shutdown there, the partition not in its checkpoint, or files that do not
// match it (PartitionLog::trusted).
std::optional<PartitionLog> left_clean(const std::vector<std::optional<CleanShutdown>>& clean,
                                       const Copy& c, const layout::Entry& e) {
  if (c.dir >= clean.size() || !clean[c.dir]) return std::nullopt;
  const auto it = clean[c.dir]->recovery_points.find({e.topic, e.partition});
  if (it == clean[c.dir]->recovery_points.end()) return std::nullopt;
  return PartitionLog::trusted(c.path(), it->second, clean[c.dir]->recorded_at);
}

// Reads the completion marker of `dir`, if it has one. Throws FileError when it cannot be read.
void read_marker(Copy& c) {
  const std::optional<move_protocol::Marker> marker = move_protocol::read_marker(c.path());
  if (!marker) return;
  c.marked = true;
  c.marked_source = marker->source;
  c.marked_topic = marker->topic.value_or("");
  c.marked_partition = marker->partition;
  c.marked_size = marker->size;
  c.marked_size_text = marker->size_text;
}

// Why the copy `c`, marked complete by a move, cannot be trusted to hold its partition `name`,
// as one sentence saying what to do, or "" when it can. Nothing appends to a future copy, so its
// segments hold exactly the bytes its marker records; a copy already at its final name may have
// grown since (appends resume after the promotion when the source cannot be renamed aside), never
// shrunk. `source` is the copy still served without the move, `deleted` the source already
// renamed aside, when there is one; `dir_offline` says a log directory went offline in the scan.
std::string untrusted_copy(const Copy& c, bool is_future, const std::string& name,
                           const Copy* source, const Copy* deleted, bool dir_offline) {
  const fs::path marker = c.path() / layout::kMoveCompleteMarker;
  std::string what;
  if (!c.marked_size) {
    what = " has a completion marker " + marker.string() +
           (c.marked_size_text ? " whose size=" + *c.marked_size_text + " is not a number"
                               : " without a size= line") +
           ", so its segments' " + std::to_string(c.size) + " bytes cannot be checked";
  } else if (is_future ? c.size != *c.marked_size : c.size < *c.marked_size) {
    what = " is marked complete at " + std::to_string(*c.marked_size) + " bytes by " +
           marker.string() + " but its segments hold " + std::to_string(c.size) + " bytes";
  } else {
    return {};
  }
  std::string out = "The move copy " + c.path().string();
  out += " of " + name + what + ", so it is not served and nothing was changed; ";
  if (source != nullptr) {
    out += "remove " + c.path().string() + " to serve its source " + source->path().string() +
           " (" + std::to_string(source->size) + " bytes) again, and start again.";
  } else if (deleted != nullptr) {
    const fs::path back =
        c.marked_source.empty() ? *deleted->dir_path / name : fs::path(c.marked_source);
    out += "to serve the move's source again, remove " + c.path().string() + ", rename " +
           deleted->path().string() + " back to " + back.string() + ", and start again.";
  } else {
    out += "no other copy of " + name + " is found" +
           (dir_offline ? " in the log directories online" : "") + ": replace " +
           c.path().string() +
           " with a whole copy from another replica, or remove it to give the partition up, and "
           "start again.";
  }
  return out;
}

// Why the topic-partition a future's marker records cannot be the one its name was made for
// (layout::future_dir, whose topic may be cut), or "" when it can. `e` is the name's reading.
std::string marker_mismatch(const Copy& c, const layout::Entry& e) {
  const std::string& name = c.name;
  if (!layout::topic_name_problem(c.marked_topic).empty()) {
    return "its topic \"" + c.marked_topic + "\" is not a valid topic name";
  }
  if (!c.marked_partition || *c.marked_partition != e.partition) {
    return "it names another partition than the directory's name";
  }
  const bool prefix = c.marked_topic.starts_with(e.topic);
  if (c.marked_topic != e.topic && !(prefix && layout::may_be_capped(name))) {
    return "it names topic " + c.marked_topic + ", which the directory's name " + name +
           " was not made for";
  }
  return {};
}

// What a partition directory's lds.partition records: 0 bytes and no replica id when it has
// none (placed before the file existed), and the same with a warning naming the file when it
// cannot be read or is malformed. Never refuses the start.
layout::PartitionMetadata read_partition_metadata(const fs::path& partition_dir) {
  const fs::path file = partition_dir / layout::kPartitionMetadata;
  if (::access(file.c_str(), F_OK) != 0) {
    if (errno != ENOENT) {
      log()->warn("Cannot read {} ({}); the partition's expected size is taken as 0.",
                  file.string(), std::strerror(errno));
    }
    return {};
  }
  std::ifstream in(file, std::ios::binary);
  if (!in) {
    log()->warn("Cannot open {}; the partition's expected size is taken as 0.", file.string());
    return {};
  }
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  if (in.bad()) {
    log()->warn("Cannot read {}; the partition's expected size is taken as 0.", file.string());
    return {};
  }
  layout::PartitionMetadata meta = layout::parse_partition_metadata(text);
  if (!meta.problem.empty()) {
    log()->warn("Ignoring {}: {}; the partition's expected size is taken as 0.", file.string(),
                meta.problem);
    return {};
  }
  return meta;
}

std::string duplicate_message(const TopicPartition& tp, const fs::path& a, const fs::path& b) {
  return "Duplicate log directories for " + tp.str() + " are found in both " + a.string() +
         " and " + b.string() +
         ". It is likely because log directory failure happened while broker was replacing "
         "current replica with future replica. Recover broker from this failure by manually "
         "deleting one of the two directories for this partition. It is recommended to delete "
         "the partition in the log directory that is known to have failed recently.";
}

const char* kind_of(const fs::path& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) != 0) return "an entry";
  return S_ISDIR(st.st_mode) ? "a directory" : "a file";
}

// What the scan of every log directory found, less the copies in directories it could not read.
struct ScannedCopies {
  explicit ScannedCopies(size_t dir_count) : trusted(dir_count), logs(dir_count) {}

  std::map<std::pair<std::string, int32_t>, Found> partitions;
  std::vector<Copy> capped_deletes;  // -delete directories whose name may not hold the topic
  std::set<uint32_t> failed;
  std::vector<size_t> trusted;  // logs taken as a clean shutdown left them
  std::vector<size_t> logs;     // of all the logs there
};

// Reads what the copy `c`, whose name reads as `e`, is: its completion marker, its size, and the
// log of a copy that may be served; counts its directory's logs in `scan`. Throws what the reads
// throw.
void read_copy(Copy& c, const layout::Entry& e,
               const std::vector<std::optional<CleanShutdown>>& clean, ScannedCopies& scan) {
  if (e.kind == layout::EntryKind::kDelete) return;
  read_marker(c);
  std::optional<PartitionLog> as_left;
  if (e.kind == layout::EntryKind::kPartition) ++scan.logs[c.dir];
  if (e.kind == layout::EntryKind::kPartition && !c.marked) as_left = left_clean(clean, c, e);
  if (as_left) {
    c.size = as_left->size_in_bytes();
    c.log.log = std::move(*as_left);
    ++scan.trusted[c.dir];
  } else {
    c.size = detail::segments_size(c.path());
    // An unfinished copy is discarded unread: its last batch is cut wherever the copy was.
    if (e.kind == layout::EntryKind::kPartition || c.marked) {
      c.log = PartitionLog::scan(c.path());
    }
  }
}

// Files the copy `c`, named `entry_name` (which reads as `e`), with the other copies of its
// partition in `scan`.
void file_copy(Copy c, const std::string& entry_name, const layout::Entry& e, ScannedCopies& scan) {
  // A -future or -delete name may hold only a prefix of the topic (layout::future_dir), so the
  // topic never comes from it: a marked future's is the marker's, and a -delete directory whose
  // name may be cut belongs to no partition here (it is removed once every dir is online).
  std::pair<std::string, int32_t> key{e.topic, e.partition};
  if (e.kind == layout::EntryKind::kFuture && c.marked && !c.marked_topic.empty()) {
    if (std::string why = marker_mismatch(c, e); !why.empty()) {
      log()->warn("Discarding the move copy {}: its marker cannot be trusted, {}.",
                  c.path().string(), why);
      c.marked = false;  // an unfinished copy: discarded below, its source untouched
    } else {
      key = {c.marked_topic, *c.marked_partition};
    }
  }
  if (e.kind == layout::EntryKind::kDelete && layout::may_be_capped(entry_name)) {
    scan.capped_deletes.push_back(std::move(c));
    return;
  }
  Found& f = scan.partitions[key];
  (e.kind == layout::EntryKind::kPartition ? f.current
   : e.kind == layout::EntryKind::kFuture  ? f.future
                                           : f.deleted)
      .push_back(std::move(c));
}

// Leaves out of `scan` the copies in the directories it could not read.
void drop_failed_copies(ScannedCopies& scan) {
  for (auto& [key, f] : scan.partitions) {
    for (auto* list : {&f.current, &f.future, &f.deleted}) {
      std::erase_if(*list, [&](const Copy& c) { return scan.failed.count(c.dir) != 0; });
    }
  }
  std::erase_if(scan.capped_deletes, [&](const Copy& c) { return scan.failed.count(c.dir) != 0; });
}

// Throws ConfigError when a copy of `name` that a move marked complete cannot be trusted to hold
// it (untrusted_copy). `source` is its one plain copy, if it has one.
void refuse_untrusted_copies(const Found& f, const std::string& name, const Copy* source,
                             bool some_offline) {
  const Copy* deleted = f.deleted.empty() ? nullptr : &f.deleted.front();
  for (const auto* list : {&f.current, &f.future}) {
    for (const Copy& c : *list) {
      if (!c.marked) continue;
      const bool future = list == &f.future;
      std::string why = untrusted_copy(c, future, name, source, deleted, some_offline);
      if (!why.empty()) throw ConfigError(why);
    }
  }
}

// Removes the directories left over from a deletion or a move; one that cannot be is logged.
void remove_leftovers(const std::vector<fs::path>& to_remove) {
  for (const auto& del : to_remove) {
    log()->info("Removing {} left over from a deletion or a move.", del.string());
    std::error_code ec;
    fs::remove_all(del, ec);
    if (ec)
      log()->warn("Could not remove {}: {}; it is removed at the next start.", del.string(),
                  ec.message());
  }
}

}  // namespace

class LogManager::MoveRecovery {
 public:
  explicit MoveRecovery(LogManager& logs) : logs_(logs) {}

  // Step 1: reads what each copy the scan found is. A directory that cannot be read goes offline.
  ScannedCopies classify(const std::vector<std::pair<uint32_t, std::string>>& entries,
                         const std::vector<std::optional<CleanShutdown>>& clean);
  // Step 2: what to do with the copies of each partition, decided before anything is changed.
  // Throws ConfigError for copies that cannot be resolved.
  std::vector<Plan> decide(
      const std::map<std::pair<std::string, int32_t>, Found>& partitions) const;
  // Step 3: carries out `plans`, then removes the -delete directories nothing needs.
  void apply(const std::vector<Plan>& plans, const std::vector<Copy>& capped_deletes);

 private:
  // Logs, for each online directory a clean shutdown left, how many of its logs were trusted.
  void log_clean_shutdowns(const std::vector<std::optional<CleanShutdown>>& clean,
                           const ScannedCopies& scan) const;
  // Step 2 for the copies `f` of `tp`.
  Plan plan_partition(const TopicPartition& tp, const Found& f, bool some_offline) const;
  // Makes `complete`, the one copy of `plan`'s partition a move marked complete, the one kept,
  // against its one plain copy `older` (null: none). Throws ConfigError when it cannot be.
  void keep_complete_copy(Plan& plan, const Copy& complete, const Copy* older) const;
  // One partition's step 3: its move's steps, then its served copy, then its -delete directories
  // (added to `to_remove` when nothing can need them).
  void apply_plan(const Plan& plan, bool all_online, std::vector<fs::path>& to_remove);
  // Discards `plan`'s unfinished copies and finishes its move, each step made durable before the
  // next; `served` and `served_path` follow the copy served. Returns false, having taken offline
  // the directory that failed, when a step fails.
  bool resolve_copies(const Plan& plan, const Copy*& served, fs::path& served_path,
                      std::vector<fs::path>& to_remove);
  // Hosts the served copy `c` of `tp`, at `path`, once the torn last batch of its log is cut when
  // its move's steps succeeded (`steps_ok`).
  void serve(const TopicPartition& tp, const Copy& c, const fs::path& path, bool steps_ok);

  LogManager& logs_;
};

ScannedCopies LogManager::MoveRecovery::classify(
    const std::vector<std::pair<uint32_t, std::string>>& entries,
    const std::vector<std::optional<CleanShutdown>>& clean) {
  ScannedCopies scan(logs_.dirs_.size());
  for (const auto& [dir, entry_name] : entries) {
    if (scan.failed.count(dir) != 0) continue;
    const layout::Entry e = layout::parse_entry(entry_name);
    Copy c;
    c.dir = dir;
    c.dir_path = &logs_.dirs_[dir]->path;
    c.name = entry_name;
    try {
      read_copy(c, e, clean, scan);
    } catch (const ConfigError&) {
      throw;  // a log that is not a torn write: refused before anything is changed
    } catch (const std::exception& ex) {
      logs_.mark_offline(dir, ex.what());
      scan.failed.insert(dir);
      continue;
    }
    file_copy(std::move(c), entry_name, e, scan);
  }
  drop_failed_copies(scan);
  log_clean_shutdowns(clean, scan);
  return scan;
}

void LogManager::MoveRecovery::log_clean_shutdowns(
    const std::vector<std::optional<CleanShutdown>>& clean, const ScannedCopies& scan) const {
  for (uint32_t i = 0; i < logs_.dirs_.size(); ++i) {
    if (clean[i] && scan.failed.count(i) == 0) {
      log()->info(
          "Log directory {} was shut down cleanly: {} of its {} logs taken as they were, "
          "the others read through.",
          logs_.dirs_[i]->path_text, scan.trusted[i], scan.logs[i]);
    }
  }
}

std::vector<Plan> LogManager::MoveRecovery::decide(
    const std::map<std::pair<std::string, int32_t>, Found>& partitions) const {
  std::vector<Plan> plans;
  plans.reserve(partitions.size());
  bool some_offline = false;  // a copy may be in a log directory that could not be read
  for (const auto& d : logs_.dirs_) some_offline = some_offline || !d->online;
  for (const auto& [key, f] : partitions) {
    plans.push_back(plan_partition(TopicPartition{key.first, key.second}, f, some_offline));
  }
  return plans;
}

Plan LogManager::MoveRecovery::plan_partition(const TopicPartition& tp, const Found& f,
                                              bool some_offline) const {
  Plan plan;
  plan.tp = tp;
  plan.found = &f;
  const std::string name = plan.tp.str();
  std::vector<const Copy*> complete, plain;
  for (const Copy& c : f.current) (c.marked ? complete : plain).push_back(&c);
  const Copy* source = plain.size() == 1 ? plain[0] : nullptr;
  // A marked copy whose segments are not the bytes its marker records (lost, or never all
  // written) would be served short, and its source deleted. Two plain copies are refused below.
  if (plain.size() <= 1) refuse_untrusted_copies(f, name, source, some_offline);
  for (const Copy& c : f.future) {
    // A marked copy of this source that the source has outgrown: a promotion that failed (its
    // destination went offline) and appends that continued. Discarded, whatever else is found.
    if (c.marked && source != nullptr && c.marked_size && *c.marked_size != source->size &&
        c.marked_source == source->path().string()) {
      log()->warn("The move copy {} holds {} bytes but its source {} has {} since; discarding it.",
                  c.path().string(), *c.marked_size, source->path().string(), source->size);
      plan.discard.push_back(&c);
    } else if (c.marked) {
      complete.push_back(&c);
    }
  }
  if (complete.size() > 1) {
    throw ConfigError("Partition " + name + " has two copies marked complete by a replica move, " +
                      complete[0]->path().string() + " and " + complete[1]->path().string() +
                      "; keep the wanted one, remove the other, and start again.");
  }
  if (plain.size() > 1)
    throw ConfigError(duplicate_message(plan.tp, plain[0]->path(), plain[1]->path()));
  const Copy* older = plain.empty() ? nullptr : plain[0];
  if (complete.empty()) {
    plan.keep = older;
  } else {
    keep_complete_copy(plan, *complete[0], older);
  }
  for (const Copy& c : f.future) {
    if (!c.marked) plan.discard.push_back(&c);
  }
  return plan;
}

void LogManager::MoveRecovery::keep_complete_copy(Plan& plan, const Copy& complete,
                                                  const Copy* older) const {
  const std::string name = plan.tp.str();
  const Copy* n = &complete;
  const bool is_future = n->name != name;
  // The move's source is unchanged since the marker was written: the marked copy is the
  // newer one. Otherwise a failed promotion left the marker behind and appends continued.
  // (Its size is known: a marker without one is refused by refuse_untrusted_copies.)
  const bool agrees = older == nullptr || n->marked_size == older->size;
  const fs::path final_path = logs_.dirs_[n->dir]->path / name;
  struct stat st {};
  if (is_future && ::lstat(final_path.c_str(), &st) == 0) {
    throw ConfigError("The interrupted move of " + name +
                      " cannot be finished: " + final_path.string() + " is taken by " +
                      kind_of(final_path) + " that is not part of the move, so the complete copy " +
                      n->path().string() + " cannot be renamed there; move " + final_path.string() +
                      " out of the log directory and start again.");
  } else if (is_future && agrees) {
    plan.keep = n;
    plan.promote = true;
    plan.stale = older;
  } else if (!agrees) {
    const bool n_first = n->dir < older->dir;
    throw ConfigError(duplicate_message(plan.tp, n_first ? n->path() : older->path(),
                                        n_first ? older->path() : n->path()));
  } else {
    plan.keep = n;
    plan.stale = older;
  }
}

void LogManager::MoveRecovery::apply(const std::vector<Plan>& plans,
                                     const std::vector<Copy>& capped_deletes) {
  bool all_online = true;
  for (const auto& d : logs_.dirs_) all_online = all_online && d->online;
  std::vector<fs::path> to_remove;
  for (const Plan& plan : plans) apply_plan(plan, all_online, to_remove);
  for (const Copy& d : capped_deletes) {
    if (all_online) {
      to_remove.push_back(d.path());
    } else {
      log()->warn(
          "Keeping {} until every log directory is online: its name does not hold its whole "
          "topic, and it may be the last copy of its partition.",
          d.path().string());
    }
  }
  remove_leftovers(to_remove);
}

void LogManager::MoveRecovery::apply_plan(const Plan& plan, bool all_online,
                                          std::vector<fs::path>& to_remove) {
  const std::string name = plan.tp.str();
  const Copy* served = plan.promote ? plan.stale : plan.keep;
  fs::path served_path = served != nullptr ? served->path() : fs::path();
  const bool ok = resolve_copies(plan, served, served_path, to_remove);
  if (served != nullptr && logs_.dirs_[served->dir]->online) {
    serve(plan.tp, *served, served_path, ok);
  }
  for (const Copy& d : plan.found->deleted) {
    if (ok && ((served != nullptr && logs_.dirs_[served->dir]->online) || all_online)) {
      to_remove.push_back(d.path());
    } else {
      log()->warn("Keeping {} until every log directory is online: it may be the last copy of {}.",
                  d.path().string(), name);
    }
  }
}

bool LogManager::MoveRecovery::resolve_copies(const Plan& plan, const Copy*& served,
                                              fs::path& served_path,
                                              std::vector<fs::path>& to_remove) {
  const std::string name = plan.tp.str();
  uint32_t at = 0;
  try {
    for (const Copy* c : plan.discard) {
      at = c->dir;
      log()->info("Discarding the unfinished move copy {}.", c->path().string());
      fs::remove_all(c->path());
    }
    if (plan.promote) {
      at = plan.keep->dir;
      const fs::path final_path = logs_.dirs_[at]->path / name;
      move_protocol::promote(plan.keep->path(), final_path);
      served = plan.keep;
      served_path = final_path;
    }
    if (plan.stale != nullptr && plan.keep != plan.stale) {
      at = plan.stale->dir;
      to_remove.push_back(
          move_protocol::retire(plan.stale->path(), plan.tp.topic, plan.tp.partition));
    }
    if (plan.keep != nullptr && plan.keep->marked) {
      at = served->dir;
      move_protocol::finish(served_path);
      log()->info("Finished the interrupted move of {} into {}.", name, logs_.dirs_[at]->path_text);
    }
  } catch (const std::exception& ex) {
    log()->error("Could not resolve the copies of {}: {}", name, ex.what());
    logs_.mark_offline(at, ex.what());
    return false;
  }
  return true;
}

void LogManager::MoveRecovery::serve(const TopicPartition& tp, const Copy& c, const fs::path& path,
                                     bool steps_ok) {
  ScannedLog recovered = c.log;
  try {
    if (steps_ok) recovered.cut_torn_tail(path);
  } catch (const std::exception& ex) {
    log()->error("Could not cut the torn last batch of {}: {}", tp.str(), ex.what());
    logs_.mark_offline(c.dir, ex.what());
  }
  if (logs_.dirs_[c.dir]->online) {
    const layout::PartitionMetadata meta = read_partition_metadata(path);
    logs_.add_partition(c.dir, tp, std::move(recovered.log), meta.expected_bytes, meta.replica_id);
  }
}

void LogManager::recover_moves(const std::vector<std::pair<uint32_t, std::string>>& entries,
                               const std::vector<std::optional<CleanShutdown>>& clean) {
  MoveRecovery recovery(*this);
  // 1. Read what each copy is: its size, and whether a move marked it complete. A directory that
  //    cannot be read goes offline, and its copies take no part in what follows.
  const ScannedCopies scan = recovery.classify(entries, clean);
  // 2. Decide, before anything is changed: a start that must be refused deletes nothing.
  const std::vector<Plan> plans = recovery.decide(scan.partitions);
  // 3. Act, each step made durable before the next: the complete copy takes its final name, the
  //    source is renamed aside, the marker goes. A -delete directory is removed last, and only
  //    when its partition is served or no log directory is offline (it may be the last copy).
  recovery.apply(plans, scan.capped_deletes);
}

}  // namespace lds
