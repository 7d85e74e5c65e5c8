// own_disk.h: a filesystem of a test's own at a folder (root only): a tmpfs of 2 MiB, or an ext4
// image of 8 MiB, in the test's private mount namespace, unmounted when it goes; filled to the last
// byte, or remounted read-only, on request. why() says why it could not be made (the test skips).
#pragma once

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>

#include "ext4_image.h"
#include "private_mounts.h"

namespace lds::test {

class OwnDisk {
 public:
  OwnDisk(const std::filesystem::path& dir, const std::filesystem::path& image, bool ext4)
      : dir_(dir) {
    if (::geteuid() != 0) {
      why_ = "not running as root, so a filesystem cannot be mounted";
      return;
    }
    if (ext4) {
      why_ = test::mount_ext4_image(image, dir, 8);
    } else if (why_ = test::use_private_mount_namespace(); why_.empty()) {
      std::filesystem::create_directories(dir);
      if (::mount("tmpfs", dir.c_str(), "tmpfs", 0, "size=2m,mode=0755") != 0) {
        why_ = std::string("mount -t tmpfs failed: ") + std::strerror(errno);
      }
    }
    mounted_ = why_.empty();
  }
  ~OwnDisk() {
    if (mounted_ && ::umount2(dir_.c_str(), 0) != 0) ::umount2(dir_.c_str(), MNT_DETACH);
  }
  OwnDisk(const OwnDisk&) = delete;
  OwnDisk& operator=(const OwnDisk&) = delete;
  const std::string& why() const { return why_; }
  // Fills the disk with one file until the kernel refuses a byte more (ext4 of 1 KiB blocks takes
  // what a 4 KiB write no longer fits).
  void fill() const {
    const std::filesystem::path file = dir_ / "filler";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    ASSERT_GE(fd, 0) << std::strerror(errno);
    const std::string block(4096, 'x');
    for (size_t chunk = block.size(); chunk > 0; chunk /= 2) {
      while (::write(fd, block.data(), chunk) == static_cast<ssize_t>(chunk)) {
      }
    }
    ::fsync(fd);
    ::close(fd);
  }
  std::string remount(bool read_only) const {
    const unsigned long flags = MS_REMOUNT | (read_only ? MS_RDONLY : 0);
    if (::mount(nullptr, dir_.c_str(), nullptr, flags, nullptr) != 0) return std::strerror(errno);
    return "";
  }

 private:
  std::filesystem::path dir_;
  bool mounted_ = false;
  std::string why_;
};

}  // namespace lds::test
