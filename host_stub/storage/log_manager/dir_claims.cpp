// log_manager/dir_claims.cpp: LogManager's claim on its log directories at startup: the lock on
// each, then every meta.properties read and checked, then the missing ones written; and the refusal
// to start with no directory left.
#include <sys/stat.h>

#include <algorithm>
#include <map>
#include <optional>

#include "io/dir_lock.h"
#include "io/durable_file.h"
#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "storage/log_manager/internal.h"
#include "storage/meta_properties.h"
#include "storage/storage_logger.h"

namespace lds {

namespace fs = std::filesystem;

namespace {

// Checks the meta.properties `m`, read from `file` in log directory `dir` (`dir_text`), against
// the broker's `options` and the files read before it: the first cluster.id found (`cluster`, and
// its file) and their directory ids (`directory_ids`, id -> log dir), where it adds its own.
// Throws ConfigError.
void check_meta_properties(const MetaProperties& m, const fs::path& file, const fs::path& dir,
                           const std::string& dir_text, const LogManager::Options& options,
                           std::optional<std::pair<std::string, fs::path>>& cluster,
                           std::map<std::string, fs::path>& directory_ids) {
  if (m.node_id && *m.node_id != options.broker_id) {
    throw ConfigError(node_id_mismatch(*m.node_id, options.broker_id, file));
  }
  if (m.written_by_lds_host_0_1) {
    log()->warn(
        "{} was written by lds-host 0.1 (version=1 with broker.id); it is read as such and "
        "left as it is.",
        file.string());
  }
  if (m.cluster_id && !options.cluster_id.empty() && *m.cluster_id != options.cluster_id) {
    throw ConfigError(cluster_id_mismatch(file, options.cluster_id, *m.cluster_id) +
                      " (the cluster.id the config sets).");
  }
  if (m.cluster_id && !cluster) {
    cluster.emplace(*m.cluster_id, file);
  } else if (m.cluster_id && *m.cluster_id != cluster->first) {
    throw ConfigError(cluster_id_mismatch(file, cluster->first, *m.cluster_id) + " (" +
                      cluster->second.string() + " says " + cluster->first + ").");
  }
  if (m.directory_id) {
    auto [seen, inserted] = directory_ids.emplace(*m.directory_id, dir);
    if (!inserted) {
      throw ConfigError("Duplicate directory ID " + *m.directory_id + " found. It was the ID of " +
                        seen->second.string() + ", but also of " + dir_text + ".");
    }
  }
}

}  // namespace

void LogManager::release_dir_locks() {
  for (auto& d : dirs_) d->lock.release();
}

void LogManager::lock_dir(uint32_t dir_index, bool create, std::string& fault) {
  Dir& d = *dirs_[dir_index];
  try {
    if (create) {
      std::error_code ec;
      fs::create_directories(d.path, ec);
      if (ec) {
        fault = "Failed to create or validate the data directory: " + ec.message();
        return;
      }
    }
    d.lock = DirLock(d.path, create);
  } catch (const ConfigError&) {
    release_dir_locks();
    throw;
  } catch (const std::exception& e) {
    fault = std::string("Disk error while locking the directory: ") + e.what();
  }
}

void LogManager::lock_dirs(std::vector<std::string>& faults) {
  const size_t n = dirs_.size();
  std::vector<bool> has_lock_file(n);
  for (uint32_t i = 0; i < n; ++i) {
    struct stat st {};
    has_lock_file[i] = ::lstat((dirs_[i]->path / layout::kLockFile).c_str(), &st) == 0;
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (has_lock_file[i]) lock_dir(i, false, faults[i]);
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (!has_lock_file[i]) lock_dir(i, true, faults[i]);
  }
}

void LogManager::adopt_directory_id(uint32_t dir_index,
                                    const std::optional<std::string>& directory_id) {
  Dir& d = *dirs_[dir_index];
  if (directory_id) {
    d.directory_id = *directory_id;
  } else {
    d.directory_id = directory_id_for_path(d.path);
    log()->warn(
        "{} has no directory.id; this run uses {}, derived from the directory's path. The file "
        "is left as it is.",
        (d.path / layout::kMetaProperties).string(), d.directory_id);
  }
}

std::string LogManager::write_meta_properties(uint32_t dir_index, const std::string& cluster_id,
                                              const std::string& directory_id) {
  Dir& d = *dirs_[dir_index];
  const fs::path file = d.path / layout::kMetaProperties;
  try {
    write_file_atomically(file, meta_properties_text(options_.broker_id, cluster_id, directory_id));
  } catch (const std::exception& e) {
    return "Cannot write " + file.string() + ": " + e.what();
  }
  d.directory_id = directory_id;
  d.meta_written_now = true;
  log()->debug("Wrote {} (node.id {}, cluster.id {}, directory.id {}).", file.string(),
               options_.broker_id, cluster_id, directory_id);
  return "";
}

void LogManager::open_dirs() {
  const size_t n = dirs_.size();
  std::vector<std::string> faults(n);  // why a directory cannot be used; empty when it can

  // 1. The locks, before anything in any directory is read or changed. A directory another broker
  // holds has a lock file, so those that have one are locked first: a refusal then creates
  // nothing, not even a missing directory of this broker's own.
  lock_dirs(faults);

  // 2. Every meta.properties read and checked before any is written: a refusal changes nothing.
  std::vector<std::optional<MetaProperties>> metas(n);
  std::optional<std::pair<std::string, fs::path>> cluster;  // the first cluster.id, and its file
  std::map<std::string, fs::path> directory_ids;            // id -> log dir
  try {
    for (uint32_t i = 0; i < n; ++i) {
      if (!faults[i].empty()) continue;
      const Dir& d = *dirs_[i];
      const fs::path file = d.path / layout::kMetaProperties;
      metas[i] = read_meta_properties(file);
      if (!metas[i]) continue;
      check_meta_properties(*metas[i], file, d.path, d.path_text, options_, cluster, directory_ids);
    }
  } catch (...) {
    release_dir_locks();
    throw;
  }

  // 3. Directory ids, and Kafka's version 1 file for every new directory. A file that exists is
  // never rewritten.
  const std::string cluster_id = !options_.cluster_id.empty() ? options_.cluster_id
                                 : cluster                    ? cluster->first
                                                              : layout::random_directory_id();
  {
    MutexLock state(mu_);
    cluster_id_ = cluster_id;
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (!faults[i].empty()) continue;
    if (metas[i]) {
      adopt_directory_id(i, metas[i]->directory_id);
      continue;
    }
    std::string id;
    do {
      id = layout::random_directory_id();
    } while (directory_ids.count(id) > 0);
    faults[i] = write_meta_properties(i, cluster_id, id);
    if (faults[i].empty()) directory_ids.emplace(id, dirs_[i]->path);
  }
  for (uint32_t i = 0; i < n; ++i) {
    if (!faults[i].empty()) mark_offline(i, faults[i]);
  }
}

std::string LogManager::cluster_id() const {
  MutexLock lock(mu_);
  return cluster_id_;
}

void LogManager::refuse_unless_a_dir_is_online() {
  std::string all, faults;
  {
    MutexLock lock(mu_);
    for (const auto& d : dirs_) {
      if (d->online) return;
      all += (all.empty() ? "" : ", ") + d->path_text;
      faults += (faults.empty() ? "" : "; ") + d->path_text + ": " + d->offline_reason;
    }
    release_dir_locks();
  }
  while (!faults.empty() && (faults.back() == '.' || faults.back() == ' ')) faults.pop_back();
  throw ConfigError("Shutdown broker because none of the specified log dirs from " + all +
                    " can be created or validated: " + faults + ".");
}

}  // namespace lds
