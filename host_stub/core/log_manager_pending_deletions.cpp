// log_manager_pending_deletions.cpp: LogManager finishing, at startup, the deletions of replicas
// whose log directory was offline when their topic was deleted, and of old move copies that could
// not be renamed aside; and recording the latter.
#include <cerrno>
#include <cstdio>
#include <fstream>

#include "core/durable_file.h"
#include "core/log_layout.h"
#include "core/log_manager.h"
#include "core/logging.h"
#include "log_manager_internal.h"

namespace lds {

namespace fs = std::filesystem;

void LogManager::complete_pending_deletions() {
  if (options_.in_memory || !pending_deletions_.enabled()) return;
  pending_deletions_.load();
  if (pending_deletions_.entries().empty()) return;
  std::vector<PendingDeletion> remaining;
  for (const PendingDeletion& e : pending_deletions_.entries()) {
    const std::string name = layout::partition_dir(e.topic, e.partition);
    const int i = dir_index(e.log_dir);
    if (i < 0) {
      log()->warn("The deletion of {} in {} stays pending: that directory is not in log.dirs.",
                  name, e.log_dir);
      remaining.push_back(e);
      continue;
    }
    const Dir& d = *dirs_[static_cast<uint32_t>(i)];
    if (!d.online) {
      log()->warn("The deletion of {} in {} stays pending: the directory is offline: {}", name,
                  e.log_dir, d.offline_reason);
      remaining.push_back(e);
      continue;
    }
    try {
      // startup() read (or, for a directory it found without one, wrote) its meta.properties.
      const std::string& id = d.directory_id;
      if (d.meta_written_now) {
        log()->warn(
            "The deletion of {} in {} stays pending: the directory has no {} (its disk "
            "is not there).",
            name, e.log_dir, layout::kMetaProperties);
        remaining.push_back(e);
        continue;
      }
      if (id != e.directory_id) {
        // Another disk at that path: the replica was on the one that is gone.
        log()->warn(
            "Dropping the pending deletion of {} in {}: the directory is now directory.id "
            "{}, not {} where the replica was.",
            name, e.log_dir, id, e.directory_id);
        continue;
      }
      const fs::path src = d.path / name;
      std::error_code ec;
      if (fs::exists(src, ec)) {
        // Renamed first, so a crash before the removal leaves a -delete directory, which every
        // start removes, and never a partition that would be served.
        const fs::path del =
            d.path / layout::delete_dir(e.topic, e.partition, layout::random_hex_id());
        check_syscall(::rename(src.c_str(), del.c_str()), "rename", src);
        fsync_folder(d.path);
        fs::remove_all(del);
      } else if (ec) {
        throw FileError(ec.value(), "stat", src);
      }
      log()->info("Completed the pending deletion of {} in {}.", name, e.log_dir);
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

void LogManager::record_stale_copy(uint32_t dir, const TopicPartition& tp,
                                   const std::string& reason) {
  // A LogManager without a record file (in process, in tests) keeps none; the marker still
  // decides a plain restart.
  if (options_.in_memory || !pending_deletions_.enabled()) return;
  PendingDeletion stale;
  {
    std::lock_guard lock(mu_);
    stale = pending_deletion_in(
        dir, tp, "the old copy of a finished move could not be renamed aside: " + reason);
  }
  try {
    std::lock_guard lock(pending_mu_);
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
