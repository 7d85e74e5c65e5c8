// log_manager.cpp: log directories on disk, placement through the active strategy, appends,
// deletion.
#include "core/log_manager.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

#include "core/durable_file.h"
#include "core/io_errors.h"
#include "core/log_layout.h"
#include "core/logging.h"
#include "core/replica_mover.h"
#include "log_manager_internal.h"

namespace lds {

namespace fs = std::filesystem;

std::string TopicPartition::str() const { return layout::partition_dir(topic, partition); }

size_t TopicPartitionHash::operator()(const TopicPartition& tp) const noexcept {
  return std::hash<std::string>()(tp.topic) * 31u + static_cast<size_t>(tp.partition);
}

namespace detail {

std::shared_ptr<spdlog::logger> log_manager_log() {
  static auto l = logger("lds.log_manager");
  return l;
}

uint64_t segments_size(const fs::path& partition_dir, uint64_t* active_base) {
  uint64_t size = 0, active = 0;
  for (const auto& seg : fs::directory_iterator(partition_dir)) {
    uint64_t base = 0;
    if (!layout::parse_segment_file(seg.path().filename().string(), &base)) continue;
    size += seg.file_size();
    active = std::max(active, base);
  }
  if (active_base) *active_base = active;
  return size;
}

}  // namespace detail

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::log_manager_log(); }

std::string errno_text(int err) { return std::strerror(err); }

std::map<std::string, std::string> read_properties(const fs::path& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

}  // namespace

LogManager::LogManager(Options options, std::shared_ptr<const DiskProbe> probe, StrategySlot& slot)
    : options_(std::move(options)),
      probe_(std::move(probe)),
      slot_(slot),
      mover_(std::make_unique<ReplicaMover>(*this)) {
  for (const auto& path : options_.log_dirs) dirs_.push_back(std::make_unique<Dir>(path));
}

LogManager::~LogManager() { mover_->stop(); }

void LogManager::mark_offline(uint32_t dir_index, const std::string& reason) {
  std::lock_guard lock(mu_);
  Dir& d = *dirs_[dir_index];
  if (!d.online) return;
  d.online = false;
  d.offline_reason = reason;
  log()->error("Log directory {} is now offline: {}", d.path_text, reason);
}

int LogManager::dir_index(const fs::path& dir) const {
  for (size_t i = 0; i < dirs_.size(); ++i) {
    if (dirs_[i]->path == dir) return static_cast<int>(i);
  }
  return -1;
}

void LogManager::startup() {
  std::vector<std::pair<uint32_t, fs::path>> futures;
  for (uint32_t i = 0; i < dirs_.size() && !options_.in_memory; ++i) {
    Dir& d = *dirs_[i];
    try {
      fs::create_directories(d.path);
      const fs::path meta = d.path / layout::kMetaProperties;
      if (fs::exists(meta)) {
        auto props = read_properties(meta);
        auto id = props.find("broker.id");
        if (id != props.end() && id->second != std::to_string(options_.broker_id)) {
          throw ConfigError("Log directory " + d.path_text + " belongs to broker.id " + id->second +
                            " (see " + meta.string() + "), but this broker's broker.id is " +
                            std::to_string(options_.broker_id) + ".");
        }
        d.directory_id = props.count("directory.id") ? props["directory.id"] : "";
      }
      if (d.directory_id.empty()) {
        d.directory_id = layout::random_directory_id();
        write_file_atomically(meta,
                              "#Written by lds-host; Kafka's log directory metadata.\n"
                              "version=1\nbroker.id=" +
                                  std::to_string(options_.broker_id) +
                                  "\ndirectory.id=" + d.directory_id + "\n");
      }
      for (auto& f : load_dir(i)) futures.emplace_back(i, std::move(f));
    } catch (const ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      mark_offline(i, e.what());
    }
  }
  // Every directory is scanned before interrupted moves are resolved, so a move's source is known
  // wherever it lives.
  recover_moves(futures);
  if (!options_.in_memory) mover_->start(std::max(options_.mover_threads, 1));
}

