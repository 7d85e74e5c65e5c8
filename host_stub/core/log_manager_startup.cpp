// log_manager_startup.cpp: LogManager's log directories: construction, the startup scan of each
// directory and its meta.properties, and a directory going offline or back online.
#include <algorithm>
#include <fstream>
#include <map>

#include "core/durable_file.h"
#include "core/log_layout.h"
#include "core/log_manager.h"
#include "core/logging.h"
#include "core/replica_mover.h"
#include "log_manager_internal.h"

namespace lds {

namespace fs = std::filesystem;

namespace detail {

uint64_t segments_size(const fs::path& partition_dir, uint64_t* active_base) {
  uint64_t size = 0, active = 0;
  for (const auto& seg : fs::directory_iterator(partition_dir)) {
    uint64_t base = 0;
    if (!layout::parse_segment_file(seg.path().filename().string(), &base)) continue;
    size += seg.file_size();
    active = std::max(active, base);
  }
  if (active_base) *active_base = active;
  return size;
}

}  // namespace detail

namespace {

std::shared_ptr<spdlog::logger> log() { return detail::log_manager_log(); }

std::map<std::string, std::string> read_properties(const fs::path& path) {
  std::map<std::string, std::string> out;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    auto eq = line.find('=');
    if (eq == std::string::npos) continue;
    out[line.substr(0, eq)] = line.substr(eq + 1);
  }
  return out;
}

}  // namespace

LogManager::LogManager(Options options, std::shared_ptr<const DiskProbe> probe, StrategySlot& slot)
    : options_(std::move(options)),
      probe_(std::move(probe)),
      slot_(slot),
      mover_(std::make_unique<ReplicaMover>(*this)) {
  for (const auto& path : options_.log_dirs) dirs_.push_back(std::make_unique<Dir>(path));
  const double now = probe_->now_seconds();
  for (auto& d : dirs_) d->rate.start(now);  // append rates start unknown at every start
}

LogManager::~LogManager() { mover_->stop(); }

void LogManager::mark_offline(uint32_t dir_index, const std::string& reason) {
  std::lock_guard lock(mu_);
  Dir& d = *dirs_[dir_index];
  if (!d.online) return;
  d.online = false;
  d.offline_reason = reason;
  log()->error("Log directory {} is now offline: {}", d.path_text, reason);
}

int LogManager::dir_index(const fs::path& dir) const {
  for (size_t i = 0; i < dirs_.size(); ++i) {
    if (dirs_[i]->path == dir) return static_cast<int>(i);
  }
  return -1;
}

void LogManager::startup() {
  std::vector<std::pair<uint32_t, fs::path>> futures;
  for (uint32_t i = 0; i < dirs_.size() && !options_.in_memory; ++i) {
    Dir& d = *dirs_[i];
    try {
      fs::create_directories(d.path);
      const fs::path meta = d.path / layout::kMetaProperties;
      if (fs::exists(meta)) {
        auto props = read_properties(meta);
        auto id = props.find("broker.id");
        if (id != props.end() && id->second != std::to_string(options_.broker_id)) {
          throw ConfigError("Log directory " + d.path_text + " belongs to broker.id " + id->second +
                            " (see " + meta.string() + "), but this broker's broker.id is " +
                            std::to_string(options_.broker_id) + ".");
        }
        d.directory_id = props.count("directory.id") ? props["directory.id"] : "";
      }
      if (d.directory_id.empty()) {
        d.directory_id = layout::random_directory_id();
        write_file_atomically(meta,
                              "#Written by lds-host; Kafka's log directory metadata.\n"
                              "version=1\nbroker.id=" +
                                  std::to_string(options_.broker_id) +
                                  "\ndirectory.id=" + d.directory_id + "\n");
      }
      for (auto& f : load_dir(i)) futures.emplace_back(i, std::move(f));
    } catch (const ConfigError&) {
      throw;
    } catch (const std::exception& e) {
      mark_offline(i, e.what());
    }
  }
  // Every directory is scanned before interrupted moves are resolved, so a move's source is known
  // wherever it lives.
  recover_moves(futures);
  if (!options_.in_memory) mover_->start(std::max(options_.mover_threads, 1));
}

std::vector<fs::path> LogManager::load_dir(uint32_t dir_index) {
  const Dir& d = *dirs_[dir_index];
  std::vector<fs::path> futures;
  for (const auto& entry : fs::directory_iterator(d.path)) {
    const std::string name = entry.path().filename().string();
    layout::Entry e = layout::parse_entry(name);
    if (!entry.is_directory()) continue;
    if (e.kind == layout::EntryKind::kDelete) {
      log()->info("Removing {} left over from a deletion or a move.", entry.path().string());
      fs::remove_all(entry.path());
      continue;
    }
    if (e.kind == layout::EntryKind::kFuture) {
      futures.push_back(entry.path());
      continue;
    }
    if (e.kind != layout::EntryKind::kPartition) continue;
    // A marker inside a partition directory means a move promoted it and stopped just before
    // removing the marker; the partition is complete.
    fs::remove(entry.path() / layout::kMoveCompleteMarker);
    const uint64_t size = detail::segments_size(entry.path(), nullptr);
    TopicPartition tp{e.topic, e.partition};
    {
      std::unique_lock lock(mu_);
      auto existing = partitions_.find(tp);
      if (existing != partitions_.end()) {
        // Two complete copies and no move marker (not something a move leaves behind): keep the
        // larger, the first in log.dirs order on a tie.
        const bool keep_new = size > existing->second->size;
        const fs::path drop =
            keep_new ? dirs_[existing->second->dir]->path / tp.str() : d.path / tp.str();
        log()->warn(
            "Partition {} was found in two log directories; keeping the larger copy and "
            "removing {}.",
            tp.str(), drop.string());
        if (keep_new) remove_partition_locked(tp);
        lock.unlock();
        fs::remove_all(drop);
        if (!keep_new) continue;
      }
    }
    add_partition(dir_index, tp, size, 0);
  }
  return futures;
}

void LogManager::mark_online(uint32_t dir_index) {
  std::lock_guard lock(mu_);
  Dir& d = *dirs_[dir_index];
  if (d.online) return;
  d.online = true;
  d.offline_reason.clear();
  d.rate.start(probe_->now_seconds());  // its rate before it went offline says nothing now
  log()->info("Log directory {} is online.", d.path_text);
}

}  // namespace lds
