// disk_probe.cpp: the statvfs-backed DiskProbe.
#include "io/disk_probe.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

namespace lds {

DiskSpace StatvfsDiskProbe::read(const std::filesystem::path& dir) const {
  struct statvfs st {};
  if (::statvfs(dir.c_str(), &st) != 0 || st.f_frsize == 0) return {};
  struct stat dir_stat {};
  const uint64_t filesystem =
      ::stat(dir.c_str(), &dir_stat) == 0 ? static_cast<uint64_t>(dir_stat.st_dev) : 0;
  return DiskSpace{true, static_cast<uint64_t>(st.f_blocks) * st.f_frsize,
                   static_cast<uint64_t>(st.f_bavail) * st.f_frsize, filesystem};
}

}  // namespace lds
