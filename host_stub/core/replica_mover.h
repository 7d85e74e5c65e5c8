// replica_mover.h: KIP-113 replica moves: queue, mover threads, throttled copy, promotion.
//
// A move copies <src>/<tp> into <dest>/<tp>.<id>-future while appends continue, catches up with the
// partition's I/O lock held, writes a durable completion marker, then promotes: the source is
// renamed to <tp>.<id>-delete and the future to <tp>. Startup recovery (LogManager::recover_moves)
// finishes a marked future with the same promote() and discards an unmarked one, so at every crash
// point the partition exists exactly once, complete.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <filesystem>
#include <memory>
#include <thread>
#include <unordered_map>
#include <vector>

#include "core/log_manager.h"
#include "core/reservation.h"

namespace lds {

// The moves of one LogManager. It shares the LogManager's state lock (mu_): a move's counts and
// reservation in its destination change together with its partition's bookkeeping.
class ReplicaMover {
 public:
  // One replica move, counted in its destination while it exists.
  struct Move {
    std::shared_ptr<LogManager::Partition> partition;
    uint32_t dest = 0;
    std::filesystem::path future;  // <dest>/<topic>-<partition>.<id>-future
    std::atomic<bool> cancelled{false};
    uint64_t copied = 0;       // guarded by the state lock
    Reservation left_to_copy;  // on dest, guarded by the state lock
  };

  explicit ReplicaMover(LogManager& logs);
  ~ReplicaMover();
  ReplicaMover(const ReplicaMover&) = delete;
  ReplicaMover& operator=(const ReplicaMover&) = delete;

  // num.replica.alter.log.dirs.threads mover threads, started once the directories are loaded.
  void start(int32_t threads);
  // Stops the threads: a running move drops its future copy, queued moves never start.
  void stop();

  // replica.alter.log.dirs.io.max.bytes.per.second; 0 means unthrottled. Applies to running moves.
  void set_throttle(uint64_t bytes_per_second);
  size_t in_progress() const;  // queued or running

  // The state lock held: the move of `tp`, or null.
  const Move* find_locked(const TopicPartition& tp) const;
  // The state lock held: cancels the move of `tp`, if there is one; its mover removes the future.
  void cancel_locked(const TopicPartition& tp);

  // The partition's I/O lock held, the state lock not: creates the future directory in `dest` and
  // queues the move. Returns false when `dest` failed and was marked offline.
  bool begin(const std::shared_ptr<LogManager::Partition>& partition, uint32_t dest);

  // In-memory LogManagers only (the simulator, whose mover threads never run): the move of `tp`
  // copies `bytes` more, and once its copy has caught up it is promoted in the bookkeeping as
  // run_move() would. Returns the bytes copied; 0 when `tp` has no move.
  uint64_t advance_in_memory(const TopicPartition& tp, uint64_t bytes);

  // Puts a complete copy in its partition's place, each rename made durable: `source`, unless
  // empty, is renamed aside to <tp>.<id>-delete, then `future` to `final_path`, and the completion
  // marker is removed. Returns the -delete path (empty without a source), for the caller to remove
  // once its bookkeeping is done: a crash before that leaves it to the next start. Throws
  // std::system_error.
  static std::filesystem::path promote(const TopicPartition& tp,
                                       const std::filesystem::path& future,
                                       const std::filesystem::path& source,
                                       const std::filesystem::path& final_path);

 private:
  void run_thread();
  void run_move(const std::shared_ptr<Move>& move);
  bool owns_locked(const std::shared_ptr<Move>& move) const;  // still its partition's move

  LogManager& logs_;
  // Guarded by logs_.mu_.
  std::unordered_map<TopicPartition, std::shared_ptr<Move>, TopicPartitionHash> moves_;
  std::deque<std::shared_ptr<Move>> queue_;
  size_t running_ = 0;
  bool stopping_ = false;

  std::condition_variable wake_;
  std::atomic<uint64_t> bytes_per_second_{0};
  std::vector<std::thread> threads_;
};

}  // namespace lds
