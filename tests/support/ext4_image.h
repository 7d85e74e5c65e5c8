// ext4_image.h: a small ext4 filesystem for the tests that need one run out of blocks or inodes: a
// sparse image file made with mkfs.ext4, attached to a loop device and mounted in the test's own
// mount namespace (private_mounts.h). The loop device is detached as soon as it is mounted, so
// the kernel frees it with the mount, however the test ends.
#pragma once

#include <fcntl.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "file_bytes.h"
#include "private_mounts.h"

namespace lds::test {

// `name` in /usr/sbin or /sbin, which a PATH may leave out; "" when neither holds it.
inline std::string sbin_tool(const std::string& name) {
  for (const char* dir : {"/usr/sbin/", "/sbin/"}) {
    const std::string tool = dir + name;
    if (::access(tool.c_str(), X_OK) == 0) return tool;
  }
  return "";
}

// Runs argv[0] (a path) with its output and errors written to `out`; its exit code, or -1.
inline int run_tool(const std::vector<std::string>& argv, const std::filesystem::path& out) {
  const pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    const int fd = ::open(out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) ::_exit(126);
    ::dup2(fd, 1);
    ::dup2(fd, 2);
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// Makes `image`, an ext4 filesystem of `mib` MiB (with `inodes` inodes when > 0), and mounts it
// on `dir` (created if needed); the tools' output goes to `image` + ".out". "" on success, else
// why not (not root, mkfs.ext4 or losetup missing, no free loop device). Unmounting is the
// caller's; the image goes with the caller's temp folder.
inline std::string mount_ext4_image(const std::filesystem::path& image,
                                    const std::filesystem::path& dir, uint64_t mib,
                                    uint32_t inodes = 0) {
  namespace fs = std::filesystem;
  if (::geteuid() != 0) return "not running as root, so an ext4 image cannot be mounted";
  const std::string mkfs = sbin_tool("mkfs.ext4");
  const std::string losetup = sbin_tool("losetup");
  if (mkfs.empty() || losetup.empty()) return "mkfs.ext4 or losetup is not in /usr/sbin or /sbin";
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return "cannot create " + dir.string() + ": " + ec.message();
  // Sparse: only what the filesystem writes reaches the real disk, at most `mib` MiB.
  std::ofstream(image, std::ios::binary).close();
  fs::resize_file(image, mib << 20, ec);
  if (ec) return "cannot size " + image.string() + ": " + ec.message();
  const fs::path out = image.string() + ".out";
  std::vector<std::string> make{mkfs, "-q", "-F"};
  if (inodes > 0) make.insert(make.end(), {"-N", std::to_string(inodes)});
  make.push_back(image.string());
  if (run_tool(make, out) != 0)
    return "mkfs.ext4 " + image.string() + " failed: " + file_bytes(out);
  if (run_tool({losetup, "--find", "--show", image.string()}, out) != 0) {
    return "losetup --find --show " + image.string() + " failed: " + file_bytes(out);
  }
  std::string device = file_bytes(out);
  device = device.substr(0, device.find('\n'));
  if (std::string why = use_private_mount_namespace(); !why.empty()) {
    run_tool({losetup, "--detach", device}, out);
    return why;
  }
  const bool mounted = ::mount(device.c_str(), dir.c_str(), "ext4", 0, nullptr) == 0;
  const int mount_errno = errno;
  // Detached while mounted, the loop device goes with the mount; not mounted, it goes now.
  run_tool({losetup, "--detach", device}, out);
  if (!mounted) {
    return "mount -t ext4 " + device + " on " + dir.string() +
           " failed: " + std::strerror(mount_errno);
  }
  return "";
}

}  // namespace lds::test
