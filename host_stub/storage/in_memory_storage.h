// in_memory_storage.h: what only a LogManager without disks (LogManager::Options::in_memory)
// offers: the simulator's hands on the state a broker reads from its disks, namely the bytes a
// partition held before the run, a move's copy progress and a replaced disk coming back. A
// LogManager on disks offers none of it: LogManager::in_memory_storage() is null there.
#pragma once

#include <cstdint>

#include "model/topic_partition.h"

namespace lds {

class InMemoryStorage {
 public:
  // Counts `bytes` that `tp` held before it was placed here (the simulator's data from before a
  // trace) in its size, not in any append rate. Returns the partition's size. Throws StorageError
  // kUnknownPartition.
  virtual uint64_t add_existing_bytes(const TopicPartition& tp, uint64_t bytes) = 0;
  // The move of `tp` copies up to `bytes` more, and is promoted once it has caught up. Returns the
  // bytes copied.
  virtual uint64_t advance_move(const TopicPartition& tp, uint64_t bytes) = 0;
  // Brings an offline directory back online (a disk attached while running, as the simulator's
  // disk-added event does); the partitions it hosts keep their bookkeeping.
  virtual void mark_online(uint32_t dir_index) = 0;

 protected:
  ~InMemoryStorage() = default;
};

}  // namespace lds
