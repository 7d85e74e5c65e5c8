// log_manager/pending_deletions.cpp: LogManager finishing, at startup, the deletions of replicas
// whose log directory was offline when their topic was deleted, and of old move copies that could
// not be renamed aside; and recording the latter.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>

#include "io/durable_file.h"
#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "storage/log_manager/internal.h"
#include "storage/storage_logger.h"

namespace lds {

namespace fs = std::filesystem;

namespace {

// The replica.id a partition directory's lds.partition records: "" when it has no such file, no
// replica.id, or is malformed, or `partition_dir` is not a directory (a stray file at the name).
// Throws FileError when the file cannot be read.
std::string replica_id_in(const fs::path& partition_dir) {
  const fs::path file = partition_dir / layout::kPartitionMetadata;
  Fd in(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in) {
    if (errno == ENOENT || errno == ENOTDIR) return "";
    check_syscall(-1, "open", file);
  }
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    check_syscall(n, "read", file);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  return layout::parse_partition_metadata(text).replica_id;
}

}  // namespace

void LogManager::complete_pending_deletions() {
  if (options_.in_memory || !pending_deletions_.enabled()) return;
  pending_deletions_.load();
  if (pending_deletions_.entries().empty()) return;
  std::vector<PendingDeletion> remaining;
  for (const PendingDeletion& e : pending_deletions_.entries()) {
    const std::string name = layout::partition_dir(e.topic, e.partition);
    std::string wait;
    const int i = locate_pending_deletion(e, wait);
    if (i < 0 && !wait.empty()) {
      log()->warn("The deletion of {} in {} stays pending: {}.", name, e.log_dir, wait);
      remaining.push_back(e);
      continue;
    }
    if (i < 0) {
      // Another disk at that path, and the disk the replica was on is under no log.dirs entry.
      const int at = dir_index(e.log_dir);
      log()->warn(
          "Dropping the pending deletion of {} in {}: the directory is now directory.id {}, not "
          "{} where the replica was, and no log.dirs entry has that directory.id.",
          name, e.log_dir, dirs_[static_cast<uint32_t>(at)]->directory_id, e.directory_id);
      continue;
    }
    try {
      complete_pending_deletion(static_cast<uint32_t>(i), e);
    } catch (const std::exception& ex) {
      mark_offline(static_cast<uint32_t>(i),
                   "cannot complete the pending deletion of " + name + ": " + ex.what());
      remaining.push_back(e);
    }
  }
  try {
    pending_deletions_.keep_only(remaining);
  } catch (const std::exception& ex) {
    // A record left behind would remove a replica created later under the same name.
    throw ConfigError("Cannot rewrite the pending deletions file " +
                      pending_deletions_.file().string() + ": " + ex.what() + ".");
  }
}

int LogManager::locate_pending_deletion(const PendingDeletion& e, std::string& wait) const {
  // startup() read (or, for a directory it found without one, wrote) every meta.properties; a
  // directory that failed its checks has no directory.id this run.
  for (uint32_t i = 0; i < dirs_.size(); ++i) {
    const Dir& d = *dirs_[i];
    if (d.directory_id.empty() || d.directory_id != e.directory_id) continue;
    if (d.online) return static_cast<int>(i);
    wait = "its directory.id " + e.directory_id + " is in " + d.path_text +
           ", which is offline: " + d.offline_reason;
    while (!wait.empty() && (wait.back() == '.' || wait.back() == ' ')) wait.pop_back();
    return -1;
  }
  // The disk is under no entry this run. It may be under one whose directory.id is unknown.
  for (const auto& d : dirs_) {
    if (!d->online) {
      wait = "no online log directory has its directory.id " + e.directory_id + ", and " +
             d->path_text + ", which may hold it, is offline: " + d->offline_reason;
      while (!wait.empty() && (wait.back() == '.' || wait.back() == ' ')) wait.pop_back();
      return -1;
    }
    if (d->meta_written_now) {
      wait = "no log directory has its directory.id " + e.directory_id + ", and " + d->path_text +
             " had no " + std::string(layout::kMetaProperties) + " (its disk may not be mounted)";
      return -1;
    }
  }
  if (dir_index(e.log_dir) < 0) {
    wait = "that directory is not in log.dirs, and no log.dirs entry has its directory.id " +
           e.directory_id;
    return -1;
  }
  wait.clear();  // the disk is gone: the record is dropped
  return -1;
}

void LogManager::complete_pending_deletion(uint32_t dir, const PendingDeletion& e) {
  const Dir& d = *dirs_[dir];
  const std::string name = layout::partition_dir(e.topic, e.partition);
  // Where the disk is mounted now, when that is not where the replica was deleted.
  const std::string moved = d.path_text == e.log_dir ? ""
                                                     : " (its directory.id " + e.directory_id +
                                                           " was in " + e.log_dir + " then)";
  const fs::path src = d.path / name;
  std::error_code ec;
  if (!fs::exists(src, ec)) {
    if (ec) throw FileError(ec.value(), "stat", src);
    log()->info("Completed the pending deletion of {} in {}{}: it was not there.", name,
                d.path_text, moved);
    return;
  }
  if (!e.replica_id.empty()) {
    const std::string found = replica_id_in(src);
    if (found != e.replica_id) {
      // Not the replica that was deleted: one created again under the name, or a stray entry.
      log()->warn(
          "Dropping the pending deletion of {} in {}{}: the {} there {}, not replica.id {} that "
          "was deleted, so it is kept.",
          name, d.path_text, moved, name,
          found.empty() ? "has no replica.id" : "is replica.id " + found, e.replica_id);
      return;
    }
  }
  // Renamed first, so a crash before the removal leaves a -delete directory, which every start
  // removes, and never a partition that would be served.
  const fs::path del = d.path / layout::delete_dir(e.topic, e.partition, layout::random_hex_id());
  check_syscall(::rename(src.c_str(), del.c_str()), "rename", src);
  fsync_folder(d.path);
  fs::remove_all(del);
  log()->info("Completed the pending deletion of {} in {}{}.", name, d.path_text, moved);
}

void LogManager::record_stale_copy(uint32_t dir, const TopicPartition& tp,
                                   const std::string& reason) {
  // A LogManager without a record file (in process, in tests) keeps none; the marker still
  // decides a plain restart.
  if (options_.in_memory || !pending_deletions_.enabled()) return;
  PendingDeletion stale;
  {
    MutexLock lock(mu_);
    // The old copy is the same replica as the new one: a move copies its lds.partition.
    const Partition* hosted = partitions_.find(tp);
    stale = pending_deletion_in(
        dir, tp, hosted != nullptr ? hosted->replica_id.str() : std::string(),
        "the old copy of a finished move could not be renamed aside: " + reason);
  }
  try {
    MutexLock lock(pending_mu_);
    pending_deletions_.add({stale});
  } catch (const std::exception& e) {
    log()->error(
        "The old copy of {} in {} could not be recorded for deletion: {}; after the next restart "
        "it is served again if the new copy is gone by then.",
        tp.str(), stale.log_dir, e.what());
    return;
  }
  log()->warn(
      "The old copy of {} in {} is recorded for deletion; the next start that finds the "
      "directory readable removes it.",
      tp.str(), stale.log_dir);
}

}  // namespace lds