std::vector<fs::path> LogManager::load_dir(uint32_t dir_index) {
  const Dir& d = *dirs_[dir_index];
  std::vector<fs::path> futures;
  for (const auto& entry : fs::directory_iterator(d.path)) {
    const std::string name = entry.path().filename().string();
    layout::Entry e = layout::parse_entry(name);
    if (!entry.is_directory()) continue;
    if (e.kind == layout::EntryKind::kDelete) {
      log()->info("Removing {} left over from a deletion or a move.", entry.path().string());
      fs::remove_all(entry.path());
      continue;
    }
    if (e.kind == layout::EntryKind::kFuture) {
      futures.push_back(entry.path());
      continue;
    }
    if (e.kind != layout::EntryKind::kPartition) continue;
    // A marker inside a partition directory means a move promoted it and stopped just before
    // removing the marker; the partition is complete.
    fs::remove(entry.path() / layout::kMoveCompleteMarker);
    const uint64_t size = detail::segments_size(entry.path(), nullptr);
    TopicPartition tp{e.topic, e.partition};
    {
      std::unique_lock lock(mu_);
      auto existing = partitions_.find(tp);
      if (existing != partitions_.end()) {
        // Two complete copies and no move marker (not something a move leaves behind): keep the
        // larger, the first in log.dirs order on a tie.
        const bool keep_new = size > existing->second->size;
        const fs::path drop =
            keep_new ? dirs_[existing->second->dir]->path / tp.str() : d.path / tp.str();
        log()->warn(
            "Partition {} was found in two log directories; keeping the larger copy and "
            "removing {}.",
            tp.str(), drop.string());
        if (keep_new) remove_partition_locked(tp);
        lock.unlock();
        fs::remove_all(drop);
        if (!keep_new) continue;
      }
    }
    add_partition(dir_index, tp, size, 0);
  }
  return futures;
}

std::mutex& LogManager::io_of(const TopicPartition& tp) const {
  return io_stripes_[TopicPartitionHash()(tp) % kIoStripes];
}

const LogManager::TopicStats* LogManager::topic_stats_locked(const std::string& topic) const {
  auto t = topics_.find(topic);
  return t == topics_.end() ? nullptr : &t->second;
}

void LogManager::count_replica_locked(uint32_t dir_index, const std::string& topic, int delta) {
  TopicStats& t = topics_[topic];
  t.per_dir.resize(dirs_.size());
  t.per_dir[dir_index] += static_cast<uint32_t>(delta);
  dirs_[dir_index]->partition_count += static_cast<uint32_t>(delta);
}

void LogManager::add_partition(uint32_t dir_index, const TopicPartition& tp, uint64_t size,
                               uint64_t expected) {
  auto p = std::make_shared<Partition>();
  p->tp = tp;
  p->dir = dir_index;
  p->size = size;
  std::lock_guard lock(mu_);
  count_replica_locked(dir_index, tp.topic, +1);
  p->reservation = Reservation(dirs_[dir_index]->reserved, expected > size ? expected - size : 0);
  TopicStats& t = topics_[tp.topic];
  t.partitions++;
  t.bytes += size;
  total_bytes_hosted_ += size;
  partitions_.emplace(tp, std::move(p));
}

void LogManager::remove_partition_locked(const TopicPartition& tp) {
  auto it = partitions_.find(tp);
  if (it == partitions_.end()) return;
  Partition& p = *it->second;
  mover_->cancel_locked(tp);
  count_replica_locked(p.dir, tp.topic, -1);
  p.reservation.release();
  TopicStats& t = topics_[tp.topic];
  t.bytes -= p.size;
  if (--t.partitions == 0) topics_.erase(tp.topic);
  total_bytes_hosted_ -= p.size;
  partitions_.erase(it);
}

void LogManager::record_append_locked(Partition& p, uint64_t written) {
  // Bytes written past the partition's expected size were never reserved.
  p.reservation.update(std::min(written, p.reservation.bytes()));
  TopicStats& t = topics_[p.tp.topic];
  t.bytes += written;
  total_bytes_hosted_ += written;
  p.size += written;
}

void LogManager::relocate_locked(Partition& p, uint32_t to) {
  count_replica_locked(p.dir, p.tp.topic, -1);
  p.reservation = Reservation(dirs_[to]->reserved, p.reservation.bytes());
  p.dir = to;
}

void LogManager::set_cordoned(const std::function<bool(const fs::path&)>& is_cordoned) {
  std::lock_guard lock(mu_);
  for (auto& d : dirs_) d->cordoned = is_cordoned(d->path);
}

