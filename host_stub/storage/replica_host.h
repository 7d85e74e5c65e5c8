// replica_host.h: what the ReplicaMover needs of the storage whose replicas it moves, and nothing
// more: the state lock, a log directory, a partition's I/O lock, and the bookkeeping a move changes
// (counts, reservations, the copy's rate, the promotion, a directory gone offline).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/disk_probe.h"
#include "model/topic_partition.h"
#include "util/mutex.h"

namespace lds {

struct HostedPartition;  // storage/hosted_partition.h
struct LogDir;           // storage/log_dir.h

// The LogManager implements it privately; its ReplicaMover holds it. A method named _locked is
// called with state_mutex() held; the others without it.
class ReplicaHost {
 public:
  // The lock that guards the hosted partitions' bookkeeping, and the mover's own state with it: a
  // move's counts and reservation in its destination change together with its partition's.
  virtual Mutex& state_mutex() const = 0;
  // Log directory `dir` (a log.dirs index); its `online` and `reserved` under state_mutex().
  virtual LogDir& log_dir(uint32_t dir) const = 0;
  // The I/O lock of `tp`: it serialises the partition's appends, its deletion and a move's final
  // phase. Taken before state_mutex(), never under it.
  virtual Mutex& io_of(const TopicPartition& tp) const = 0;
  // No files: directories and partitions are bookkeeping only (the simulator).
  virtual bool in_memory() const = 0;
  // Directory `dir`'s filesystem as the probe reads it now.
  virtual DiskSpace read_space(uint32_t dir) const = 0;
  // Each directory's filesystem (DiskSpace::filesystem), 0 when offline or unknown.
  virtual std::vector<uint64_t> dir_filesystems() const = 0;
  // What is reserved on directory `dir`'s filesystem, its own and that of the online directories
  // sharing it, by `filesystems` from dir_filesystems().
  virtual uint64_t reserved_on_filesystem_locked(uint32_t dir,
                                                 const std::vector<uint64_t>& filesystems) const
      REQUIRES(state_mutex()) = 0;
  // Counts a replica (a move's future copy) of `topic` in directory `dir`, or uncounts it (-1).
  virtual void count_replica_locked(uint32_t dir, const std::string& topic, int delta)
      REQUIRES(state_mutex()) = 0;
  // A move copied `bytes` into directory `dir`: they count in its rate.
  virtual void record_copy_locked(uint32_t dir, uint64_t bytes) REQUIRES(state_mutex()) = 0;
  // A move promoted `p` into directory `to`, which already counts it (it counted the future copy).
  virtual void relocate_locked(HostedPartition& p, uint32_t to) REQUIRES(state_mutex()) = 0;
  // A finished move's old copy of `tp` in directory `dir` could not be renamed aside (`reason`):
  // its deletion is recorded as pending. Never throws.
  virtual void record_stale_copy(uint32_t dir, const TopicPartition& tp,
                                 const std::string& reason) = 0;
  // Marks directory `dir` offline after an I/O error (`reason`).
  virtual void mark_offline(uint32_t dir, const std::string& reason) = 0;

 protected:
  ReplicaHost() = default;
  ~ReplicaHost() = default;
  ReplicaHost(const ReplicaHost&) = default;
  ReplicaHost& operator=(const ReplicaHost&) = default;
};

}  // namespace lds
