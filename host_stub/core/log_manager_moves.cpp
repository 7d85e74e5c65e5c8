// log_manager_moves.cpp: LogManager's side of KIP-113: AlterReplicaLogDirs and startup recovery.
//
// The ReplicaMover copies and promotes; here a request is checked against the partitions and the
// directories, and at startup a move a crash interrupted is finished or discarded.
#include "core/config.h"
#include "core/log_layout.h"
#include "core/log_manager.h"
#include "core/replica_mover.h"
#include "log_manager_internal.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

std::shared_ptr<spdlog::logger> log() { return detail::log_manager_log(); }

}  // namespace

void LogManager::set_move_throttle(uint64_t bytes_per_second) {
  mover_->set_throttle(bytes_per_second);
}

size_t LogManager::moves_in_progress() const { return mover_->in_progress(); }

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
    if (p) mover_->cancel_locked(tp);
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
    if (!d.online) {
      return {ErrorCode::kKafkaStorageError, "Log directory " + destination + " is offline"};
    }
    if (d.cordoned) {
      return {ErrorCode::kInvalidReplicaAssignment,
              "Log directory " + destination + " is cordoned"};
    }
    if (!p) {
      preferred_[tp] = d.path;
      return {ErrorCode::kReplicaNotAvailable,
              "Replica " + tp.str() + " is not hosted by this broker yet; it will be created in " +
                  d.path_text + "."};
    }
  }
  std::lock_guard io(io_of(tp));
  {
    std::lock_guard lock(mu_);
    if (p->deleted) {
      return {ErrorCode::kReplicaNotAvailable, "Replica " + tp.str() + " was just deleted."};
    }
    const ReplicaMover::Move* running = mover_->find_locked(tp);
    if (p->dir == static_cast<uint32_t>(dest)) {
      mover_->cancel_locked(tp);  // it is already where it should be
      return {};
    }
    if (running != nullptr && running->dest == static_cast<uint32_t>(dest)) return {};
    mover_->cancel_locked(tp);  // restart towards the new destination
    if (!dirs_[p->dir]->online) {
      return {ErrorCode::kKafkaStorageError,
              "Log directory " + dirs_[p->dir]->path_text + " is offline"};
    }
  }
  try {
    if (!mover_->begin(p, static_cast<uint32_t>(dest))) {
      return {ErrorCode::kKafkaStorageError, "Log directory " + destination + " is offline"};
    }
  } catch (const KafkaError& e) {  // the broker ran short of descriptors or memory
    return {e.code(), e.what()};
  }
  return {};
}

void LogManager::recover_moves(const std::vector<std::pair<uint32_t, fs::path>>& futures) {
  for (const auto& [dir_index, future] : futures) {
    layout::Entry e = layout::parse_entry(future.filename().string());
    TopicPartition tp{e.topic, e.partition};
    if (!fs::exists(future / layout::kMoveCompleteMarker)) {
      log()->info("Discarding the unfinished move copy {}.", future.string());
      fs::remove_all(future);
      continue;
    }
    // A complete copy: finish the promotion as the mover would have.
    fs::path source;
    {
      std::lock_guard lock(mu_);
      auto it = partitions_.find(tp);
      if (it != partitions_.end()) source = dirs_[it->second->dir]->path / tp.str();
    }
    const fs::path final_path = dirs_[dir_index]->path / tp.str();
    const fs::path del = ReplicaMover::promote(tp, future, source, final_path);
    if (!del.empty()) {
      {
        std::lock_guard lock(mu_);
        remove_partition_locked(tp);
      }
      fs::remove_all(del);
    }
    log()->info("Finished the interrupted move of {} into {}.", tp.str(),
                dirs_[dir_index]->path_text);
    const uint64_t size = detail::segments_size(final_path, nullptr);
    add_partition(dir_index, tp, size, 0);
  }
}

}  // namespace lds
