// dir_lock.cpp: the exclusive lock on a log directory's .lock file.
#include "io/dir_lock.h"

#include <fcntl.h>
#include <sys/file.h>

#include <cerrno>

#include "io/log_layout.h"
#include "util/errors.h"

namespace lds {

namespace {

// An exclusive, non-blocking flock on `fd`; Kafka's sentence when another holder has it.
void lock_exclusively(const Fd& fd, const std::filesystem::path& dir,
                      const std::filesystem::path& shown) {
  int rc = 0;
  do {
    rc = ::flock(fd.get(), LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0 && errno == EWOULDBLOCK) {
    throw ConfigError("Failed to acquire lock on file " + std::string(layout::kLockFile) + " in " +
                      dir.string() +
                      ". A Kafka instance in another process or thread is using this directory.");
  }
  check_syscall(rc, "flock", shown);
}

}  // namespace

DirLock::DirLock(const std::filesystem::path& dir, bool create) {
  // Read-only descriptors: flock needs no write access, and a file open for writing would keep
  // the filesystem from being remounted read-only (EBUSY) by an operator or a test.
  Fd dir_fd = open_file(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  lock_exclusively(dir_fd, dir, dir);
  const std::filesystem::path file = dir / layout::kLockFile;
  Fd fd = open_file(file, O_RDONLY | O_CLOEXEC | (create ? O_CREAT : 0), 0644);
  lock_exclusively(fd, dir, file);
  dir_fd_ = std::move(dir_fd);
  fd_ = std::move(fd);
}

}  // namespace lds
