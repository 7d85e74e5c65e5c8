// replica_mover.cpp: the mover threads, the throttled copy of a replica and its promotion.
#include "storage/replica_mover.h"

#include <sys/stat.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <tuple>
#include <utility>

#include "io/durable_file.h"
#include "io/io_errors.h"
#include "io/log_layout.h"
#include "storage/log_manager/internal.h"
#include "storage/move_protocol.h"
#include "storage/move_throttle.h"
#include "storage/segment_copier.h"
#include "util/sync_point.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

// An unthrottled move copies this much between two looks at cancellation and progress.
constexpr uint64_t kChunkBytes = 32ull << 20;
// A throttled move copies at most this much per chunk (a tenth of a second's worth below it).
constexpr uint64_t kThrottledChunkBytes = 1 << 20;
// Below this many bytes left to copy, the mover takes the partition's I/O lock and finishes; under
// a throttle, below one range's worth (range_bytes), paid for before the lock is taken.
constexpr uint64_t kCatchUpBytes = 4 << 20;

// The most one range of a copy may hold under `limit`: a tenth of a second's worth (4 KiB at
// least, 1 MiB at most), so pacing stays smooth under a low limit; kChunkBytes without a limit.
uint64_t range_bytes(uint64_t limit) {
  return is_move_limit(limit) ? std::max<uint64_t>(std::min(kThrottledChunkBytes, limit / 10), 4096)
                              : kChunkBytes;
}

}  // namespace

ReplicaMover::ReplicaMover(ReplicaHost& host)
    : host_(host), throttle_(std::make_unique<MoveThrottle>(bytes_per_second_)) {}

ReplicaMover::~ReplicaMover() { stop(); }

void ReplicaMover::start(int32_t threads) {
  for (int32_t t = 0; t < threads; ++t) threads_.emplace_back([this] { run_thread(); });
}

