// private_mounts.h: the mounts a test makes (tmpfs disks, ext4 images) live in a mount namespace of
// the test's own, so a test killed before its clean-up (a ctest timeout, kill -9) leaves none on
// the machine: the kernel takes them down with the namespace's last process. The servers a test
// starts inherit the namespace, so they see the mounts.
#pragma once

#include <sched.h>
#include <sys/mount.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace lds::test {

// Moves this thread, and so every process it starts from now on, into a new mount namespace whose
// mounts do not propagate back; once per process. "" on success, or why not.
inline std::string use_private_mount_namespace() {
  static const std::string why = [] {
    if (::unshare(CLONE_NEWNS) != 0) {
      return std::string("unshare(CLONE_NEWNS) failed: ") + std::strerror(errno);
    }
    if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) {
      return std::string("making the mounts of / private failed: ") + std::strerror(errno);
    }
    return std::string();
  }();
  return why;
}

}  // namespace lds::test
