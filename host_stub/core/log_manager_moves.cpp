// log_manager_moves.cpp: KIP-113 replica moves: AlterReplicaLogDirs, mover threads, copy and promotion.
//
// A move copies <src>/<tp> into <dest>/<tp>.<id>-future while appends continue, catches up with the
// partition's I/O lock held, writes a durable completion marker, then promotes: the source is
// renamed to <tp>.<id>-delete and the future to <tp>. Startup recovery (LogManager::recover_moves)
// finishes a marked future and discards an unmarked one, so at every crash point the partition
// exists exactly once, complete.
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <thread>

#include "core/config.h"
#include "core/durable_file.h"
#include "core/log_layout.h"
#include "core/log_manager.h"
#include "log_manager_internal.h"

namespace lds {
namespace {

constexpr uint64_t kChunkBytes = 1 << 20;
// Below this many bytes left to copy, the mover takes the partition's I/O lock and finishes.
constexpr uint64_t kCatchUpBytes = 4 << 20;

std::shared_ptr<spdlog::logger> log() { return detail::log_manager_log(); }

// Crash-test seam: LDS_CRASH_POINT=<name> kills the process with SIGKILL when a move reaches that
// point, so tests can stop the broker between any two steps of the protocol.
void crash_point(const char* name) {
  static const char* wanted = std::getenv("LDS_CRASH_POINT");
  if (wanted != nullptr && std::strcmp(wanted, name) == 0) ::kill(::getpid(), SIGKILL);
}

// The segments of a partition directory by base offset.
std::map<uint64_t, fs::path> segments_of(const fs::path& dir) {
  std::map<uint64_t, fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    uint64_t base = 0;
    if (layout::parse_segment_file(e.path().filename().string(), &base)) out[base] = e.path();
  }
  return out;
}

// Copies at most `budget` bytes of the source log that the future copy lacks, never past
// `committed` (the partition's size: bytes of an append still in flight are not copied). Returns
// the number of bytes copied.
uint64_t copy_some(const fs::path& src_dir, const fs::path& dst_dir, uint64_t committed,
                   uint64_t budget) {
  uint64_t done = 0;
  std::vector<char> buf(kChunkBytes);
  auto segments = segments_of(src_dir);
  for (auto it = segments.begin(); it != segments.end() && done < budget; ++it) {
    const uint64_t base = it->first;
    if (base >= committed) break;
    auto next = std::next(it);
    const uint64_t end = std::min(committed, next == segments.end() ? committed : next->first);
    const fs::path dst = dst_dir / it->second.filename();
    const Fd out = open_file(dst, O_WRONLY | O_CREAT | O_APPEND, 0644, "create");
    struct stat st {};
    check_syscall(::fstat(out.get(), &st), "stat", dst);
    uint64_t have = base + static_cast<uint64_t>(st.st_size);
    if (have >= end) continue;
    const Fd in = open_file(it->second, O_RDONLY);
    while (have < end && done < budget) {
      const size_t want =
          static_cast<size_t>(std::min<uint64_t>({end - have, budget - done, buf.size()}));
      ssize_t n = ::pread(in.get(), buf.data(), want, static_cast<off_t>(have - base));
      if (n < 0 && errno == EINTR) continue;
      check_syscall(n <= 0 ? -1 : 0, "read", it->second);
      write_all(out, std::string_view(buf.data(), static_cast<size_t>(n)), dst);
      have += static_cast<uint64_t>(n);
      done += static_cast<uint64_t>(n);
    }
  }
  return done;
}

void fsync_segments(const fs::path& dir) {
  for (const auto& [base, path] : segments_of(dir)) fsync_file(path);
}

}  // namespace

void LogManager::set_move_throttle(uint64_t bytes_per_second) {
  move_bytes_per_second_.store(bytes_per_second, std::memory_order_relaxed);
}

size_t LogManager::moves_in_progress() const {
  std::lock_guard lock(mu_);
  return move_queue_.size() + moves_active_;
}

bool LogManager::owns_move_locked(const std::shared_ptr<Move>& m) const {
  auto it = moves_.find(m->partition->tp);
  return it != moves_.end() && it->second == m;
}

