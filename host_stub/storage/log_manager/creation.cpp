// log_manager/creation.cpp: LogManager's creation of a partition where its placement decision
// says: each ranked directory tried in order, the partition's directory, first segment and
// lds.partition written there, and the new replica hosted and counted.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/durable_file.h"
#include "io/io_errors.h"
#include "io/log_layout.h"
#include "storage/log_manager.h"
#include "storage/log_manager/internal.h"
#include "storage/storage_logger.h"

namespace lds {

namespace fs = std::filesystem;

std::string LogManager::create_on_disk(uint32_t dir_index, const TopicPartition& tp,
                                       uint64_t expected_bytes, const std::string& replica_id) {
  if (options_.in_memory) return "";
  const std::string& where = dirs_[dir_index]->path_text;
  // No meta.properties: the directory was unmounted (or replaced) underneath the broker, and a
  // partition created now would land on whatever filesystem is left at that path.
  const fs::path meta = dirs_[dir_index]->path / layout::kMetaProperties;
  check_syscall(::access(meta.c_str(), F_OK), "access", meta);
  const fs::path dir = dirs_[dir_index]->path / tp.str();
  // A full filesystem (ENOSPC: ext4 needs a block for a new directory, tmpfs an inode; EDQUOT) is
  // not a failed one: this creation is refused here, the directory stays online for the
  // partitions it holds, and the caller tries the next directory.
  auto out_of_space_refusal = [&](int err) {
    return "Cannot create " + tp.str() + " in " + where + ": " + out_of_space_text(err) +
           "; the log directory stays online.";
  };
  if (::mkdir(dir.c_str(), 0755) != 0) {
    const int err = errno;
    // Something this broker does not host sits at the partition's name (the startup scan logged
    // it as stray): the disk is fine, this creation is not.
    if (err == EEXIST) {
      throw StorageError(StorageErrc::kDirUnavailable,
                         "Cannot create " + tp.str() + " in " + where + ": " + dir.string() +
                             " already exists and is not a partition this broker hosts; move it "
                             "out of the log directory. The log directory stays online.");
    }
    // A 249-character topic with a partition number of 6 digits or more, or a log dir path near
    // PATH_MAX: the name is at fault, not the disk.
    if (is_name_too_long(err)) {
      throw StorageError(StorageErrc::kDirUnavailable,
                         name_too_long_text("Cannot create " + tp.str(), where, dir.string(), err));
    }
    if (is_out_of_space(err)) return out_of_space_refusal(err);
    throw FileError(err, "mkdir", dir);
  }
  const fs::path segment = dir / layout::segment_file(0);
  try {
    open_file(segment, O_WRONLY | O_CREAT | O_EXCL, 0644, "create");
    // What the partition was placed with, so its reservation survives a restart, and which
    // replica it is, so a pending deletion never takes a partition re-created under its name.
    write_file_atomically(dir / layout::kPartitionMetadata,
                          layout::partition_metadata_text(expected_bytes, replica_id));
    fsync_folder(dirs_[dir_index]->path);
  } catch (const FileError& e) {
    std::error_code ec;
    fs::remove_all(dir, ec);  // no half-created partition
    if (is_name_too_long(e.code().value())) {
      throw StorageError(StorageErrc::kDirUnavailable,
                         name_too_long_text("Cannot create " + tp.str(), where, e.path().string(),
                                            e.code().value()));
    }
    if (is_out_of_space(e.code().value())) return out_of_space_refusal(e.code().value());
    throw;
  }
  return "";
}

PlacementResult LogManager::create_partition(const std::string& topic, int32_t partition,
                                             std::optional<uint64_t> expected_bytes,
                                             std::optional<uint64_t> expected_bytes_in_per_sec) {
  if (std::string why = layout::topic_name_problem(topic); !why.empty()) {
    throw StorageError(StorageErrc::kInvalidTopicName, why);
  }
  if (partition < 0) {
    throw StorageError(StorageErrc::kInvalidPartition,
                       "Partition " + std::to_string(partition) + " of topic " + topic +
                           " is negative; partition numbers start at 0.");
  }
  const TopicPartition tp{topic, partition};
  MutexLock create_lock(create_mu_);
  if (std::string why = topic_collision_problem(topic); !why.empty()) {
    throw StorageError(StorageErrc::kInvalidTopicName, why);
  }
  {
    // Kafka's getOrCreateLog: an existing replica is returned, not created again.
    MutexLock lock(mu_);
    if (const Partition* hosted = partitions_.find(tp)) {
      return PlacementResult{dirs_[hosted->dir]->path_text, false, "", 0, false};
    }
  }
  // Every placement is explained when it is kept for past_placement(), and at debug level logs
  // what it was decided on, as `create --dry-run` shows it.
  const bool explain = history_.capacity() > 0 || log()->should_log(spdlog::level::debug);
  Ranking r = timed_decide(topic, partition, expected_bytes, expected_bytes_in_per_sec, explain);
  if (r.error != StorageErrc::kNone) throw StorageError(r.error, r.message);
  std::optional<PlacementExplanation> explanation;
  if (explain) {
    explanation.emplace();
    explanation->topic = topic;
    explanation->partition = partition;
    explain_ranking_of(r, *explanation);
    if (log()->should_log(spdlog::level::debug)) {
      log()->debug("Placing {}", placement_line(*explanation));
    }
  }
  return create_in_ranked_dirs_locked(tp, r.decision, explanation);
}

PlacementResult LogManager::create_in_ranked_dirs_locked(
    const TopicPartition& tp, const PlacementDecision& decision,
    std::optional<PlacementExplanation>& explanation) {
  const uint64_t expected = decision.expected_bytes;
  const auto& attempt = decision.dirs;

  std::string tried;
  std::string full;  // the refusals of the dirs whose filesystem is full, one sentence each
  size_t full_count = 0;
  const std::string replica_id = layout::random_directory_id();
  for (uint32_t dir : attempt) {
    tried += (tried.empty() ? "" : ", ") + dirs_[dir]->path_text;
    std::string refusal;
    try {
      refusal = create_on_disk(dir, tp, expected, replica_id);
    } catch (const std::system_error& e) {
      if (is_resource_shortage(e.code().value())) {
        throw StorageError(StorageErrc::kDirUnavailable,
                           "Cannot create " + tp.str() + " in " + dirs_[dir]->path_text + ": " +
                               resource_shortage_text(e.code().value()) +
                               "; the log directory stays online.");
      }
      mark_offline(dir, e.what());
      continue;
    }
    if (!refusal.empty()) {
      // As for a dir that went offline, the next one in the ranking is tried; this one stays
      // online and keeps serving its partitions.
      log()->warn("{}", refusal);
      full += (full.empty() ? "" : " ") + refusal;
      ++full_count;
      continue;
    }
    return host_new_partition_locked(dir, tp, decision, replica_id, explanation);
  }
  // Every dir tried was full: each says so. A full dir is not offline, so "No log directories
  // available" would send the operator looking for a failed disk.
  if (full_count > 0 && full_count == attempt.size()) {
    throw StorageError(StorageErrc::kDirUnavailable, full);
  }
  throw StorageError(StorageErrc::kDirUnavailable, "No log directories available. Tried " + tried +
                                                       (full.empty() ? "" : ". " + full));
}

PlacementResult LogManager::host_new_partition_locked(
    uint32_t dir, const TopicPartition& tp, const PlacementDecision& decision,
    const std::string& replica_id, std::optional<PlacementExplanation>& explanation) {
  const uint64_t expected = decision.expected_bytes;
  add_partition(dir, tp, options_.in_memory ? PartitionLog() : PartitionLog::empty(), expected,
                replica_id);
  {
    MutexLock lock(mu_);
    preferred_.erase(tp);
  }
  tell_placed(decision, tp, dir);
  dirs_[dir]->placements.fetch_add(1, std::memory_order_relaxed);
  if (decision.preferred) {
    preferred_placements_.fetch_add(1, std::memory_order_relaxed);
  } else if (decision.placer) {
    decision.placer->count_placement();
  }
  PlacementResult result;
  // The explanation, when kept, already holds the name: not made twice.
  result.strategy = explanation ? explanation->strategy : decision.strategy();
  result.generation = decision.generation;
  result.fell_back = decision.fell_back;
  result.log_dir = dirs_[dir]->path_text;
  result.created = true;
  if (explanation) {
    history_.keep({std::move(*explanation), result.log_dir, std::chrono::system_clock::now()});
  }
  log()->info("Created {} in {} (strategy {}, generation {}, expected {} bytes).", tp.str(),
              result.log_dir, result.strategy, result.generation, expected);
  return result;
}

std::string LogManager::topic_collision_problem(const std::string& topic) const {
  if (topic.find_first_of("._") == std::string::npos) return "";
  MutexLock lock(mu_);
  if (topics_.count(topic) != 0) return "";
  const std::string* colliding = nullptr;
  for (const auto& [hosted, stats] : topics_) {
    if (layout::topic_names_collide(hosted, topic) && (colliding == nullptr || hosted < *colliding))
      colliding = &hosted;
  }
  // ReplicationControlManager.validateNewTopicNames' sentence.
  return colliding == nullptr ? ""
                              : "Topic '" + topic + "' collides with existing topic: " + *colliding;
}

}  // namespace lds
