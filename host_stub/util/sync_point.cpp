// sync_point.cpp: the table behind LDS_SYNC_POINT, and the kill and pause actions that
// LDS_CRASH_POINT and LDS_PAUSE_POINT install in it. Empty unless LDS_SYNC_POINTS is defined, so a
// build without the tests holds neither the table nor any reading of those variables.
#include "util/sync_point.h"

#ifdef LDS_SYNC_POINTS

#include <signal.h>
#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <string_view>
#include <thread>
#include <utility>

#include "util/mutex.h"

namespace lds {
namespace {

using SharedSyncCallback = std::shared_ptr<const SyncPoints::Callback>;

class SyncPointTable {
 public:
  SyncPointTable() { install_environment_actions(); }

  void set(const std::string& name, SyncPoints::Callback callback) EXCLUDES(mu_) {
    auto shared = std::make_shared<const SyncPoints::Callback>(std::move(callback));
    MutexLock lock(mu_);
    callbacks_[name] = std::move(shared);
  }

  void clear(const std::string& name) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    callbacks_.erase(name);
  }

  void clear_all() EXCLUDES(mu_) {
    MutexLock lock(mu_);
    callbacks_.clear();
  }

  // A shared copy, so the caller can run it after letting the lock go, even if it is cleared
  // meanwhile.
  SharedSyncCallback find(const char* name) EXCLUDES(mu_) {
    MutexLock lock(mu_);
    const auto it = callbacks_.find(std::string_view(name));
    return it == callbacks_.end() ? nullptr : it->second;
  }

 private:
  // LDS_PAUSE_POINT=<name>:<milliseconds> sleeps at <name>; LDS_CRASH_POINT=<name> kills the
  // process there with SIGKILL, so nothing is unwound, closed or flushed by the process itself:
  // what the next start finds is what a crash at that step leaves. A crash named at the same point
  // as a pause wins (it is installed last).
  void install_environment_actions() {
    const char* pause = std::getenv("LDS_PAUSE_POINT");
    const char* colon = pause != nullptr ? std::strchr(pause, ':') : nullptr;
    long millis = 0;
    if (colon != nullptr) std::from_chars(colon + 1, colon + std::strlen(colon), millis);
    if (millis > 0) {
      set(std::string(pause, colon),
          [millis] { std::this_thread::sleep_for(std::chrono::milliseconds(millis)); });
    }
    const char* crash = std::getenv("LDS_CRASH_POINT");
    if (crash != nullptr && *crash != '\0') set(crash, [] { ::kill(::getpid(), SIGKILL); });
  }

  Mutex mu_;
  std::map<std::string, SharedSyncCallback, std::less<>> callbacks_ GUARDED_BY(mu_);
};

// Never destroyed: a mover thread may still reach a point while the process exits, after static
// destructors have run.
SyncPointTable& sync_point_table() {
  static auto* table = new SyncPointTable();
  return *table;
}

}  // namespace

void SyncPoints::reach(const char* name) {
  const SharedSyncCallback callback = sync_point_table().find(name);
  if (callback) (*callback)();
}

void SyncPoints::set_callback(const std::string& name, Callback callback) {
  if (callback) {
    sync_point_table().set(name, std::move(callback));
  } else {
    sync_point_table().clear(name);  // an empty std::function would throw when the point is reached
  }
}

void SyncPoints::clear_callback(const std::string& name) { sync_point_table().clear(name); }

void SyncPoints::clear_all_callbacks() { sync_point_table().clear_all(); }

}  // namespace lds

#endif