void LogManager::cancel_move_locked(Partition& p) {
  auto it = moves_.find(p.tp);
  std::shared_ptr<Move> m = std::move(it->second);
  moves_.erase(it);
  m->cancelled = true;
  count_replica_locked(m->dest, p.tp.topic, -1);
  m->left_to_copy.release();
  log()->info("Cancelled the move of {} to {}.", p.tp.str(), dirs_[m->dest]->path_text);
  // The mover that owns the move removes its future directory.
}

LogManager::AlterResult LogManager::alter_replica_log_dir(const TopicPartition& tp,
                                                          const std::string& destination) {
  std::lock_guard create_lock(create_mu_);
  std::shared_ptr<Partition> p;
  {
    std::lock_guard lock(mu_);
    auto it = partitions_.find(tp);
    if (it != partitions_.end()) p = it->second;
  }
  if (destination == "any") {
    std::lock_guard io(io_of(tp));
    std::lock_guard lock(mu_);
    preferred_.erase(tp);
    if (p && moves_.count(tp)) cancel_move_locked(*p);
    return {};
  }
  const fs::path raw(destination);
  const int dest = raw.is_absolute() ? dir_index(canonical_path("/", raw)) : -1;
  if (dest < 0) {
    return {ErrorCode::kLogDirNotFound, "Log dir " + destination + " is not found in the config."};
  }
  {
    std::lock_guard lock(mu_);
    const Dir& d = *dirs_[static_cast<uint32_t>(dest)];
    if (!d.online) return {ErrorCode::kKafkaStorageError, "Log directory " + destination + " is offline"};
    if (d.cordoned) {
      return {ErrorCode::kInvalidReplicaAssignment, "Log directory " + destination + " is cordoned"};
    }
    if (!p) {
      preferred_[tp] = d.path;
      return {ErrorCode::kReplicaNotAvailable,
              "Replica " + tp.str() + " is not hosted by this broker yet; it will be created in " +
                  d.path_text + "."};
    }
  }
  std::lock_guard io(io_of(tp));
  std::unique_lock lock(mu_);
  if (p->deleted) {
    return {ErrorCode::kReplicaNotAvailable, "Replica " + tp.str() + " was just deleted."};
  }
  auto running = moves_.find(tp);
  if (p->dir == static_cast<uint32_t>(dest)) {
    if (running != moves_.end()) cancel_move_locked(*p);  // it is already where it should be
    return {};
  }
  if (running != moves_.end() && running->second->dest == static_cast<uint32_t>(dest)) return {};
  if (running != moves_.end()) cancel_move_locked(*p);  // restart towards the new destination
  if (!dirs_[p->dir]->online) {
    return {ErrorCode::kKafkaStorageError, "Log directory " + dirs_[p->dir]->path_text + " is offline"};
  }
  auto m = std::make_shared<Move>();
  m->partition = p;
  m->dest = static_cast<uint32_t>(dest);
  m->future = dirs_[m->dest]->path / layout::future_dir(tp.topic, tp.partition, layout::random_hex_id());
  lock.unlock();
  try {
    if (!options_.in_memory) {
      check_syscall(::mkdir(m->future.c_str(), 0755), "mkdir", m->future);
      fsync_folder(m->future.parent_path());
    }
  } catch (const std::system_error& e) {
    mark_offline(m->dest, e.what());
    return {ErrorCode::kKafkaStorageError, "Log directory " + destination + " is offline"};
  }
  lock.lock();
  Dir& d = *dirs_[m->dest];
  count_replica_locked(m->dest, tp.topic, +1);  // a future replica counts there, as in Kafka
  m->left_to_copy = Reservation(d.reserved, p->size);
  moves_[tp] = m;
  move_queue_.push_back(m);
  log()->info("Moving {} from {} to {} ({} bytes).", tp.str(), dirs_[p->dir]->path_text,
              d.path_text, p->size);
  lock.unlock();
  move_cv_.notify_one();
  return {};
}

void LogManager::run_movers() {
  for (;;) {
    std::shared_ptr<Move> m;
    {
      std::unique_lock lock(mu_);
      move_cv_.wait(lock, [&] { return stopping_ || !move_queue_.empty(); });
      if (stopping_) return;
      m = std::move(move_queue_.front());
      move_queue_.pop_front();
      moves_active_++;
    }
    try {
      run_move(m);
    } catch (const std::exception& e) {
      // The destination failed: it goes offline and the move is dropped; the source is untouched.
      log()->error("Move of {} to {} failed: {}", m->partition->tp.str(), dirs_[m->dest]->path_text,
                   e.what());
      std::lock_guard io(io_of(m->partition->tp));
      {
        std::lock_guard lock(mu_);
        if (owns_move_locked(m)) cancel_move_locked(*m->partition);
      }
      mark_offline(m->dest, e.what());
    }
    std::lock_guard lock(mu_);
    moves_active_--;
  }
}

