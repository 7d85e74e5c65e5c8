// dir_lock.h: one broker per log directory: an exclusive flock(2) on <dir>/.lock, held for as long
// as the DirLock lives, as Kafka's LogManager locks each of its log.dirs.
#pragma once

#include <filesystem>

#include "core/durable_file.h"

namespace lds {

class DirLock {
 public:
  DirLock() noexcept = default;

  // Takes an exclusive, non-blocking lock on <dir>/.lock (layout::kLockFile). With `create`, the
  // file is created (mode 0644) when missing; without, a missing file is a FileError (ENOENT).
  // The descriptor is close-on-exec, so a child process never inherits the lock.
  // Throws ConfigError with Kafka's sentence ("Failed to acquire lock on file .lock in <dir>. A
  // Kafka instance in another process or thread is using this directory.") when another process,
  // or another DirLock of this one, holds it; FileError ("open" or "flock") for any other failure.
  DirLock(const std::filesystem::path& dir, bool create);

  DirLock(DirLock&&) noexcept = default;
  DirLock& operator=(DirLock&&) noexcept = default;

  bool held() const noexcept { return fd_.valid(); }
  // Releases the lock (closing the file releases it); a no-op when none is held.
  void release() noexcept { fd_.reset(); }

 private:
  Fd fd_;
};

}  // namespace lds
