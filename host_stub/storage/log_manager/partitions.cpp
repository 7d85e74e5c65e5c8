// log_manager/partitions.cpp: LogManager's hosted partitions: their bookkeeping (sizes,
// reservations, counts per topic and directory), appends, topic deletion and DescribeLogDirs.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <tuple>

#include "io/durable_file.h"
#include "io/io_errors.h"
#include "io/log_layout.h"
#include "model/record_batch.h"
#include "storage/log_manager.h"
#include "storage/log_manager/internal.h"
#include "storage/replica_mover.h"
#include "storage/storage_logger.h"

namespace lds {

namespace fs = std::filesystem;

namespace {

std::string errno_text(int err) { return std::strerror(err); }

}  // namespace

Mutex& LogManager::io_of(const TopicPartition& tp) const {
  return io_stripes_[TopicPartitionHash()(tp) % kIoStripes];
}

const LogManager::TopicStats* LogManager::topic_stats_locked(const std::string& topic) const {
  if (last_topic_stats_ != nullptr && topic == last_topic_) return last_topic_stats_;
  auto t = topics_.find(topic);
  if (t == topics_.end()) return nullptr;
  last_topic_ = topic;
  last_topic_stats_ = &t->second;  // an unordered_map's entries stay where they are until erased
  return last_topic_stats_;
}

void LogManager::count_replica_locked(uint32_t dir_index, const std::string& topic, int delta) {
  TopicStats& t = topics_[topic];
  t.per_dir.resize(dirs_.size());
  t.per_dir[dir_index] += static_cast<uint32_t>(delta);
  dirs_[dir_index]->partition_count += static_cast<uint32_t>(delta);
}

void LogManager::add_partition(uint32_t dir_index, const TopicPartition& tp, PartitionLog log,
                               uint64_t expected, std::string_view replica_id) {
  auto p = std::make_shared<Partition>();
  p->tp = tp;
  p->replica_id = ShortString(replica_id);
  p->dir = dir_index;
  p->size = log.size_in_bytes();
  p->log = std::move(log);
  const uint64_t size = p->size;
  const double now = probe_->now_seconds();
  p->rate.start(now);
  MutexLock lock(mu_);
  count_replica_locked(dir_index, tp.topic, +1);
  p->reservation = Reservation(dirs_[dir_index]->reserved, expected > size ? expected - size : 0);
  TopicStats& t = topics_[tp.topic];
  if (t.partitions == 0) t.rate.start(now);
  t.partitions++;
  t.bytes += size;
  total_bytes_hosted_ += size;
  partitions_.insert(std::move(p));
}

void LogManager::remove_partition_locked(const TopicPartition& tp) {
  // Taken out first, but held until the end: `tp` may be the partition's own.
  const std::shared_ptr<Partition> taken = partitions_.take(tp);
  if (!taken) return;
  Partition& p = *taken;
  mover_->cancel_locked(tp);
  count_replica_locked(p.dir, tp.topic, -1);
  p.reservation.release();
  TopicStats& t = topics_[tp.topic];
  t.bytes -= p.size;
  if (--t.partitions == 0) {
    if (last_topic_stats_ == &t) last_topic_stats_ = nullptr;
    topics_.erase(tp.topic);
  }
  total_bytes_hosted_ -= p.size;
}

void LogManager::record_append_locked(Partition& p, uint64_t written, bool existing) {
  // Bytes written past the partition's expected size were never reserved.
  p.reservation.update(std::min(written, p.reservation.bytes()));
  TopicStats& t = topics_[p.tp.topic];
  t.bytes += written;
  total_bytes_hosted_ += written;
  p.size += written;
  if (existing) return;
  const double now = probe_->now_seconds();
  p.rate.add(now, written, rate_window_seconds_);
  t.rate.add(now, written, rate_window_seconds_);
  dirs_[p.dir]->rate.add(now, written, rate_window_seconds_);
}

void LogManager::relocate_locked(Partition& p, uint32_t to) {
  count_replica_locked(p.dir, p.tp.topic, -1);
  p.reservation = Reservation(dirs_[to]->reserved, p.reservation.bytes());
  p.dir = to;
  p.log.forget_index();  // the copy brought the segments, not their indexes
}

void LogManager::refuse_append_past_free_space(const Partition& p, uint64_t bytes) const {
  const Dir& d = *dirs_[p.dir];
  const DiskSpace space = probe_->read(d.path);  // statvfs, without mu_
  if (!space.known) return;  // nothing to judge by; a full disk still ends in ENOSPC below
  uint64_t others;
  {
    MutexLock lock(mu_);
    // The partition's own reservation is space kept for exactly this data.
    others = d.reserved.bytes() - std::min(d.reserved.bytes(), p.reservation.bytes());
  }
  const uint64_t available = space.usable_bytes > others ? space.usable_bytes - others : 0;
  if (bytes <= available) return;
  throw StorageError(
      StorageErrc::kDirUnavailable,
      "Not enough space in log directory " + d.path_text + " to append " + std::to_string(bytes) +
          " bytes to " + p.tp.str() + ": " + std::to_string(available) + " bytes are available (" +
          std::to_string(space.usable_bytes) + " usable, less " + std::to_string(others) +
          " reserved for other partitions); nothing was appended.");
}

std::shared_ptr<LogManager::Partition> LogManager::hosted_online(const TopicPartition& tp) const {
  MutexLock lock(mu_);
  std::shared_ptr<Partition> p = partitions_.share(tp);
  if (!p) {
    throw StorageError(StorageErrc::kUnknownPartition,
                       "This server does not host this topic-partition.");
  }
  if (!dirs_[p->dir]->online) {
    throw StorageError(StorageErrc::kDirUnavailable,
                       "Log directory " + dirs_[p->dir]->path_text + " is offline");
  }
  return p;
}

namespace {

void refuse_if_deleted(bool deleted) {
  if (deleted) {
    throw StorageError(StorageErrc::kUnknownPartition,
                       "This server does not host this topic-partition.");
  }
}

// The admin API's filler records are built and written this much at a time.
constexpr uint64_t kFillerChunkBytes = uint64_t{1} << 20;

int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int64_t LogManager::write_batches_locked(Partition& p, std::string& batches, uint64_t requested,
                                         uint64_t done) {
  int64_t first;
  try {
    first = p.log.append(dirs_[p.dir]->path / p.tp.str(), batches,
                         segment_bytes_.load(std::memory_order_relaxed),
                         index_interval_bytes_.load(std::memory_order_relaxed));
  } catch (const FileError& e) {
    const int err = e.code().value();
    const std::string& dir = dirs_[p.dir]->path_text;
    const std::string appended = std::to_string(done) + " bytes were appended";
    if (is_out_of_space(err)) {
      throw StorageError(StorageErrc::kDirUnavailable,
                         "Not enough space in log directory " + dir + " to append " +
                             std::to_string(requested) + " bytes to " + p.tp.str() + "; " +
                             appended + ".");
    }
    if (is_resource_shortage(err)) {
      throw StorageError(StorageErrc::kDirUnavailable,
                         "Cannot append to " + p.tp.str() + " in " + dir + ": " +
                             resource_shortage_text(err) + "; " + appended +
                             ", and the log directory stays online.");
    }
    mark_offline(p.dir, "append to " + e.path().string() + " failed: " + errno_text(err));
    throw StorageError(StorageErrc::kDirUnavailable, "Log directory " + dir + " is offline");
  }
  MutexLock lock(mu_);
  record_append_locked(p, batches.size());
  return first;
}

uint64_t LogManager::append(const std::string& topic, int32_t partition, uint64_t bytes) {
  const std::shared_ptr<Partition> p = hosted_online(TopicPartition{topic, partition});
  if (!options_.in_memory && bytes > 0 && bytes < kafka::kMinBatchBytes) {
    throw StorageError(StorageErrc::kAppendTooShort,
                       "A Produce of " + std::to_string(bytes) +
                           " bytes is smaller than the smallest record batch (" +
                           std::to_string(kafka::kMinBatchBytes) + " bytes).");
  }
  MutexLock io(io_of(p->tp));
  refuse_if_deleted(p->deleted);
  if (options_.in_memory || bytes == 0) {
    // In memory only bytes are counted, of any size: the simulator appends terabytes.
    MutexLock lock(mu_);
    record_append_locked(*p, bytes);
    return p->size;
  }
  refuse_append_past_free_space(*p, bytes);
  const int64_t timestamp = now_ms();
  auto fill = [&](int64_t offset, char* value, size_t size) {
    layout::fill_payload(topic, partition, static_cast<uint64_t>(offset),
                         std::span<char>(value, size));
  };
  for (uint64_t done = 0; done < bytes;) {
    uint64_t n = std::min(bytes - done, kFillerChunkBytes);
    // Never leave a remainder too small for a batch of its own.
    if (bytes - done - n > 0 && bytes - done - n < kafka::kMinBatchBytes) {
      n = bytes - done - kafka::kMinBatchBytes;
    }
    kafka::FillerBatches chunk =
        kafka::build_filler_batches(n, p->log.log_end_offset(), timestamp, fill);
    write_batches_locked(*p, chunk.bytes, bytes, done);
    done += n;
  }
  MutexLock lock(mu_);
  return p->size;
}

int64_t LogManager::append_batches(const TopicPartition& tp, std::string batches,
                                   const PartitionLog::BatchValidator& validate) {
  // As Kafka's ReplicaManager: the partition first (unknown, offline), then its log's checks.
  const std::shared_ptr<Partition> p = hosted_online(tp);
  PartitionLog::check_batches(batches, tp.str(), segment_bytes_.load(std::memory_order_relaxed),
                              max_message_bytes_.load(std::memory_order_relaxed), validate);
  MutexLock io(io_of(p->tp));
  refuse_if_deleted(p->deleted);
  if (options_.in_memory) {
    const int64_t first = p->log.count(batches);
    MutexLock lock(mu_);
    record_append_locked(*p, batches.size());
    return first;
  }
  refuse_append_past_free_space(*p, batches.size());
  return write_batches_locked(*p, batches, batches.size(), 0);
}

template <typename ReadFn>
auto LogManager::read_log_locked(const Partition& p, ReadFn&& read) {
  const Dir& d = *dirs_[p.dir];
  try {
    return read(p.log, d.path / p.tp.str());
  } catch (const FileError& e) {
    if (is_resource_shortage(e.code().value())) {
      throw StorageError(StorageErrc::kDirUnavailable,
                         "Cannot read " + p.tp.str() + " in " + d.path_text + ": " +
                             resource_shortage_text(e.code().value()) +
                             "; the log directory stays online.");
    }
    mark_offline(p.dir, e.what());
    throw StorageError(StorageErrc::kDirUnavailable,
                       "Log directory " + d.path_text + " is offline");
  }
}

LogManager::ReadResult LogManager::read(const TopicPartition& tp, int64_t offset,
                                        uint64_t max_bytes) {
  const std::shared_ptr<Partition> p = hosted_online(tp);
  MutexLock io(io_of(p->tp));
  refuse_if_deleted(p->deleted);
  ReadResult result;
  result.offsets = {p->log.log_start_offset(), p->log.log_end_offset()};
  if (offset < result.offsets.log_start_offset || offset > result.offsets.log_end_offset) {
    throw StorageError(StorageErrc::kOffsetOutOfRange,
                       "Fetch offset " + std::to_string(offset) + " is out of range for " +
                           tp.str() + ", which holds offsets " +
                           std::to_string(result.offsets.log_start_offset) + " to " +
                           std::to_string(result.offsets.log_end_offset) + ".");
  }
  result.next_offset = offset;
  if (options_.in_memory) return result;
  read_log_locked(*p, [&](const PartitionLog& log, const fs::path& path) {
    PartitionLog::Batches got =
        log.slice(path, offset, max_bytes, index_interval_bytes_.load(std::memory_order_relaxed));
    result.next_offset = got.next_offset;
    // open_slice_files() counts this slice already. Bytes not in the page cache are read here,
    // where a slow or hung disk holds this thread only, not the listener's one sending thread.
    if (got.bytes.length >= kSmallestSlice && open_slice_files() <= slice_budget() &&
        in_page_cache(got.bytes)) {
      result.file = std::move(got.bytes);
    } else if (got.bytes.file) {
      result.bytes = read_slice(got.bytes);
    }
    return 0;
  });
  return result;
}

std::optional<std::string> LogManager::batch_at_timestamp(const TopicPartition& tp,
                                                          int64_t timestamp) {
  const std::shared_ptr<Partition> p = hosted_online(tp);
  MutexLock io(io_of(p->tp));
  refuse_if_deleted(p->deleted);
  if (options_.in_memory) return std::nullopt;
  return read_log_locked(*p, [&](const PartitionLog& log, const fs::path& path) {
    return log.batch_at_timestamp(path, timestamp,
                                  index_interval_bytes_.load(std::memory_order_relaxed));
  });
}

LogManager::LogOffsets LogManager::log_offsets(const TopicPartition& tp) const {
  const std::shared_ptr<Partition> p = hosted_online(tp);
  MutexLock io(io_of(p->tp));
  refuse_if_deleted(p->deleted);
  return {p->log.log_start_offset(), p->log.log_end_offset()};
}

void LogManager::set_segment_bytes(uint64_t bytes) {
  segment_bytes_.store(bytes, std::memory_order_relaxed);
}

void LogManager::set_max_message_bytes(uint64_t bytes) {
  max_message_bytes_.store(bytes, std::memory_order_relaxed);
}

void LogManager::set_index_interval_bytes(uint32_t bytes) {
  index_interval_bytes_.store(bytes, std::memory_order_relaxed);
}

uint64_t LogManager::add_existing_bytes(const TopicPartition& tp, uint64_t bytes) {
  MutexLock lock(mu_);
  Partition* p = partitions_.find(tp);
  if (p == nullptr || !options_.in_memory) {
    throw StorageError(StorageErrc::kUnknownPartition,
                       "This server does not host this topic-partition in memory.");
  }
  record_append_locked(*p, bytes, true);
  return p->size;
}

PendingDeletion LogManager::pending_deletion_in(uint32_t dir, const TopicPartition& tp,
                                                const std::string& replica_id,
                                                const std::string& reason) const {
  const Dir& d = *dirs_[dir];
  return PendingDeletion{tp.topic, tp.partition, d.path_text, d.directory_id, replica_id, reason};
}

PendingDeletion LogManager::pending_deletion_of(const Partition& p,
                                                const std::string& reason) const {
  return pending_deletion_in(p.dir, p.tp, p.replica_id.str(), reason);
}

void LogManager::record_pending_deletions(const std::vector<PendingDeletion>& pending) {
  if (pending.empty()) return;
  if (!pending_deletions_.enabled()) {
    for (const auto& d : pending) {
      log()->warn(
          "{}-{} in offline log directory {} is no longer served, but no record of its "
          "deletion is kept, so it is served again after a restart.",
          d.topic, d.partition, d.log_dir);
    }
    return;
  }
  try {
    MutexLock lock(pending_mu_);
    pending_deletions_.add(pending);
  } catch (const std::exception& e) {
    throw StorageError(StorageErrc::kDirUnavailable,
                       "Cannot record the pending deletion of " + pending.front().topic + "-" +
                           std::to_string(pending.front().partition) +
                           " in offline log directory " + pending.front().log_dir + ": " +
                           e.what() + "; the replicas not deleted yet stay hosted.");
  }
}

std::optional<PendingDeletion> LogManager::delete_replica_files_locked(const Partition& p,
                                                                       uint32_t deleted_before) {
  std::optional<PendingDeletion> pending;
  if (!options_.in_memory && !dirs_[p.dir]->online) {
    MutexLock lock(mu_);
    pending = pending_deletion_of(p, dirs_[p.dir]->offline_reason);
  } else if (!options_.in_memory) {
    const fs::path src = dirs_[p.dir]->path / p.tp.str();
    const fs::path del = dirs_[p.dir]->path /
                         layout::delete_dir(p.tp.topic, p.tp.partition, layout::random_hex_id());
    std::error_code ec;
    fs::rename(src, del, ec);
    if (ec == std::errc::filename_too_long) {
      // The -delete name is capped at 255 bytes; a path past PATH_MAX is the name's fault,
      // not the disk's. This replica and the ones after it stay hosted.
      throw StorageError(
          StorageErrc::kDirUnavailable,
          name_too_long_text("Cannot delete " + p.tp.str(), dirs_[p.dir]->path_text, del.string(),
                             ec.value()) +
              " " + std::to_string(deleted_before) +
              " replicas of the topic were deleted before it; the rest stay hosted.");
    }
    if (ec && ec != std::errc::no_such_file_or_directory) {
      // The directory cannot be written (read-only, failing): it goes offline, as after any
      // I/O error, and the replica's deletion waits for it.
      mark_offline(p.dir, "rename " + src.string() + " failed: " + ec.message());
      MutexLock lock(mu_);
      pending = pending_deletion_of(p, dirs_[p.dir]->offline_reason);
    } else if (!ec) {
      fs::remove_all(del, ec);
      if (ec) {
        log()->warn("Could not remove {}: {}; it is removed at the next start.", del.string(),
                    ec.message());
      }
    }
  }
  return pending;
}

DeletedTopic LogManager::delete_topic(const std::string& topic) {
  MutexLock create_lock(create_mu_);
  std::vector<std::shared_ptr<Partition>> victims;
  std::vector<PendingDeletion> offline;
  {
    MutexLock lock(mu_);
    for (const auto& p : partitions_) {
      if (p->tp.topic != topic) continue;
      victims.push_back(p);
      if (!options_.in_memory && !dirs_[p->dir]->online) {
        offline.push_back(pending_deletion_of(*p, dirs_[p->dir]->offline_reason));
      }
    }
  }
  if (victims.empty()) {
    throw StorageError(StorageErrc::kUnknownPartition,
                       "Topic " + topic + " is not hosted by this broker.");
  }
  // Replicas that cannot be removed now are recorded before anything is removed: a crash after
  // this leaves every one of them either still hosted or recorded.
  record_pending_deletions(offline);
  DeletedTopic result;
  for (const auto& p : victims) {
    MutexLock io(io_of(p->tp));
    std::optional<PendingDeletion> pending = delete_replica_files_locked(*p, result.deleted);
    // A directory that failed during this deletion has replicas not recorded above.
    if (pending && std::none_of(offline.begin(), offline.end(), [&](const PendingDeletion& d) {
          return d.same_replica(*pending);
        })) {
      record_pending_deletions({*pending});
    }
    p->deleted = true;
    {
      MutexLock lock(mu_);
      remove_partition_locked(p->tp);
      preferred_.erase(p->tp);
    }
    history_.forget(p->tp.topic, p->tp.partition);
    if (pending) {
      log()->warn(
          "Deletion of {} in offline log directory {} is pending ({}); it is no longer "
          "served and is removed at the next start that finds the directory readable.",
          p->tp.str(), pending->log_dir, pending->reason);
      result.pending.push_back(std::move(*pending));
    } else {
      ++result.deleted;
    }
  }
  log()->info("Deleted topic {} ({} partitions, {} pending on offline log directories).", topic,
              result.deleted, result.pending.size());
  return result;
}

std::vector<LogDirDescription> LogManager::describe() const {
  std::vector<LogDirDescription> out;
  MutexLock lock(mu_);
  for (const auto& d : dirs_) {
    LogDirDescription desc;
    desc.log_dir = d->path_text;
    desc.directory_id = d->directory_id;
    desc.cordoned = d->cordoned;
    desc.placements = d->placements.load(std::memory_order_relaxed);
    desc.reserved_bytes = d->reserved.bytes();
    if (!d->online) {
      desc.error = StorageErrc::kDirUnavailable;
      desc.error_message = d->offline_reason;
    } else {
      DiskSpace space = probe_->read(d->path);
      desc.space_known = space.known;
      desc.total_bytes = space.total_bytes;
      desc.usable_bytes = space.usable_bytes;
      desc.filesystem = space.filesystem;
    }
    out.push_back(std::move(desc));
  }
  std::vector<const Partition*> sorted;
  sorted.reserve(partitions_.size());
  for (const auto& p : partitions_) sorted.push_back(p.get());
  std::sort(sorted.begin(), sorted.end(), [](const Partition* a, const Partition* b) {
    return std::tie(a->tp.topic, a->tp.partition) < std::tie(b->tp.topic, b->tp.partition);
  });
  for (const Partition* p : sorted) {
    if (dirs_[p->dir]->online) {
      out[p->dir].partitions.push_back({p->tp.str(), p->size, 0, false});
    } else {
      out[p->dir].unreadable_partitions.push_back(p->tp.str());
      out[p->dir].unreadable_bytes += p->size;
    }
    // A move in progress shows as a future replica in its destination, as Kafka reports it.
    const ReplicaMover::Move* m = mover_->find_locked(p->tp);
    if (m != nullptr && dirs_[m->dest]->online) {
      const uint64_t copied = std::min(m->copied, p->size);
      out[m->dest].partitions.push_back({p->tp.str(), copied, p->size - copied, true});
    }
  }
  return out;
}

size_t LogManager::partition_count() const {
  MutexLock lock(mu_);
  return partitions_.size();
}

std::vector<TopicPartition> LogManager::hosted_partitions() const {
  std::vector<TopicPartition> out;
  {
    MutexLock lock(mu_);
    out.reserve(partitions_.size());
    for (const auto& p : partitions_) out.push_back(p->tp);
  }
  std::sort(out.begin(), out.end(), [](const TopicPartition& a, const TopicPartition& b) {
    return a.topic != b.topic ? a.topic < b.topic : a.partition < b.partition;
  });
  return out;
}

size_t LogManager::pending_deletion_count() const {
  MutexLock lock(pending_mu_);
  return pending_deletions_.entries().size();
}

std::vector<TopicPartition> LogManager::offline_partitions() const {
  std::vector<TopicPartition> out;
  {
    MutexLock lock(mu_);
    for (const auto& p : partitions_) {
      if (!dirs_[p->dir]->online) out.push_back(p->tp);
    }
  }
  std::sort(out.begin(), out.end(), [](const TopicPartition& a, const TopicPartition& b) {
    return a.topic != b.topic ? a.topic < b.topic : a.partition < b.partition;
  });
  return out;
}

}  // namespace lds
