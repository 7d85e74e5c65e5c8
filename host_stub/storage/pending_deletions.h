// pending_deletions.h: the durable record of replicas deleted while their log directory was
// offline, so a restart that finds the directory readable removes them before serving anything.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace lds {

// One replica whose topic was deleted while its directory could not be written.
struct PendingDeletion {
  std::string topic;
  int32_t partition = 0;
  std::string log_dir;  // canonical, one of log.dirs at the deletion
  // The directory's meta.properties directory.id at the deletion: the disk the replica is on,
  // looked up under every log.dirs entry at the next start, wherever it is mounted by then.
  std::string directory_id;
  // The replica's own lds.partition replica.id: only a partition with that id is deleted, never
  // one re-created under the same name. "" for a replica without one (created before the file
  // held it), and in records written before the field existed: the name alone decides then.
  std::string replica_id;
  std::string reason;  // why the directory was offline

  bool same_replica(const PendingDeletion& other) const {
    return topic == other.topic && partition == other.partition && log_dir == other.log_dir &&
           replica_id == other.replica_id;
  }
};

// The record file, kept beside the config file (not in a log directory: one place that every
// start reads, whichever log directories are online, so no copy can be missed or go stale). It is
// TOML, one [[pending]] table per replica (topic, partition, log_dir, directory_id, and replica_id
// when the replica has one; docs/on-disk-format.md), and is only ever replaced whole, atomically,
// so a crash
// at any point leaves the old record or the new one. Not synchronised: LogManager changes it under
// its creation-and-deletion lock, or at startup.
class PendingDeletions {
 public:
  // `file` empty: no record is kept (an in-memory LogManager).
  explicit PendingDeletions(std::filesystem::path file) : file_(std::move(file)) {}

  bool enabled() const { return !file_.empty(); }
  const std::filesystem::path& file() const { return file_; }
  const std::vector<PendingDeletion>& entries() const { return entries_; }

  // Reads the file when it exists. Throws ConfigError naming the file and what is wrong with it;
  // the file is then left as it is.
  void load();
  // Records `added` (a replica recorded already is not repeated): the file is rewritten first, and
  // only then does the record in memory change. Throws FileError from the write.
  void add(const std::vector<PendingDeletion>& added);
  // Drops the entries that are done, rewriting the file (removing it when none remain). Throws
  // FileError from the write.
  void keep_only(const std::vector<PendingDeletion>& remaining);

 private:
  void write(const std::vector<PendingDeletion>& entries) const;

  std::filesystem::path file_;
  std::vector<PendingDeletion> entries_;
};

}  // namespace lds
