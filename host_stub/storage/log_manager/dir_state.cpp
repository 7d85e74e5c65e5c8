// log_manager/dir_state.cpp: a LogManager log directory going offline (its moves stopped, the
// broker told when it was the last one) or back online, and finding one by path.
#include <algorithm>

#include "storage/log_manager.h"
#include "storage/log_manager/internal.h"
#include "storage/replica_mover.h"
#include "storage/storage_logger.h"

namespace lds {

namespace fs = std::filesystem;

void LogManager::set_on_all_dirs_offline(std::function<void(const std::string&)> callback) {
  MutexLock lock(mu_);
  on_all_dirs_offline_ = std::move(callback);
}

int LogManager::dir_index(const fs::path& dir) const {
  for (size_t i = 0; i < dirs_.size(); ++i) {
    if (dirs_[i]->path == dir) return static_cast<int>(i);
  }
  return -1;
}

void LogManager::mark_offline(uint32_t dir_index, const std::string& reason) {
  std::function<void(const std::string&)> on_last;
  std::string all;
  {
    MutexLock lock(mu_);
    Dir& d = *dirs_[dir_index];
    if (!d.online) return;
    d.online = false;
    d.offline_reason = reason;
    log()->error("Log directory {} is now offline: {}", d.path_text, reason);
    // As Kafka does when a log dir fails: the moves from or to it stop.
    mover_->stop_moves_of_dir_locked(dir_index, reason);
    const bool any_online =
        std::any_of(dirs_.begin(), dirs_.end(), [](const auto& x) { return x->online; });
    if (!any_online && started_ && on_all_dirs_offline_) {
      on_last = on_all_dirs_offline_;
      for (const auto& x : dirs_) all += (all.empty() ? "" : ", ") + x->path_text;
    }
  }
  if (on_last) on_last("Shutdown broker because all log dirs in " + all + " have failed");
}

void LogManager::mark_online(uint32_t dir_index) {
  MutexLock lock(mu_);
  Dir& d = *dirs_[dir_index];
  if (d.online) return;
  d.online = true;
  d.offline_reason.clear();
  d.rate.start(probe_->now_seconds());  // its rate before it went offline says nothing now
  log()->info("Log directory {} is online.", d.path_text);
}

}  // namespace lds
