// replica_mover.h: KIP-113 replica moves: queue, mover threads, throttled copy, promotion.
//
// A move copies <src>/<tp> into <dest>/<tp>.<id>-future while appends continue, catches up with the
// partition's I/O lock held, writes a durable completion marker inside the future, then promotes,
// each step made durable before the next:
//   1. <dest>/<tp> must be free (lstat); a stray entry there fails this move only;
//   2. the future is renamed to <dest>/<tp>, the marker still inside: the complete new copy;
//   3. the source is renamed to <src>/<tp>.<id>-delete;
//   4. the marker is removed, then the -delete directory.
// Startup recovery (log_manager/recovery.cpp) reads a marked directory as the complete copy and any
// other as stale, so at every crash point the partition exists exactly once, complete, and the last
// complete copy is never deleted.
#pragma once

#include <atomic>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "config/config.h"
#include "storage/hosted_partition.h"
#include "storage/log_manager.h"
#include "storage/replica_host.h"
#include "storage/reservation.h"

namespace lds {

class MoveThrottle;   // storage/move_throttle.h
class SegmentCopier;  // storage/segment_copier.h

// The moves of one LogManager, which it reaches through ReplicaHost alone. It shares the host's
// state lock: a move's counts and reservation in its destination change together with its
// partition's bookkeeping.
class ReplicaMover {
 public:
  // One replica move, counted in its destination while it exists.
  struct Move {
    std::shared_ptr<HostedPartition> partition;
    uint32_t dest = 0;
    std::filesystem::path future;  // <dest>/<topic>-<partition>.<id>-future
    std::atomic<bool> cancelled{false};
    // Past the commit point (the copy is complete and about to be marked): the move promotes, or
    // a crash leaves it to startup recovery. Guarded by the state lock.
    bool promoting = false;
    uint64_t copied = 0;       // guarded by the state lock
    Reservation left_to_copy;  // on dest, guarded by the state lock
  };

  // The last move of a partition that failed, kept until a new move of it starts (or it is
  // cancelled or deleted), for DescribeLogDirs and `reassign --verify`.
  struct Failure {
    uint32_t dest = 0;
    StorageErrc error = StorageErrc::kDirUnavailable;
    std::string message;
  };

  explicit ReplicaMover(ReplicaHost& host);
  ~ReplicaMover();
  ReplicaMover(const ReplicaMover&) = delete;
  ReplicaMover& operator=(const ReplicaMover&) = delete;

  // num.replica.alter.log.dirs.threads mover threads, started once the directories are loaded.
  void start(int32_t threads);
  // Stops the threads: a running move drops its future copy, queued moves never start.
  void stop();

  // replica.alter.log.dirs.io.max.bytes.per.second: the bytes per second all moves together copy,
  // the catch-up of each included; kNoMoveThrottle (or more) is none; 0 holds every move without
  // copying until it is raised. Applies to running moves.
  void set_throttle(uint64_t bytes_per_second);
  // Called on a mover thread, with no lock of the LogManager held, each time a move ends
  // (promoted, failed, cancelled or dropped), so that whoever queues moves can start the next one
  // at once. Replacing it waits for a call in progress; an empty function is none.
  void set_move_ended_listener(std::function<void()> listener);
  size_t in_progress() const;  // queued or running
  LogManager::MoveCounters counters() const;

  // The state lock held: the move of `tp`, or null.
  const Move* find_locked(const TopicPartition& tp) const;
  // The state lock held: cancels the move of `tp`, if there is one; its mover removes the future.
  // Forgets the partition's last failed move too.
  void cancel_locked(const TopicPartition& tp);
  // The state lock held: log directory `dir` went offline (`reason`). Every move from or to it
  // that has not reached its commit point stops as a cancelled one does (its mover drops the
  // future copy at its next chunk, trying where the destination is the offline dir; the
  // reservation is released now) and is recorded as failed, one log line each naming the
  // replica, both dirs and why. A move already promoting finishes, or the next start recovers it.
  void stop_moves_of_dir_locked(uint32_t dir, const std::string& reason);
  // The state lock held: the last failed move of every partition that has one.
  std::vector<std::pair<TopicPartition, Failure>> failures_locked() const;

