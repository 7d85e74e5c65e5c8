// frozen_disk.h: a test's own mounted filesystem frozen (FIFREEZE), as a stuck disk is: every
// write to it waits in the kernel, unkillable, until it thaws. A watchdog process thaws it when
// the test does, when the test's process ends, or after `limit`, whichever comes first, so a
// failing or killed test leaves no frozen filesystem, and no writer stuck on it, behind.
#pragma once

#include <fcntl.h>
#include <linux/fs.h>
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <string>

namespace lds::test {

class FrozenDisk {
 public:
  // Freezes the filesystem mounted on `dir`. why() says why not (the test skips).
  FrozenDisk(const std::filesystem::path& dir, std::chrono::milliseconds limit) {
    fd_ = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd_ < 0) {
      why_ = "cannot open " + dir.string() + ": " + std::strerror(errno);
      return;
    }
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
      why_ = std::string("pipe2 failed: ") + std::strerror(errno);
      return;
    }
    watchdog_ = ::fork();
    if (watchdog_ == 0) {
      // Only async-signal-safe calls from here: the test's other threads are not in this copy.
      ::close(pipe_fds[1]);
      pollfd p{pipe_fds[0], POLLIN, 0};
      while (::poll(&p, 1, static_cast<int>(limit.count())) < 0 && errno == EINTR) {
      }
      ::ioctl(fd_, FITHAW, 0);  // EINVAL when the test has thawed it already
      ::_exit(0);
    }
    ::close(pipe_fds[0]);
    alive_ = pipe_fds[1];
    if (watchdog_ < 0) {
      why_ = std::string("fork failed: ") + std::strerror(errno);
    } else if (::ioctl(fd_, FIFREEZE, 0) != 0) {
      why_ = "FIFREEZE on " + dir.string() + " failed: " + std::strerror(errno);
    }
  }
  ~FrozenDisk() { thaw(); }
  FrozenDisk(const FrozenDisk&) = delete;
  FrozenDisk& operator=(const FrozenDisk&) = delete;

  const std::string& why() const { return why_; }

  // Thaws it (once; later calls do nothing) and waits for the watchdog.
  void thaw() {
    if (fd_ >= 0) ::ioctl(fd_, FITHAW, 0);
    if (alive_ >= 0) ::close(alive_);  // the watchdog wakes and exits
    alive_ = -1;
    if (watchdog_ > 0) {
      while (::waitpid(watchdog_, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    watchdog_ = -1;
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
  int alive_ = -1;  // the watchdog's pipe: closed by thaw() or by the end of this process
  pid_t watchdog_ = -1;
  std::string why_;
};

}  // namespace lds::test
