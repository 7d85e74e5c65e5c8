// log_dir.h: one entry of log.dirs as the LogManager keeps it: where it is, whether it is online
// or cordoned, what it counts and reserves.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <string>

#include "io/dir_lock.h"
#include "storage/reservation.h"
#include "util/rate_meter.h"

namespace lds {

// Fixed at construction, one per log.dirs entry. What changes in it, the LogManager's state lock
// guards, except `placements` (atomic) and `lock` (startup() only).
struct LogDir {
  explicit LogDir(const std::filesystem::path& p)
      : path(p), path_text(p.string()), reserved(path_text) {}

  std::filesystem::path path;
  std::string path_text;  // what lds_dir.path points at
  std::string directory_id;
  // startup() wrote its meta.properties: the directory was new, or its disk is not mounted.
  bool meta_written_now = false;
  DirLock lock;  // held from startup() on (none in the in-memory mode)
  bool online = true;
  std::string offline_reason;
  bool cordoned = false;
  uint32_t partition_count = 0;  // current and future replicas
  // The Reservations of its partitions (bytes expected, not written yet) and of the moves into it
  // (bytes not copied yet).
  ReservedBytes reserved;
  // Bytes appended to its replicas and copied into it by moves (lds_dir.bytes_in_per_sec).
  MemoRateMeter rate;
  std::atomic<uint64_t> placements{0};  // partitions created here since start
};

}  // namespace lds