void LogManager::set_partition_expected_bytes(uint64_t bytes) {
  std::lock_guard lock(mu_);
  default_expected_bytes_ = bytes;
}

uint64_t LogManager::expected_bytes_for(const TopicStats* topic, uint64_t requested) const {
  if (requested > 0) return requested;
  if (default_expected_bytes_ > 0) return default_expected_bytes_;
  // A topic whose partitions hold nothing yet (a burst still being created) says nothing about
  // their size; its mean of 0 would let the whole burst land on one directory.
  if (topic != nullptr && topic->partitions > 0 && topic->bytes > 0) {
    return topic->bytes / topic->partitions;
  }
  if (!partitions_.empty()) return total_bytes_hosted_ / partitions_.size();
  return 0;
}

void LogManager::fill_candidates(const TopicStats* topic, std::vector<lds_dir>& out,
                                 std::vector<uint32_t>& indices) const {
  const std::vector<uint32_t>* counts =
      topic != nullptr && topic->per_dir.size() == dirs_.size() ? &topic->per_dir : nullptr;
  // Fields are written in place: building an lds_dir on the stack and copying it costs a
  // store-forwarding stall per directory, a third of a whole placement decision.
  out.resize(dirs_.size());
  indices.resize(dirs_.size());
  uint32_t n = 0;
  for (uint32_t i = 0; i < dirs_.size(); ++i) {
    const Dir& d = *dirs_[i];
    if (!d.online) continue;
    lds_dir& c = out[n];
    c.struct_size = sizeof(lds_dir);
    c.flags = d.cordoned ? LDS_DIR_CORDONED : 0;
    c.path = d.path_text.c_str();
    c.total_bytes = 0;
    c.usable_bytes = 0;
    c.reserved_bytes = d.reserved.bytes();
    c.partition_count = d.partition_count;
    c.topic_partition_count = counts != nullptr ? (*counts)[i] : 0;
    indices[n++] = i;
  }
  out.resize(n);
  indices.resize(n);
}

void LogManager::fill_space(std::vector<lds_dir>& dirs, const std::vector<uint32_t>& indices,
                            bool read_space) const {
  // Called without mu_: a directory's path never changes, and statvfs may be slow.
  for (size_t k = 0; k < dirs.size(); ++k) {
    DiskSpace space = read_space ? probe_->read(dirs_[indices[k]]->path) : DiskSpace{};
    if (space.known && space.total_bytes > 0) {
      dirs[k].total_bytes = space.total_bytes;
      dirs[k].usable_bytes = space.usable_bytes;
    } else {
      dirs[k].flags |= LDS_DIR_SPACE_UNKNOWN;
    }
  }
}

std::vector<lds_dir> LogManager::candidates(
    const std::string& topic, bool read_space, std::vector<uint32_t>* dir_indices,
    const std::function<bool(const fs::path&)>& cordoned) const {
  std::vector<lds_dir> out;
  std::vector<uint32_t> indices;
  {
    std::lock_guard lock(mu_);
    fill_candidates(topic_stats_locked(topic), out, indices);
  }
  fill_space(out, indices, read_space);
  if (cordoned) {
    for (size_t k = 0; k < out.size(); ++k) {
      out[k].flags &= ~LDS_DIR_CORDONED;
      if (cordoned(dirs_[indices[k]]->path)) out[k].flags |= LDS_DIR_CORDONED;
    }
  }
  if (dir_indices) *dir_indices = std::move(indices);
  return out;
}

std::shared_ptr<const LoadedStrategy> LogManager::load_strategy(
    StrategyLoadSpec spec, const std::function<bool(const fs::path&)>& cordoned) const {
  const std::vector<lds_dir> dirs = candidates("__lds_dry_run", true, nullptr, cordoned);
  spec.generation = slot_.next_generation();
  spec.dry_run_dirs = dirs;
  return LoadedStrategy::load(spec);
}

void LogManager::create_on_disk(uint32_t dir_index, const TopicPartition& tp) {
  if (options_.in_memory) return;
  // No meta.properties: the directory was unmounted (or replaced) underneath the broker, and a
  // partition created now would land on whatever filesystem is left at that path.
  const fs::path meta = dirs_[dir_index]->path / layout::kMetaProperties;
  check_syscall(::access(meta.c_str(), F_OK), "access", meta);
  const fs::path dir = dirs_[dir_index]->path / tp.str();
  check_syscall(::mkdir(dir.c_str(), 0755), "mkdir", dir);
  const fs::path segment = dir / layout::segment_file(0);
  try {
    open_file(segment, O_WRONLY | O_CREAT | O_EXCL, 0644, "create");
  } catch (const FileError&) {
    ::rmdir(dir.c_str());  // no half-created partition
    throw;
  }
  fsync_folder(dirs_[dir_index]->path);
}