void LogManager::run_move(const std::shared_ptr<Move>& m) {
  Partition& p = *m->partition;
  const TopicPartition tp = p.tp;
  const fs::path src = dirs_[p.dir]->path / tp.str();
  auto abandoned = [&] {
    std::lock_guard lock(mu_);
    return m->cancelled.load() || stopping_;
  };
  auto drop_future = [&] {
    std::error_code ec;
    fs::remove_all(m->future, ec);
    std::lock_guard lock(mu_);
    if (owns_move_locked(m)) cancel_move_locked(p);  // shutdown: dropped, not left half-done
  };
  auto progress = [&](uint64_t copied_now) {
    std::lock_guard lock(mu_);
    if (m->cancelled) return;
    m->copied += copied_now;
    // Appends continue while the copy runs: what is left can grow as well as shrink.
    m->left_to_copy.resize(p.size > m->copied ? p.size - m->copied : 0);
  };

  // Bulk copy while appends continue.
  auto window_start = std::chrono::steady_clock::now();
  uint64_t window_bytes = 0;
  for (;;) {
    if (abandoned()) return drop_future();
    uint64_t committed;
    {
      std::lock_guard lock(mu_);
      committed = p.size;
      if (committed - std::min(committed, m->copied) <= kCatchUpBytes) break;
    }
    const uint64_t limit = move_bytes_per_second_.load(std::memory_order_relaxed);
    const uint64_t budget = limit > 0 ? std::max<uint64_t>(std::min(kChunkBytes, limit / 10), 4096)
                                      : kChunkBytes;
    const uint64_t n = copy_some(src, m->future, committed, budget);
    progress(n);
    crash_point("during_copy");
    if (limit > 0) {
      // Pace to the throttle: the bytes of this window may not run ahead of limit * elapsed.
      window_bytes += n;
      auto due = window_start + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(static_cast<double>(window_bytes) /
                                                                  static_cast<double>(limit)));
      std::this_thread::sleep_until(due);
      if (std::chrono::steady_clock::now() - window_start > std::chrono::seconds(1)) {
        window_start = std::chrono::steady_clock::now();
        window_bytes = 0;
      }
    }
  }

  // Catch up with appends stopped, make the copy durable, mark it complete, promote.
  std::unique_lock io(io_of(tp));
  if (abandoned() || p.deleted) {
    io.unlock();
    return drop_future();
  }
  uint64_t committed;
  {
    std::lock_guard lock(mu_);
    committed = p.size;
  }
  while (m->copied < committed) progress(copy_some(src, m->future, committed, UINT64_MAX));
  fsync_segments(m->future);
  write_file_atomically(m->future / layout::kMoveCompleteMarker,
                        "source=" + src.string() + "\nsize=" + std::to_string(committed) + "\n");
  fsync_folder(m->future.parent_path());
  crash_point("after_marker");

  const fs::path del = src.parent_path() / layout::delete_dir(tp.topic, tp.partition, layout::random_hex_id());
  check_syscall(::rename(src.c_str(), del.c_str()), "rename", src);
  fsync_folder(src.parent_path());
  crash_point("after_source_renamed");
  const fs::path final_path = dirs_[m->dest]->path / tp.str();
  check_syscall(::rename(m->future.c_str(), final_path.c_str()), "rename", m->future);
  fsync_folder(final_path.parent_path());
  crash_point("after_future_renamed");
  fs::remove(final_path / layout::kMoveCompleteMarker);

  const uint32_t from = p.dir;
  {
    std::lock_guard lock(mu_);
    m->left_to_copy.release();
    relocate_locked(p, m->dest);
    moves_.erase(tp);
  }
  io.unlock();
  log()->info("Moved {} from {} to {}.", tp.str(), dirs_[from]->path_text, dirs_[m->dest]->path_text);
  std::error_code ec;
  fs::remove_all(del, ec);  // a crash before this leaves -delete, removed at the next start
}

}  // namespace lds