  // The partition's I/O lock held, the state lock not: creates the future directory in `dest` and
  // queues the move. Returns false when `dest` failed and was marked offline. Throws StorageError
  // for a future name the filesystem cannot hold, a lack of space or descriptors, or a source or
  // destination that went offline meanwhile.
  bool begin(const std::shared_ptr<HostedPartition>& partition, uint32_t dest);

  // In-memory LogManagers only (the simulator, whose mover threads never run): the move of `tp`
  // copies `bytes` more, and once its copy has caught up it is promoted in the bookkeeping as
  // run_move() would. Returns the bytes copied; 0 when `tp` has no move.
  uint64_t advance_in_memory(const TopicPartition& tp, uint64_t bytes);

 private:
  void run_thread();
  void run_move(const std::shared_ptr<Move>& move);
  // The move was cancelled, or the mover is stopping (takes the state lock).
  bool abandoned(const Move& move) const;
  // Removes the move's future copy and forgets the move, if it is still its partition's (state
  // lock not held).
  void drop_future(const std::shared_ptr<Move>& move);
  // Counts `copied_now` more bytes copied by the move, unless it was cancelled, and reserves what
  // is left to copy (takes the state lock).
  void record_progress(Move& move, uint64_t copied_now);
  // Copies while appends continue, until what is left is small enough to catch up with; `paid`
  // gets the bytes of the catch-up paid for in advance. Returns false when the move is abandoned.
  bool bulk_copy(Move& move, SegmentCopier& copier, uint64_t& paid);
  // The partition's I/O lock held: copies what appends added since the bulk copy, then the
  // partition's metadata and indexes, and makes the copy durable. Returns the copy's bytes.
  uint64_t catch_up_locked(Move& move, SegmentCopier& copier, uint64_t paid);
  // The copy is complete and marked, the partition's I/O lock held: steps 1 to 4 above. Returns
  // the -delete directory for the caller to remove once the lock is released (empty: none).
  std::filesystem::path promote(const std::shared_ptr<Move>& move,
                                const std::filesystem::path& source);
  // A move that threw: cancelled (partition deleted or moved to `any`), failed for space or
  // descriptors (the dir stays online), or failed by its source's or destination's disk.
  void handle_failure(const std::shared_ptr<Move>& move, const std::exception& error);
  // Drops the move's future copy and records why it failed (state lock not held).
  void fail(const std::shared_ptr<Move>& move, const std::string& message);
  bool owns_locked(const std::shared_ptr<Move>& move) const
      REQUIRES(host_.state_mutex());  // still its partition's move
  // The state lock held: forgets the move of `tp` and its last failure, and gives back what the
  // move holds in its destination (count, reservation); its mover removes the future. Returns
  // the move forgotten, or null.
  std::shared_ptr<Move> forget_locked(const TopicPartition& tp) REQUIRES(host_.state_mutex());

  ReplicaHost& host_;
  // Guarded by the host's state lock.
  std::unordered_map<TopicPartition, std::shared_ptr<Move>, TopicPartitionHash> moves_
      GUARDED_BY(host_.state_mutex());
  std::deque<std::shared_ptr<Move>> queue_ GUARDED_BY(host_.state_mutex());
  std::unordered_map<TopicPartition, Failure, TopicPartitionHash> failures_
      GUARDED_BY(host_.state_mutex());
  size_t running_ GUARDED_BY(host_.state_mutex()) = 0;
  bool stopping_ GUARDED_BY(host_.state_mutex()) = false;

  CondVar wake_;
  std::atomic<uint64_t> bytes_per_second_{kNoMoveThrottle};
  // LogManager::MoveCounters, each counted where it happens; read without a lock.
  std::atomic<uint64_t> copied_bytes_{0};
  std::atomic<uint64_t> failed_no_space_{0};
  std::atomic<uint64_t> failed_no_descriptors_{0};
  std::atomic<uint64_t> failed_disk_error_{0};
  std::atomic<uint64_t> failed_dir_offline_{0};
  std::unique_ptr<MoveThrottle> throttle_;  // shared by every move, reads bytes_per_second_
  Mutex listener_mu_;                       // held while the listener runs
  std::function<void()> move_ended_;
  std::vector<std::thread> threads_;
};

}  // namespace lds