PlacementDecision LogManager::choose(const std::string& topic, int32_t partition,
                                     std::optional<uint64_t> expected_bytes) const {
  const TopicPartition tp{topic, partition};
  auto strategy = slot_.current();
  const bool read_space = !strategy || (strategy->capabilities() & LDS_CAP_USES_SPACE) != 0;
  // Per-thread scratch: a placement decision allocates nothing once warmed up.
  thread_local std::vector<lds_dir> dirs;
  thread_local std::vector<uint32_t> indices;
  thread_local std::vector<uint32_t> order;
  PlacementDecision decision;
  int preferred = -1;
  {
    std::lock_guard lock(mu_);
    const TopicStats* stats = topic_stats_locked(topic);  // one hash of the topic per decision
    // value_or selects before comparing: `opt && *opt > 0` compiles to a branch on the
    // unset value's bytes when the optional is empty, which Valgrind reports.
    decision.expected_bytes = expected_bytes_for(stats, expected_bytes.value_or(0));
    if (auto pref = preferred_.empty() ? preferred_.end() : preferred_.find(tp);
        pref != preferred_.end()) {
      for (uint32_t i = 0; i < dirs_.size(); ++i) {
        if (dirs_[i]->path == pref->second && dirs_[i]->online) preferred = static_cast<int>(i);
      }
    }
    if (preferred < 0) fill_candidates(stats, dirs, indices);
  }
  if (preferred < 0) fill_space(dirs, indices, read_space);
  if (preferred >= 0) {
    decision.dirs.push_back(static_cast<uint32_t>(preferred));
    decision.strategy = "preferred";
    return decision;
  }
  if (dirs.empty()) {
    std::string all;
    for (const auto& d : dirs_) all += (all.empty() ? "" : ", ") + d->path_text;
    throw KafkaError(ErrorCode::kKafkaStorageError, "No log directories available. Tried " + all);
  }
  order.resize(dirs.size());
  lds_request request{sizeof(lds_request), partition, topic.c_str(), decision.expected_bytes};
  RankOutcome outcome = slot_.rank(std::move(strategy), request, dirs, order);
  decision.strategy = outcome.strategy ? outcome.strategy->name() : "builtin";
  decision.generation = outcome.strategy ? outcome.strategy->generation() : 0;
  decision.fell_back = outcome.fell_back;
  if (outcome.status != LDS_OK) {
    throw KafkaError(ErrorCode::kKafkaStorageError,
                     "No eligible log directory for " + tp.str() + ": " + outcome.message + ".");
  }
  decision.dirs.reserve(outcome.order_len);
  for (uint32_t k = 0; k < outcome.order_len; ++k) decision.dirs.push_back(indices[order[k]]);
  return decision;
}

