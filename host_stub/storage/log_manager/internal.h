// log_manager/internal.h: LogManager's private state and file helpers, shared by its source files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "io/dir_lock.h"
#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "storage/partition_log.h"
#include "storage/reservation.h"
#include "storage/storage_logger.h"
#include "util/rate_meter.h"

namespace lds {

struct LogManager::Dir {
  explicit Dir(const std::filesystem::path& p)
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

// One hosted replica. Kept small: a broker may host a million. Its I/O lock is one of
// LogManager's striped locks (io_of), and a move in progress lives in its ReplicaMover.
struct LogManager::Partition {
  TopicPartition tp;
  uint32_t dir = 0;         // changes only when a move promotes, under io and mu_
  bool deleted = false;     // guarded by io
  uint64_t size = 0;        // guarded by LogManager::mu_; the log's bytes, for readers without io
  PartitionLog log;         // its segments and offsets; guarded by io
  Reservation reservation;  // on dirs_[dir]: expected bytes not written yet; guarded by mu_
  RateMeter rate;           // its appends; guarded by mu_
  // Its lds.partition's replica.id, which a move copies with it: what a pending deletion of it
  // names. "" for a partition created before the file held one. Set before it is hosted.
  std::string replica_id;
};

namespace {
// The LogManager's files log through storage's logger as log(). Defined once here, not in each
// file, so that a unity build (LDS_UNITY_BUILD), which compiles several of them as one unit, sees
// it once.
[[maybe_unused]] std::shared_ptr<spdlog::logger> log() { return storage_logger(); }
}  // namespace

namespace detail {
// Total size of a partition directory's segment files.
uint64_t segments_size(const std::filesystem::path& partition_dir);
// Why the startup scan ignores a log directory entry, or "" when it is not stray (meta.properties,
// .lock). `kind` is how layout::parse_entry classified `name`.
std::string stray_entry_reason(const std::string& name, layout::EntryKind kind, bool is_dir);

}  // namespace detail
}  // namespace lds