void ReplicaMover::stop() {
  {
    MutexLock lock(host_.state_mutex());
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void ReplicaMover::set_throttle(uint64_t bytes_per_second) {
  bytes_per_second_.store(bytes_per_second, std::memory_order_relaxed);
}

void ReplicaMover::set_move_ended_listener(std::function<void()> listener) {
  MutexLock lock(listener_mu_);
  move_ended_ = std::move(listener);
}

LogManager::MoveCounters ReplicaMover::counters() const {
  LogManager::MoveCounters c;
  c.copied_bytes = copied_bytes_.load(std::memory_order_relaxed);
  c.failed_no_space = failed_no_space_.load(std::memory_order_relaxed);
  c.failed_no_descriptors = failed_no_descriptors_.load(std::memory_order_relaxed);
  c.failed_disk_error = failed_disk_error_.load(std::memory_order_relaxed);
  c.failed_dir_offline = failed_dir_offline_.load(std::memory_order_relaxed);
  return c;
}

size_t ReplicaMover::in_progress() const {
  MutexLock lock(host_.state_mutex());
  return queue_.size() + running_;
}

const ReplicaMover::Move* ReplicaMover::find_locked(const TopicPartition& tp) const {
  // The LogManager calls this under its mu_, which is the host's state_mutex(): the analysis
  // cannot see the two are one.
  host_.state_mutex().assert_held();
  if (moves_.empty()) return nullptr;
  auto it = moves_.find(tp);
  return it == moves_.end() ? nullptr : it->second.get();
}

bool ReplicaMover::owns_locked(const std::shared_ptr<Move>& m) const {
  auto it = moves_.find(m->partition->tp);
  return it != moves_.end() && it->second == m;
}

std::shared_ptr<ReplicaMover::Move> ReplicaMover::forget_locked(const TopicPartition& tp) {
  if (!failures_.empty()) failures_.erase(tp);
  auto it = moves_.find(tp);
  if (it == moves_.end()) return nullptr;
  std::shared_ptr<Move> m = std::move(it->second);
  moves_.erase(it);
  m->cancelled = true;
  host_.count_replica_locked(m->dest, tp.topic, -1);
  m->left_to_copy.release();
  return m;
}

void ReplicaMover::cancel_locked(const TopicPartition& tp) {
  // The LogManager calls this under its mu_, which is the host's state_mutex(): the analysis
  // cannot see the two are one.
  host_.state_mutex().assert_held();
  if (std::shared_ptr<Move> m = forget_locked(tp)) {
    log()->info("Cancelled the move of {} to {}.", tp.str(), host_.log_dir(m->dest).path_text);
  }
  // The mover that owns the move removes its future directory.
}

void ReplicaMover::stop_moves_of_dir_locked(uint32_t dir, const std::string& reason) {
  // The LogManager calls this under its mu_, which is the host's state_mutex(): the analysis
  // cannot see the two are one.
  host_.state_mutex().assert_held();
  if (moves_.empty()) return;
  std::vector<std::shared_ptr<Move>> hit;
  for (const auto& [tp, m] : moves_) {
    if (m->dest == dir || m->partition->dir == dir) hit.push_back(m);
  }
  std::sort(hit.begin(), hit.end(), [](const auto& a, const auto& b) {
    return std::tie(a->partition->tp.topic, a->partition->tp.partition) <
           std::tie(b->partition->tp.topic, b->partition->tp.partition);
  });
  for (const auto& m : hit) {
    const TopicPartition tp = m->partition->tp;
    const std::string& from = host_.log_dir(m->partition->dir).path_text;
    const std::string& to = host_.log_dir(m->dest).path_text;
    const char* side = m->partition->dir == dir ? "source" : "destination";
    if (m->promoting) {
      log()->warn(
          "The move of {} from {} to {} is already being promoted while its {} log directory {} "
          "went offline ({}); it finishes, or the next start recovers it.",
          tp.str(), from, to, side, host_.log_dir(dir).path_text, reason);
      continue;
    }
    const std::string message = "Move of " + tp.str() + " from " + from + " to " + to +
                                " stopped: its " + side + " log directory " +
                                host_.log_dir(dir).path_text + " went offline (" + reason + ").";
    forget_locked(tp);  // its mover drops the future copy at its next chunk
    failures_[tp] = Failure{m->dest, StorageErrc::kDirUnavailable, message};
    failed_dir_offline_.fetch_add(1, std::memory_order_relaxed);
    log()->error("{}", message);
  }
}

std::vector<std::pair<TopicPartition, ReplicaMover::Failure>> ReplicaMover::failures_locked()
    const {
  // The LogManager calls this under its mu_, which is the host's state_mutex(): the analysis
  // cannot see the two are one.
  host_.state_mutex().assert_held();
  return {failures_.begin(), failures_.end()};
}

bool ReplicaMover::begin(const std::shared_ptr<HostedPartition>& p, uint32_t dest) {
  const TopicPartition& tp = p->tp;
  LogDir& d = host_.log_dir(dest);
  auto m = std::make_shared<Move>();
  m->partition = p;
  m->dest = dest;
  m->future = d.path / layout::future_dir(tp.topic, tp.partition, layout::random_hex_id());
  try {
    if (!host_.in_memory()) {
      check_syscall(::mkdir(m->future.c_str(), 0755), "mkdir", m->future);
      fsync_folder(m->future.parent_path());
    }
  } catch (const std::system_error& e) {
    const int err = e.code().value();
    if (is_name_too_long(err)) {
      throw StorageError(StorageErrc::kDirUnavailable,
                         name_too_long_text("Cannot start moving " + tp.str(), d.path_text,
                                            m->future.string(), err));
    }
    if (is_resource_shortage(err) || is_out_of_space(err)) {
      std::error_code ec;
      fs::remove(m->future, ec);
      throw StorageError(StorageErrc::kDirUnavailable,
                         is_out_of_space(err)
                             ? filesystem_full_for_move(d.path_text, tp.str(), err)
                             : "Cannot start moving " + tp.str() + " to " + d.path_text + ": " +
                                   resource_shortage_text(err) +
                                   "; the log directory stays online.");
    }
    host_.mark_offline(dest, e.what());
    return false;
  }
  std::string offline;  // a dir of the move that went offline while its future was created
  {
    MutexLock lock(host_.state_mutex());
    if (!host_.log_dir(p->dir).online) offline = host_.log_dir(p->dir).path_text;
    if (!d.online) offline = d.path_text;
    if (offline.empty()) {
      failures_.erase(tp);                             // a new move of it starts
      host_.count_replica_locked(dest, tp.topic, +1);  // a future replica counts there, as in Kafka
      m->left_to_copy = Reservation(d.reserved, p->size);
      moves_[tp] = m;
      queue_.push_back(m);
      log()->info("Moving {} from {} to {} ({} bytes).", tp.str(), host_.log_dir(p->dir).path_text,
                  d.path_text, p->size);
    }
  }
  if (!offline.empty()) {
    std::error_code ec;
    fs::remove(m->future, ec);  // tried; the next start discards an unmarked future anyway
    throw StorageError(StorageErrc::kDirUnavailable, "Log directory " + offline + " is offline");
  }
  wake_.notify_one();
  return true;
}

void ReplicaMover::run_thread() {
  for (;;) {
    std::shared_ptr<Move> m;
    {
      MutexLock lock(host_.state_mutex());
      while (!stopping_ && queue_.empty()) wake_.wait(host_.state_mutex());
      if (stopping_) return;
      m = std::move(queue_.front());
      queue_.pop_front();
      running_++;
    }
    try {
      run_move(m);
    } catch (const std::exception& e) {
      handle_failure(m, e);
    }
    {
      MutexLock lock(host_.state_mutex());
      running_--;
    }
    MutexLock lock(listener_mu_);
    if (move_ended_) move_ended_();
  }
}

void ReplicaMover::fail(const std::shared_ptr<Move>& m, const std::string& message) {
  const TopicPartition& tp = m->partition->tp;
  std::error_code ec;
  fs::remove_all(m->future, ec);
  if (!ec) {
    try {
      fsync_folder(m->future.parent_path());
    } catch (const std::exception&) {
      // the removal is redone at the next start if it was not durable
    }
  }
  MutexLock lock(host_.state_mutex());
  if (owns_locked(m)) cancel_locked(tp);
  failures_[tp] = Failure{m->dest, StorageErrc::kDirUnavailable, message};
}

void ReplicaMover::handle_failure(const std::shared_ptr<Move>& m, const std::exception& error) {
  HostedPartition& p = *m->partition;
  const TopicPartition tp = p.tp;
  const std::string& dest_text = host_.log_dir(m->dest).path_text;
  // Deletion takes the I/O lock to remove the source: once it is held, a deleted partition shows.
  MutexLock io(host_.io_of(tp));
  bool gone;
  {
    MutexLock lock(host_.state_mutex());
    gone = m->cancelled.load() || stopping_ || p.deleted;
  }
  if (gone) {
    // The partition was deleted, or the move cancelled, while it was being copied: whatever the
    // copy ran into (its source vanished), the move is simply over.
    log()->info("The move of {} to {} stopped: the partition was deleted or the move cancelled.",
                tp.str(), dest_text);
    std::error_code ec;
    fs::remove_all(m->future, ec);
    MutexLock lock(host_.state_mutex());
    if (owns_locked(m)) cancel_locked(tp);
    return;
  }
  const auto* system = dynamic_cast<const std::system_error*>(&error);
  const int err = system != nullptr ? system->code().value() : 0;
  if (system != nullptr && is_out_of_space(err)) {
    // A full destination is not a failed one: this move fails, the dir stays online.
    std::error_code ec;
    fs::remove_all(m->future, ec);
    uint64_t needed, reserved;
    const std::vector<uint64_t> filesystems = host_.dir_filesystems();
    {
      MutexLock lock(host_.state_mutex());
      if (owns_locked(m)) cancel_locked(tp);  // releases the move's reservation
      needed = p.size;
      reserved = host_.reserved_on_filesystem_locked(m->dest, filesystems);
    }
    const DiskSpace space = host_.read_space(m->dest);
    const uint64_t free =
        space.known && space.usable_bytes > reserved ? space.usable_bytes - reserved : 0;
    // The byte count explains the failure only when it shows the shortfall; otherwise the
    // filesystem refused what the count allowed (an empty partition's mkdir on a full disk).
    const std::string message = needed > free
                                    ? not_enough_space_to_move(dest_text, tp.str(), needed, free)
                                    : filesystem_full_for_move(dest_text, tp.str(), err);
    log()->warn("Move of {} to {} failed ({}): {} The log directory stays online.", tp.str(),
                dest_text, error.what(), message);
    failed_no_space_.fetch_add(1, std::memory_order_relaxed);
    fail(m, message);
    return;
  }
  if (system != nullptr && is_resource_shortage(err)) {
    const std::string message = "Move of " + tp.str() + " to " + dest_text +
                                " failed: " + resource_shortage_text(err) +
                                "; the log directory stays online.";
    log()->error("{} ({})", message, error.what());
    failed_no_descriptors_.fetch_add(1, std::memory_order_relaxed);
    fail(m, message);
    return;
  }
  // A disk failed. The source's, when the failing path is in the source partition; else the
  // destination's. The other side is untouched.
  fs::path at;
  if (const auto* f = dynamic_cast<const FileError*>(&error)) at = f->path();
  if (const auto* f = dynamic_cast<const fs::filesystem_error*>(&error)) at = f->path1();
  const fs::path src = host_.log_dir(p.dir).path / tp.str();
  const bool source_failed = !at.empty() && (at == src || at.parent_path() == src);
  const uint32_t failed_dir = source_failed ? p.dir : m->dest;
  log()->error("Move of {} to {} failed: {}", tp.str(), dest_text, error.what());
  failed_disk_error_.fetch_add(1, std::memory_order_relaxed);
  const std::string message = "Move of " + tp.str() + " to " + dest_text +
                              " failed: " + error.what() + "; log directory " +
                              host_.log_dir(failed_dir).path_text + " is offline.";
  if (source_failed) {
    fail(m, message);
  } else {
    MutexLock lock(host_.state_mutex());
    if (owns_locked(m)) cancel_locked(tp);
    failures_[tp] = Failure{m->dest, StorageErrc::kDirUnavailable, message};
  }
  host_.mark_offline(failed_dir, error.what());
}

bool ReplicaMover::abandoned(const Move& m) const {
  MutexLock lock(host_.state_mutex());
  return m.cancelled.load() || stopping_;
}

void ReplicaMover::drop_future(const std::shared_ptr<Move>& m) {
  const TopicPartition tp = m->partition->tp;
  std::error_code ec;
  fs::remove_all(m->future, ec);
  MutexLock lock(host_.state_mutex());
  if (owns_locked(m)) cancel_locked(tp);  // shutdown: dropped, not left half-done
}

void ReplicaMover::record_progress(Move& m, uint64_t copied_now) {
  const HostedPartition& p = *m.partition;
  MutexLock lock(host_.state_mutex());
  if (m.cancelled) return;
  m.copied += copied_now;
  copied_bytes_.fetch_add(copied_now, std::memory_order_relaxed);
  host_.record_copy_locked(m.dest, copied_now);
  // Appends continue while the copy runs: what is left can grow as well as shrink.
  m.left_to_copy.resize(p.size > m.copied ? p.size - m.copied : 0);
}

bool ReplicaMover::bulk_copy(Move& m, SegmentCopier& copier, uint64_t& paid) {
  const HostedPartition& p = *m.partition;
  MoveThrottle& throttle = *throttle_;
  const MoveThrottle::Abandoned gone = [this, &m] { return abandoned(m); };
  for (;;) {
    if (abandoned(m)) return false;
    const uint64_t limit = throttle.limit();
    if (limit == 0) {  // not even the catch-up may copy
      MoveThrottle::pause();
      continue;
    }
    const uint64_t range = range_bytes(limit);
    uint64_t committed, copied;
    {
      MutexLock lock(host_.state_mutex());
      committed = p.size;
      copied = m.copied;
    }
    const uint64_t left = committed - std::min(committed, copied);
    // The catch-up copies what is left with appends paused: a few MiB without a limit; under one,
    // at most one range, paid for now, so the limit holds for every byte and the pause stays as
    // short as the copy.
    if (left <= (is_move_limit(limit) ? range : kCatchUpBytes)) {
      if (!throttle.before_copy(left, gone)) continue;  // the limit became 0, or it was abandoned
      paid = left;
      return true;
    }
    const uint64_t to = std::min(committed, copied + range);
    const auto started = MoveThrottle::Clock::now();
    copier.copy(copied, to);
    record_progress(m, to - copied);
    LDS_SYNC_POINT("during_copy");
    throttle.copied(to - copied, started, gone);
  }
}

uint64_t ReplicaMover::catch_up_locked(Move& m, SegmentCopier& copier, uint64_t paid) {
  const HostedPartition& p = *m.partition;
  uint64_t committed, copied;
  {
    MutexLock lock(host_.state_mutex());
    committed = p.size;
    copied = m.copied;
  }
  if (copied < committed) {
    copier.copy(copied, committed);
    record_progress(m, committed - copied);
    throttle_->owe(committed - copied - std::min(committed - copied, paid));
  }
  copier.copy_partition_metadata();
  copier.copy_indexes();
  copier.sync();
  return committed;
}

void ReplicaMover::run_move(const std::shared_ptr<Move>& m) {
  HostedPartition& p = *m->partition;
  const TopicPartition tp = p.tp;
  const fs::path src = host_.log_dir(p.dir).path / tp.str();

  // Bulk copy while appends continue: large ranges, each segment opened once.
  SegmentCopier copier(src, m->future);
  uint64_t paid = 0;  // bytes of the catch-up paid for in advance
  if (!bulk_copy(*m, copier, paid)) return drop_future(m);

  // Catch up with appends stopped, make the copy durable, mark it complete, promote.
  MutexLock io(host_.io_of(tp));
  if (abandoned(*m) || p.deleted) {
    io.unlock();
    return drop_future(m);
  }
  const uint64_t committed = catch_up_locked(*m, copier, paid);
  bool stopped;
  {
    // The commit point: from here the move promotes (or a crash leaves it to recovery), and a
    // directory going offline no longer stops it (stop_moves_of_dir_locked).
    MutexLock lock(host_.state_mutex());
    stopped = m->cancelled || stopping_;
    if (!stopped) m->promoting = true;
  }
  if (stopped) {
    io.unlock();
    return drop_future(m);
  }
  // The marker names the topic-partition in full: a capped future name holds a prefix of it.
  move_protocol::mark_complete(m->future, src.string(), committed, tp.topic, tp.partition);
  LDS_SYNC_POINT("after_marker");
  const fs::path del = promote(m, src);
  io.unlock();
  std::error_code ec;
  if (!del.empty()) fs::remove_all(del, ec);  // a crash before this leaves it to the next start
  if (ec) {
    log()->warn("Could not remove {}: {}; it is removed at the next start.", del.string(),
                ec.message());
  }
}

fs::path ReplicaMover::promote(const std::shared_ptr<Move>& m, const fs::path& src) {
  HostedPartition& p = *m->partition;
  const TopicPartition tp = p.tp;
  const uint32_t from = p.dir;
  const LogDir& dest = host_.log_dir(m->dest);
  const fs::path final_path = dest.path / tp.str();

  // 1. The final name must be free before anything is renamed.
  struct stat st {};
  if (::lstat(final_path.c_str(), &st) == 0) {
    const std::string message = "Cannot move " + tp.str() + " to " + dest.path_text + ": " +
                                final_path.string() + " is already taken by " +
                                (S_ISDIR(st.st_mode) ? "a directory" : "a file") +
                                " that is not part of the move; the move is cancelled.";
    log()->error("{}", message);
    fail(m, message);
    return {};
  }
  if (errno != ENOENT) check_syscall(-1, "lstat", final_path);

  // 2. The complete copy takes its final name, the marker still inside. A failure here is the
  //    destination's (the caller takes it offline); the source is untouched and stays served.
  move_protocol::promote(m->future, final_path);
  LDS_SYNC_POINT("after_future_renamed");

  // From here the new copy is the partition, whatever fails next.
  {
    MutexLock lock(host_.state_mutex());
    m->left_to_copy.release();
    host_.relocate_locked(p, m->dest);
    moves_.erase(tp);
  }
  LDS_SYNC_POINT("before_source_renamed");  // on disk as after_future_renamed; served from dest

  // 3. The source goes aside. If its disk fails now, the marker stays in the new copy, so a
  //    restart that finds the old copy again knows which one is current; and the old copy's
  //    deletion is recorded, for when the new copy is deleted or moved on before that restart.
  fs::path del;
  try {
    del = move_protocol::retire(src, tp.topic, tp.partition);
    LDS_SYNC_POINT("after_source_renamed");
  } catch (const std::exception& e) {
    log()->error("Moved {} to {}, but its old copy {} could not be removed: {}", tp.str(),
                 dest.path_text, src.string(), e.what());
    host_.record_stale_copy(from, tp, e.what());
    host_.mark_offline(from, e.what());
    return {};  // the -delete copy, if renamed, stays for the next start
  }

  // 4. The marker goes; the -delete directory after it.
  try {
    move_protocol::finish(final_path);
    LDS_SYNC_POINT("after_marker_removed");
  } catch (const std::exception& e) {
    log()->error("Moved {} to {}, but finishing the move failed: {}", tp.str(), dest.path_text,
                 e.what());
    host_.mark_offline(m->dest, e.what());
    return {};  // the next start finishes it; the -delete copy stays until then
  }
  log()->info("Moved {} from {} to {}.", tp.str(), host_.log_dir(from).path_text, dest.path_text);
  return del;
}

}  // namespace lds
