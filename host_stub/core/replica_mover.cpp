// replica_mover.cpp: the mover threads, the throttled copy of a replica and its promotion.
#include "core/replica_mover.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>

#include "core/durable_file.h"
#include "core/io_errors.h"
#include "core/log_layout.h"
#include "log_manager_internal.h"

namespace lds {

namespace fs = std::filesystem;
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

// replica.alter.log.dirs.io.max.bytes.per.second for one move's bulk copy. The limit is read
// before each chunk, so a change applies to running moves.
class Throttle {
 public:
  explicit Throttle(const std::atomic<uint64_t>& bytes_per_second)
      : bytes_per_second_(bytes_per_second) {}

  // The most the next chunk may copy: a tenth of a second's worth (4 KiB at least), so pacing
  // stays smooth under a low limit.
  uint64_t next_budget() {
    limit_ = bytes_per_second_.load(std::memory_order_relaxed);
    return limit_ > 0 ? std::max<uint64_t>(std::min(kChunkBytes, limit_ / 10), 4096) : kChunkBytes;
  }

  // Sleeps until the bytes of this one-second window no longer run ahead of limit * elapsed.
  void pace(uint64_t copied) {
    if (limit_ == 0) return;
    window_bytes_ += copied;
    auto due =
        window_start_ + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(static_cast<double>(window_bytes_) /
                                                          static_cast<double>(limit_)));
    std::this_thread::sleep_until(due);
    if (std::chrono::steady_clock::now() - window_start_ > std::chrono::seconds(1)) {
      window_start_ = std::chrono::steady_clock::now();
      window_bytes_ = 0;
    }
  }

 private:
  const std::atomic<uint64_t>& bytes_per_second_;
  uint64_t limit_ = 0;
  std::chrono::steady_clock::time_point window_start_ = std::chrono::steady_clock::now();
  uint64_t window_bytes_ = 0;
};

}  // namespace

ReplicaMover::ReplicaMover(LogManager& logs) : logs_(logs) {}

ReplicaMover::~ReplicaMover() { stop(); }

void ReplicaMover::start(int32_t threads) {
  for (int32_t t = 0; t < threads; ++t) threads_.emplace_back([this] { run_thread(); });
}

void ReplicaMover::stop() {
  {
    std::lock_guard lock(logs_.mu_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& t : threads_) t.join();
  threads_.clear();
}

void ReplicaMover::set_throttle(uint64_t bytes_per_second) {
  bytes_per_second_.store(bytes_per_second, std::memory_order_relaxed);
}

size_t ReplicaMover::in_progress() const {
  std::lock_guard lock(logs_.mu_);
  return queue_.size() + running_;
}

const ReplicaMover::Move* ReplicaMover::find_locked(const TopicPartition& tp) const {
  if (moves_.empty()) return nullptr;
  auto it = moves_.find(tp);
  return it == moves_.end() ? nullptr : it->second.get();
}

bool ReplicaMover::owns_locked(const std::shared_ptr<Move>& m) const {
  auto it = moves_.find(m->partition->tp);
  return it != moves_.end() && it->second == m;
}

void ReplicaMover::cancel_locked(const TopicPartition& tp) {
  auto it = moves_.find(tp);
  if (it == moves_.end()) return;
  std::shared_ptr<Move> m = std::move(it->second);
  moves_.erase(it);
  m->cancelled = true;
  logs_.count_replica_locked(m->dest, tp.topic, -1);
  m->left_to_copy.release();
  log()->info("Cancelled the move of {} to {}.", tp.str(), logs_.dirs_[m->dest]->path_text);
  // The mover that owns the move removes its future directory.
}

bool ReplicaMover::begin(const std::shared_ptr<LogManager::Partition>& p, uint32_t dest) {
  const TopicPartition& tp = p->tp;
  LogManager::Dir& d = *logs_.dirs_[dest];
  auto m = std::make_shared<Move>();
  m->partition = p;
  m->dest = dest;
  m->future = d.path / layout::future_dir(tp.topic, tp.partition, layout::random_hex_id());
  try {
    if (!logs_.options_.in_memory) {
      check_syscall(::mkdir(m->future.c_str(), 0755), "mkdir", m->future);
      fsync_folder(m->future.parent_path());
    }
  } catch (const std::system_error& e) {
    if (is_resource_shortage(e.code().value())) {
      throw KafkaError(ErrorCode::kKafkaStorageError, "Cannot start moving " + tp.str() + " to " +
                                                          d.path_text + ": " +
                                                          resource_shortage_text(e.code().value()) +
                                                          "; the log directory stays online.");
    }
    logs_.mark_offline(dest, e.what());
    return false;
  }
  {
    std::lock_guard lock(logs_.mu_);
    logs_.count_replica_locked(dest, tp.topic, +1);  // a future replica counts there, as in Kafka
    m->left_to_copy = Reservation(d.reserved, p->size);
    moves_[tp] = m;
    queue_.push_back(m);
    log()->info("Moving {} from {} to {} ({} bytes).", tp.str(), logs_.dirs_[p->dir]->path_text,
                d.path_text, p->size);
  }
  wake_.notify_one();
  return true;
}

void ReplicaMover::run_thread() {
  for (;;) {
    std::shared_ptr<Move> m;
    {
      std::unique_lock lock(logs_.mu_);
      wake_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_) return;
      m = std::move(queue_.front());
      queue_.pop_front();
      running_++;
    }
    try {
      run_move(m);
    } catch (const std::exception& e) {
      // The destination failed: it goes offline and the move is dropped; the source is untouched.
      // A move that only ran short of descriptors or memory is dropped and the disk stays online.
      const auto* system = dynamic_cast<const std::system_error*>(&e);
      const bool shortage = system != nullptr && is_resource_shortage(system->code().value());
      log()->error("Move of {} to {} failed: {}{}", m->partition->tp.str(),
                   logs_.dirs_[m->dest]->path_text, e.what(),
                   shortage ? "; the move is cancelled and the log directory stays online" : "");
      std::lock_guard io(logs_.io_of(m->partition->tp));
      {
        std::lock_guard lock(logs_.mu_);
        if (owns_locked(m)) cancel_locked(m->partition->tp);
      }
      if (!shortage) logs_.mark_offline(m->dest, e.what());
    }
    std::lock_guard lock(logs_.mu_);
    running_--;
  }
}

