// dir_lock.h: one broker per log directory: an exclusive flock(2) on <dir>/.lock, held for as long
// as the DirLock lives, as Kafka's LogManager locks each of its log.dirs, and one on the directory
// itself, so that deleting .lock behind a running broker's back does not let a second one in.
#pragma once

#include <filesystem>

#include "io/durable_file.h"

namespace lds {

class DirLock {
 public:
  DirLock() noexcept = default;

  // Takes an exclusive, non-blocking lock on `dir` itself, then on <dir>/.lock (layout::kLockFile),
  // the file a Kafka broker would lock. With `create`, the file is created (mode 0644) when
  // missing; without, a missing file is a FileError (ENOENT). A refusal creates nothing. The
  // descriptors are close-on-exec, so a child process never inherits the locks.
  // Throws ConfigError with Kafka's sentence ("Failed to acquire lock on file .lock in <dir>. A
  // Kafka instance in another process or thread is using this directory.") when another process,
  // or another DirLock of this one, holds it; FileError ("open" or "flock") for any other failure.
  DirLock(const std::filesystem::path& dir, bool create);

  DirLock(DirLock&&) noexcept = default;
  DirLock& operator=(DirLock&&) noexcept = default;

  bool held() const noexcept { return fd_.valid(); }
  // Releases the locks (closing the descriptors releases them); a no-op when none is held.
  void release() noexcept {
    fd_.reset();
    dir_fd_.reset();
  }

 private:
  Fd dir_fd_;  // the directory: survives the removal of .lock
  Fd fd_;      // <dir>/.lock
};

}  // namespace lds
