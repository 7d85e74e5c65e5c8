// replica_mover_in_memory.cpp: moves of an in-memory LogManager, advanced by the simulator's clock
// instead of mover threads: the bookkeeping of a copy and its promotion, without files.
#include <algorithm>

#include "storage/log_manager/internal.h"
#include "storage/replica_mover.h"

namespace lds {

uint64_t LogManager::advance_move(const TopicPartition& tp, uint64_t bytes) {
  return mover_->advance_in_memory(tp, bytes);
}

uint64_t ReplicaMover::advance_in_memory(const TopicPartition& tp, uint64_t bytes) {
  MutexLock lock(host_.state_mutex());
  if (!host_.in_memory()) return 0;
  auto it = moves_.find(tp);
  if (it == moves_.end()) return 0;
  std::shared_ptr<Move> m = it->second;
  HostedPartition& p = *m->partition;
  const uint64_t copied = std::min(bytes, p.size - std::min(p.size, m->copied));
  m->copied += copied;
  m->left_to_copy.resize(p.size - std::min(p.size, m->copied));
  if (m->copied < p.size) return copied;
  // Caught up: promoted as run_move() does once the copy is complete.
  m->left_to_copy.release();
  host_.relocate_locked(p, m->dest);
  moves_.erase(it);
  queue_.erase(std::remove(queue_.begin(), queue_.end(), m), queue_.end());
  return copied;
}

}  // namespace lds
