// log_manager_pending_deletions.cpp: LogManager finishing, at startup, the deletions of replicas
// whose log directory was offline when their topic was deleted.
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

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::log_manager_log(); }

std::string trimmed(const std::string& s) {
  const size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r") - b + 1);
}

// The directory.id in `meta`, or "" when the file does not exist (a disk not mounted at that path
// yet). Throws FileError when it exists but cannot be read.
std::string directory_id_in(const fs::path& meta) {
  std::error_code ec;
  if (!fs::exists(meta, ec)) {
    if (ec) throw FileError(ec.value(), "stat", meta);
    return "";
  }
  std::ifstream in(meta);
  if (!in) throw FileError(errno, "open", meta);
  std::string line;
  while (std::getline(in, line)) {
    const size_t eq = line.find('=');
    if (eq != std::string::npos && trimmed(line.substr(0, eq)) == "directory.id") {
      return trimmed(line.substr(eq + 1));
    }
  }
  if (in.bad()) throw FileError(EIO, "read", meta);
  return "";
}

}  // namespace

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
    try {
      const std::string id = directory_id_in(d.path / layout::kMetaProperties);
      if (id.empty()) {
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

}  // namespace lds