PlacementResult LogManager::create_partition(const std::string& topic, int32_t partition,
                                             std::optional<uint64_t> expected_bytes) {
  if (std::string why = layout::topic_name_problem(topic); !why.empty()) {
    throw KafkaError(ErrorCode::kInvalidTopic, why);
  }
  if (partition < 0) {
    throw KafkaError(ErrorCode::kInvalidPartitions,
                     "Partition " + std::to_string(partition) + " of topic " + topic +
                         " is negative; partition numbers start at 0.");
  }
  const TopicPartition tp{topic, partition};
  std::lock_guard create_lock(create_mu_);
  {
    // Kafka's getOrCreateLog: an existing replica is returned, not created again.
    std::lock_guard lock(mu_);
    if (auto it = partitions_.find(tp); it != partitions_.end()) {
      return PlacementResult{dirs_[it->second->dir]->path_text, false, "", 0, false};
    }
  }
  PlacementDecision decision = choose(topic, partition, expected_bytes);
  PlacementResult result;
  result.strategy = decision.strategy;
  result.generation = decision.generation;
  result.fell_back = decision.fell_back;
  const uint64_t expected = decision.expected_bytes;
  const auto& attempt = decision.dirs;

  std::string tried;
  for (uint32_t dir : attempt) {
    tried += (tried.empty() ? "" : ", ") + dirs_[dir]->path_text;
    try {
      create_on_disk(dir, tp);
    } catch (const std::system_error& e) {
      if (is_resource_shortage(e.code().value())) {
        throw KafkaError(ErrorCode::kKafkaStorageError,
                         "Cannot create " + tp.str() + " in " + dirs_[dir]->path_text + ": " +
                             resource_shortage_text(e.code().value()) +
                             "; the log directory stays online.");
      }
      mark_offline(dir, e.what());
      continue;
    }
    add_partition(dir, tp, 0, expected);
    {
      std::lock_guard lock(mu_);
      preferred_.erase(tp);
    }
    result.log_dir = dirs_[dir]->path_text;
    result.created = true;
    log()->info("Created {} in {} (strategy {}, generation {}{}, expected {} bytes).", tp.str(),
                result.log_dir, result.strategy, result.generation,
                result.fell_back ? ", built-in fallback" : "", expected);
    return result;
  }
  throw KafkaError(ErrorCode::kKafkaStorageError, "No log directories available. Tried " + tried);
}

uint64_t LogManager::append(const std::string& topic, int32_t partition, uint64_t bytes) {
  std::shared_ptr<Partition> p;
  {
    std::lock_guard lock(mu_);
    auto it = partitions_.find(TopicPartition{topic, partition});
    if (it == partitions_.end()) {
      throw KafkaError(ErrorCode::kUnknownTopicOrPartition,
                       "This server does not host this topic-partition.");
    }
    p = it->second;
    if (!dirs_[p->dir]->online) {
      throw KafkaError(ErrorCode::kKafkaStorageError,
                       "Log directory " + dirs_[p->dir]->path_text + " is offline");
    }
  }
  std::lock_guard io(io_of(p->tp));
  if (p->deleted) {
    throw KafkaError(ErrorCode::kUnknownTopicOrPartition,
                     "This server does not host this topic-partition.");
  }
  uint64_t size;
  {
    std::lock_guard lock(mu_);
    size = p->size;
  }
  if (!options_.in_memory && bytes > 0) {
    const fs::path dir = dirs_[p->dir]->path / p->tp.str();
    std::vector<char> buf(static_cast<size_t>(std::min<uint64_t>(bytes, 1 << 20)));
    uint64_t done = 0;
    while (done < bytes) {
      const uint64_t offset = size + done;
      const uint64_t base = detail::active_segment_base(offset);
      const fs::path segment = dir / layout::segment_file(base);
      const uint64_t room = layout::kSegmentBytes - (offset - base);
      const size_t n = static_cast<size_t>(std::min<uint64_t>({bytes - done, buf.size(), room}));
      layout::fill_payload(topic, partition, offset, std::span<char>(buf.data(), n));
      int err = 0;
      ssize_t w = -1;
      if (const Fd fd(::open(segment.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644));
          fd) {
        const off_t before = ::lseek(fd.get(), 0, SEEK_END);
        w = ::write(fd.get(), buf.data(), n);
        if (w >= 0 && static_cast<size_t>(w) != n) errno = ENOSPC;
        err = errno;
        if (w >= 0 && static_cast<size_t>(w) != n) w = -1;
        if (w < 0 && before >= 0) (void)::ftruncate(fd.get(), before);  // never leave a torn append
      } else {
        err = errno;
      }
      if (w < 0) {
        // Account for what was fully written before the failure, then report it.
        {
          std::lock_guard lock(mu_);
          record_append_locked(*p, done);
        }
        if (err == ENOSPC || err == EDQUOT) {
          throw KafkaError(ErrorCode::kKafkaStorageError,
                           "Not enough space in log directory " + dirs_[p->dir]->path_text +
                               " to append " + std::to_string(bytes) + " bytes to " + p->tp.str() +
                               "; " + std::to_string(done) + " bytes were appended.");
        }
        if (is_resource_shortage(err)) {
          throw KafkaError(ErrorCode::kKafkaStorageError,
                           "Cannot append to " + p->tp.str() + " in " + dirs_[p->dir]->path_text +
                               ": " + resource_shortage_text(err) + "; " + std::to_string(done) +
                               " bytes were appended, and the log directory stays online.");
        }
        mark_offline(p->dir, "append to " + segment.string() + " failed: " + errno_text(err));
        throw KafkaError(ErrorCode::kKafkaStorageError,
                         "Log directory " + dirs_[p->dir]->path_text + " is offline");
      }
      done += n;
    }
  }
  std::lock_guard lock(mu_);
  record_append_locked(*p, bytes);
  return p->size;
}

