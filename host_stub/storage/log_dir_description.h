// log_dir_description.h: what LogManager::describe() and failed_moves() answer: each log
// directory with its space, its replicas and their moves, as DescribeLogDirs reports them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/storage_error.h"

namespace lds {

// One replica of a log directory: a current one, or the future copy of a move into it.
struct PartitionDescription {
  std::string partition;  // "topic-0"
  uint64_t size = 0;
  uint64_t offset_lag = 0;
  bool is_future = false;
};

// One log directory as describe() reads it.
struct LogDirDescription {
  std::string log_dir;
  std::string directory_id;
  StorageErrc error = StorageErrc::kNone;  // kDirUnavailable when offline
  std::string error_message;
  uint64_t total_bytes = 0;
  uint64_t usable_bytes = 0;
  uint64_t reserved_bytes = 0;
  bool space_known = false;
  uint64_t filesystem = 0;  // DiskSpace::filesystem: dirs with one non-zero id share their space
  bool cordoned = false;
  std::vector<PartitionDescription> partitions;
  // An offline dir's replicas ("t-0"), still this broker's but unreadable until a restart finds the
  // dir again; Kafka lists none for such a dir, and its tools then say "not found in any live log
  // dir".
  std::vector<std::string> unreadable_partitions;
  uint64_t unreadable_bytes = 0;  // their sizes when the dir went offline, summed
  uint64_t placements = 0;        // partitions created here since start (not moves)
};

// The last failed move of a replica (KIP-113), until a new move of it starts.
struct FailedMoveDescription {
  std::string partition;  // "topic-0"
  std::string log_dir;    // the destination it did not reach
  StorageErrc error = StorageErrc::kDirUnavailable;
  std::string message;  // "Not enough space in /d2 to move t-0: 64.0 MiB needed, 12.0 MiB free."
};

}  // namespace lds
