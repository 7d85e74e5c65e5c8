// log_manager/moves.cpp: LogManager's side of KIP-113: AlterReplicaLogDirs and the failed moves.
//
// The ReplicaMover copies and promotes; here a request is checked against the partitions, the
// directories and the destination's free space. Startup recovery is log_manager/recovery.cpp.
#include <algorithm>

#include "config/config.h"
#include "io/io_errors.h"
#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "storage/log_manager/internal.h"
#include "storage/replica_mover.h"

namespace lds {

namespace fs = std::filesystem;

void LogManager::set_move_throttle(uint64_t bytes_per_second) {
  mover_->set_throttle(bytes_per_second);
}

void LogManager::set_move_ended_listener(std::function<void()> listener) {
  mover_->set_move_ended_listener(std::move(listener));
}

size_t LogManager::moves_in_progress() const { return mover_->in_progress(); }

LogManager::MoveCounters LogManager::move_counters() const { return mover_->counters(); }

std::vector<FailedMoveDescription> LogManager::failed_moves() const {
  std::vector<FailedMoveDescription> out;
  MutexLock lock(mu_);
  for (const auto& [tp, f] : mover_->failures_locked()) {
    if (!partitions_.contains(tp)) continue;
    out.push_back({tp.str(), dirs_[f.dest]->path_text, f.error, f.message});
  }
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.partition < b.partition; });
  return out;
}

DiskSpace LogManager::read_space(uint32_t dir) const { return probe_->read(dirs_[dir]->path); }

std::vector<uint64_t> LogManager::dir_filesystems() const {
  std::vector<uint64_t> out;
  out.reserve(dirs_.size());
  for (const auto& d : dirs_) out.push_back(probe_->read(d->path).filesystem);
  return out;
}

uint64_t LogManager::reserved_on_filesystem_locked(uint32_t dir,
                                                   const std::vector<uint64_t>& filesystems) const {
  const uint64_t fs_id = dir < filesystems.size() ? filesystems[dir] : 0;
  uint64_t reserved = dirs_[dir]->reserved.bytes();
  if (fs_id == 0) return reserved;
  for (uint32_t i = 0; i < dirs_.size() && i < filesystems.size(); ++i) {
    if (i != dir && filesystems[i] == fs_id && dirs_[i]->online) {
      reserved += dirs_[i]->reserved.bytes();
    }
  }
  return reserved;
}

LogManager::AlterResult LogManager::alter_replica_log_dir(const TopicPartition& tp,
                                                          const std::string& destination) {
  MutexLock create_lock(create_mu_);
  std::shared_ptr<Partition> p;
  {
    MutexLock lock(mu_);
    p = partitions_.share(tp);
  }
  if (destination == "any") {
    MutexLock io(io_of(tp));
    MutexLock lock(mu_);
    preferred_.erase(tp);
    if (p) mover_->cancel_locked(tp);
    return {};
  }
  const fs::path raw(destination);
  const int dest = raw.is_absolute() ? dir_index(canonical_path("/", raw)) : -1;
  if (dest < 0) {
    return {StorageErrc::kDirNotFound, "Log dir " + destination + " is not found in the config."};
  }
  // Read before any lock: statvfs may be slow.
  const DiskSpace space = p ? read_space(static_cast<uint32_t>(dest)) : DiskSpace{};
  const std::vector<uint64_t> filesystems = p ? dir_filesystems() : std::vector<uint64_t>{};
  {
    MutexLock lock(mu_);
    const Dir& d = *dirs_[static_cast<uint32_t>(dest)];
    if (!d.online) {
      return {StorageErrc::kDirUnavailable, "Log directory " + destination + " is offline"};
    }
    if (d.cordoned) {
      return {StorageErrc::kDirCordoned, "Log directory " + destination + " is cordoned"};
    }
    if (!p) {
      preferred_[tp] = d.path;
      return {StorageErrc::kReplicaNotAvailable,
              "Replica " + tp.str() + " is not hosted by this broker yet; it will be created in " +
                  d.path_text + "."};
    }
  }
  MutexLock io(io_of(tp));
  {
    MutexLock lock(mu_);
    if (p->deleted) {
      return {StorageErrc::kReplicaNotAvailable, "Replica " + tp.str() + " was just deleted."};
    }
    const ReplicaMover::Move* running = mover_->find_locked(tp);
    if (p->dir == static_cast<uint32_t>(dest)) {
      mover_->cancel_locked(tp);  // it is already where it should be
      return {};
    }
    if (running != nullptr && running->dest == static_cast<uint32_t>(dest)) return {};
    // Refused up front when the replica cannot fit: the destination's usable bytes less what is
    // already promised there (reservations of its partitions and of the moves into it, and into
    // the directories sharing its filesystem).
    const Dir& d = *dirs_[static_cast<uint32_t>(dest)];
    const uint64_t reserved =
        reserved_on_filesystem_locked(static_cast<uint32_t>(dest), filesystems);
    const uint64_t free = space.usable_bytes > reserved ? space.usable_bytes - reserved : 0;
    if (space.known && !options_.in_memory && p->size > free) {
      return {StorageErrc::kDirUnavailable,
              not_enough_space_to_move(d.path_text, tp.str(), p->size, free)};
    }
    mover_->cancel_locked(tp);  // restart towards the new destination
    if (!dirs_[p->dir]->online) {
      return {StorageErrc::kDirUnavailable,
              "Log directory " + dirs_[p->dir]->path_text + " is offline"};
    }
  }
  try {
    if (!mover_->begin(p, static_cast<uint32_t>(dest))) {
      return {StorageErrc::kDirUnavailable, "Log directory " + destination + " is offline"};
    }
  } catch (const StorageError& e) {  // the broker ran short of descriptors or memory
    return {e.code(), e.what()};
  }
  return {};
}

}  // namespace lds
