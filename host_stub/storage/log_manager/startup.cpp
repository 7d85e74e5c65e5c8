// log_manager/startup.cpp: LogManager's construction, the startup scan of each log directory, and
// the clean shutdown each records.
#include <algorithm>

#include "io/durable_file.h"
#include "io/fd_reserve.h"
#include "io/heap_trim.h"
#include "io/log_layout.h"
#include "storage/clean_shutdown.h"
#include "storage/log_manager.h"
#include "storage/log_manager/internal.h"
#include "storage/replica_mover.h"
#include "storage/storage_logger.h"

namespace lds {

namespace fs = std::filesystem;

namespace detail {

uint64_t segments_size(const fs::path& partition_dir) {
  uint64_t size = 0;
  for (const auto& seg : fs::directory_iterator(partition_dir)) {
    uint64_t base = 0;
    if (layout::parse_segment_file(seg.path().filename().string(), &base)) size += seg.file_size();
  }
  return size;
}

std::string stray_entry_reason(const std::string& name, layout::EntryKind kind, bool is_dir) {
  if (name == layout::kMetaProperties || name == layout::kLockFile || name == kRecoveryPointFile ||
      name == kCleanShutdownFile) {
    return {};
  }
  for (std::string_view file : {layout::kMetaProperties, kRecoveryPointFile, kCleanShutdownFile}) {
    if (is_temp_file_of(name, file)) {
      return "a temp file left by an interrupted write of " + std::string(file);
    }
  }
  if (kind != layout::EntryKind::kOther && !is_dir) {
    return "it is named like a partition, a move's future copy or a deletion, but is not a "
           "directory";
  }
  std::string base = name;
  for (std::string_view suffix : {"-future", "-delete"}) {
    if (base.size() > suffix.size() && base.ends_with(suffix)) {
      base = base.substr(0, base.size() - suffix.size());
      if (auto dot = base.rfind('.'); dot != std::string::npos) base = base.substr(0, dot);
      break;
    }
  }
  std::string why = layout::partition_name_problem(base);
  if (!why.empty() && why.back() == '.') why.pop_back();
  return std::string(is_dir ? "not a partition directory" : "not a partition directory (a file)") +
         (why.empty() ? "" : ": " + why);
}

}  // namespace detail

namespace {

// The clean shutdown `dir` recorded, if one can be trusted. It is removed only once the start has
// succeeded (forget_clean_shutdowns), so that a refused start leaves it as it was.
std::optional<CleanShutdown> recorded_clean_shutdown(const fs::path& dir) {
  try {
    return read_clean_shutdown(dir);
  } catch (const std::exception& e) {
    log()->warn("Cannot read the clean shutdown recorded in {} ({}); its logs are read through.",
                dir.string(), e.what());
    return std::nullopt;
  }
}

std::vector<std::string> dir_texts(const std::vector<fs::path>& dirs) {
  std::vector<std::string> texts;
  texts.reserve(dirs.size());
  for (const auto& d : dirs) texts.push_back(d.string());
  return texts;
}

}  // namespace

LogManager::LogManager(Options options, std::shared_ptr<const DiskProbe> probe, StrategySlot& slot)
    : options_(std::move(options)),
      probe_(std::move(probe)),
      slot_(slot),
      pending_deletions_(options_.pending_deletions_file),
      history_(dir_texts(options_.log_dirs), options_.kept_placements),
      // The base is private: converted here, where it is accessible.
      mover_(std::make_unique<ReplicaMover>(static_cast<ReplicaHost&>(*this))) {
  for (const auto& path : options_.log_dirs) dirs_.push_back(std::make_unique<Dir>(path));
  const double now = probe_->now_seconds();
  for (auto& d : dirs_) d->rate.start(now);  // append rates start unknown at every start
}

LogManager::~LogManager() { mover_->stop(); }

void LogManager::startup() {
  if (!options_.in_memory) {
    // Descriptors kept back for segment files while there are plenty (fd_reserve.h).
    fill_descriptor_reserve();
    open_dirs();
  } else {
    MutexLock lock(mu_);
    cluster_id_ = options_.cluster_id.empty() ? layout::random_directory_id() : options_.cluster_id;
  }
  complete_pending_deletions();
  if (!options_.in_memory) {
    load_logs();
    forget_clean_shutdowns();
    refuse_unless_a_dir_is_online();
    mover_->start(std::max(options_.mover_threads, 1));
  }
  {
    MutexLock lock(mu_);
    started_ = true;
  }
  // The scan's buffers, the recovery's lists and the directory listings are freed by now.
  return_free_heap();
}

void LogManager::forget_clean_shutdowns() {
  // Before anything is appended: a crash from here on leaves no marker, so its logs are read
  // through. A directory where the marker cannot be removed is failing.
  for (uint32_t i = 0; i < dirs_.size(); ++i) {
    if (!dirs_[i]->online) continue;
    try {
      forget_clean_shutdown(dirs_[i]->path);
    } catch (const FileError& e) {
      mark_offline(i, e.what());
    }
  }
}

void LogManager::shutdown() {
  if (options_.in_memory) return;
  mover_->stop();
  std::vector<std::shared_ptr<Partition>> all;
  std::vector<bool> online(dirs_.size());
  {
    MutexLock lock(mu_);
    all.reserve(partitions_.size());
    for (const auto& p : partitions_) all.push_back(p);
    for (size_t i = 0; i < dirs_.size(); ++i) online[i] = dirs_[i]->online;
  }
  std::vector<std::map<CheckpointKey, int64_t>> points(dirs_.size());
  for (const auto& p : all) {
    MutexLock io(io_of(p->tp));
    if (!p->deleted) points[p->dir][{p->tp.topic, p->tp.partition}] = p->log.log_end_offset();
  }
  for (size_t i = 0; i < dirs_.size(); ++i) {
    if (!online[i]) continue;
    try {
      record_clean_shutdown(dirs_[i]->path, points[i]);
    } catch (const std::exception& e) {
      log()->warn(
          "Cannot record a clean shutdown in {} ({}); its logs are read through at the "
          "next start.",
          dirs_[i]->path_text, e.what());
    }
  }
}

void LogManager::load_logs() {
  std::vector<std::pair<uint32_t, std::string>> found;
  std::vector<std::optional<CleanShutdown>> clean(dirs_.size());
  for (uint32_t i = 0; i < dirs_.size(); ++i) {
    // Offline: it failed its checks, or a pending deletion could not be completed there.
    if (!dirs_[i]->online) continue;
    try {
      clean[i] = recorded_clean_shutdown(dirs_[i]->path);
      for (auto& name : load_dir(i)) found.emplace_back(i, std::move(name));
    } catch (const ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      mark_offline(i, e.what());
    }
  }
  // Every directory is scanned before interrupted moves are resolved, so a move's source is known
  // wherever it lives.
  recover_moves(found, clean);
}

std::vector<std::string> LogManager::load_dir(uint32_t dir_index) {
  const Dir& d = *dirs_[dir_index];
  std::vector<std::string> found;
  for (const auto& entry : fs::directory_iterator(d.path)) {
    std::string name = entry.path().filename().string();
    const layout::Entry e = layout::parse_entry(name);
    const bool is_dir = entry.is_directory();
    if (e.kind != layout::EntryKind::kOther && is_dir) {
      found.push_back(std::move(name));  // resolved by recover_moves once every dir is scanned
      continue;
    }
    if (std::string why = detail::stray_entry_reason(name, e.kind, is_dir); !why.empty()) {
      log()->warn("Ignoring {} in log directory {}: {}.", entry.path().string(), d.path_text, why);
    }
  }
  return found;
}

}  // namespace lds