uint32_t LogManager::delete_topic(const std::string& topic) {
  std::lock_guard create_lock(create_mu_);
  std::vector<std::shared_ptr<Partition>> victims;
  {
    std::lock_guard lock(mu_);
    for (const auto& [tp, p] : partitions_) {
      if (tp.topic == topic) victims.push_back(p);
    }
  }
  if (victims.empty()) {
    throw KafkaError(ErrorCode::kUnknownTopicOrPartition,
                     "Topic " + topic + " is not hosted by this broker.");
  }
  for (const auto& p : victims) {
    std::lock_guard io(io_of(p->tp));
    if (!options_.in_memory && dirs_[p->dir]->online) {
      const fs::path src = dirs_[p->dir]->path / p->tp.str();
      const fs::path del = dirs_[p->dir]->path / layout::delete_dir(p->tp.topic, p->tp.partition,
                                                                    layout::random_hex_id());
      std::error_code ec;
      fs::rename(src, del, ec);
      if (!ec) fs::remove_all(del, ec);
      if (ec)
        log()->warn("Could not remove {}: {}; it is removed at the next start.", src.string(),
                    ec.message());
    }
    p->deleted = true;
    std::lock_guard lock(mu_);
    remove_partition_locked(p->tp);
    preferred_.erase(p->tp);
  }
  log()->info("Deleted topic {} ({} partitions).", topic, victims.size());
  return static_cast<uint32_t>(victims.size());
}

std::vector<LogDirDescription> LogManager::describe() const {
  std::vector<LogDirDescription> out;
  std::lock_guard lock(mu_);
  for (const auto& d : dirs_) {
    LogDirDescription desc;
    desc.log_dir = d->path_text;
    desc.directory_id = d->directory_id;
    desc.cordoned = d->cordoned;
    desc.reserved_bytes = d->reserved.bytes();
    if (!d->online) {
      desc.error = ErrorCode::kKafkaStorageError;
      desc.error_message = d->offline_reason;
    } else {
      DiskSpace space = probe_->read(d->path);
      desc.space_known = space.known;
      desc.total_bytes = space.total_bytes;
      desc.usable_bytes = space.usable_bytes;
    }
    out.push_back(std::move(desc));
  }
  std::vector<const Partition*> sorted;
  sorted.reserve(partitions_.size());
  for (const auto& [tp, p] : partitions_) sorted.push_back(p.get());
  std::sort(sorted.begin(), sorted.end(), [](const Partition* a, const Partition* b) {
    return std::tie(a->tp.topic, a->tp.partition) < std::tie(b->tp.topic, b->tp.partition);
  });
  for (const Partition* p : sorted) {
    if (dirs_[p->dir]->online) out[p->dir].partitions.push_back({p->tp.str(), p->size, 0, false});
    // A move in progress shows as a future replica in its destination, as Kafka reports it.
    const ReplicaMover::Move* m = mover_->find_locked(p->tp);
    if (m != nullptr && dirs_[m->dest]->online) {
      const uint64_t copied = std::min(m->copied, p->size);
      out[m->dest].partitions.push_back({p->tp.str(), copied, p->size - copied, true});
    }
  }
  return out;
}

void LogManager::remember_preferred_dir(const TopicPartition& tp, const fs::path& dir) {
  std::lock_guard lock(mu_);
  preferred_[tp] = dir;
}

void LogManager::forget_preferred_dir(const TopicPartition& tp) {
  std::lock_guard lock(mu_);
  preferred_.erase(tp);
}

size_t LogManager::partition_count() const {
  std::lock_guard lock(mu_);
  return partitions_.size();
}

void LogManager::mark_online(uint32_t dir_index) {
  std::lock_guard lock(mu_);
  Dir& d = *dirs_[dir_index];
  if (d.online) return;
  d.online = true;
  d.offline_reason.clear();
  log()->info("Log directory {} is online.", d.path_text);
}

}  // namespace lds