void ReplicaMover::run_move(const std::shared_ptr<Move>& m) {
  LogManager::Partition& p = *m->partition;
  const TopicPartition tp = p.tp;
  const fs::path src = logs_.dirs_[p.dir]->path / tp.str();
  auto abandoned = [&] {
    std::lock_guard lock(logs_.mu_);
    return m->cancelled.load() || stopping_;
  };
  auto drop_future = [&] {
    std::error_code ec;
    fs::remove_all(m->future, ec);
    std::lock_guard lock(logs_.mu_);
    if (owns_locked(m)) cancel_locked(tp);  // shutdown: dropped, not left half-done
  };
  auto progress = [&](uint64_t copied_now) {
    std::lock_guard lock(logs_.mu_);
    if (m->cancelled) return;
    m->copied += copied_now;
    logs_.record_copy_locked(m->dest, copied_now);
    // Appends continue while the copy runs: what is left can grow as well as shrink.
    m->left_to_copy.resize(p.size > m->copied ? p.size - m->copied : 0);
  };

  // Bulk copy while appends continue.
  Throttle throttle(bytes_per_second_);
  for (;;) {
    if (abandoned()) return drop_future();
    uint64_t committed;
    {
      std::lock_guard lock(logs_.mu_);
      committed = p.size;
      if (committed - std::min(committed, m->copied) <= kCatchUpBytes) break;
    }
    const uint64_t n = copy_some(src, m->future, committed, throttle.next_budget());
    progress(n);
    crash_point("during_copy");
    throttle.pace(n);
  }

  // Catch up with appends stopped, make the copy durable, mark it complete, promote.
  std::unique_lock io(logs_.io_of(tp));
  if (abandoned() || p.deleted) {
    io.unlock();
    return drop_future();
  }
  uint64_t committed;
  {
    std::lock_guard lock(logs_.mu_);
    committed = p.size;
  }
  while (m->copied < committed) progress(copy_some(src, m->future, committed, UINT64_MAX));
  fsync_segments(m->future);
  write_file_atomically(m->future / layout::kMoveCompleteMarker,
                        "source=" + src.string() + "\nsize=" + std::to_string(committed) + "\n");
  fsync_folder(m->future.parent_path());
  crash_point("after_marker");

  const fs::path final_path = logs_.dirs_[m->dest]->path / tp.str();
  const fs::path del = promote(tp, m->future, src, final_path);
  const uint32_t from = p.dir;
  {
    std::lock_guard lock(logs_.mu_);
    m->left_to_copy.release();
    logs_.relocate_locked(p, m->dest);
    moves_.erase(tp);
  }
  io.unlock();
  log()->info("Moved {} from {} to {}.", tp.str(), logs_.dirs_[from]->path_text,
              logs_.dirs_[m->dest]->path_text);
  std::error_code ec;
  fs::remove_all(del, ec);  // a crash before this leaves -delete, removed at the next start
}

fs::path ReplicaMover::promote(const TopicPartition& tp, const fs::path& future,
                               const fs::path& source, const fs::path& final_path) {
  fs::path del;
  if (!source.empty()) {
    del =
        source.parent_path() / layout::delete_dir(tp.topic, tp.partition, layout::random_hex_id());
    check_syscall(::rename(source.c_str(), del.c_str()), "rename", source);
    fsync_folder(source.parent_path());
    crash_point("after_source_renamed");
  }
  check_syscall(::rename(future.c_str(), final_path.c_str()), "rename", future);
  fsync_folder(final_path.parent_path());
  crash_point("after_future_renamed");
  fs::remove(final_path / layout::kMoveCompleteMarker);
  return del;
}

}  // namespace lds
