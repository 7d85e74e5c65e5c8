// disk_probe.h: reads a log directory's filesystem size, and the clock its append rates are
// measured by; the seam tests and the simulator replace to fake disks and time.
#pragma once

#include <time.h>

#include <chrono>
#include <cstdint>
#include <filesystem>

namespace lds {

struct DiskSpace {
  bool known = false;         // false when the size could not be read (LDS_DIR_SPACE_UNKNOWN)
  uint64_t total_bytes = 0;   // f_blocks * f_frsize
  uint64_t usable_bytes = 0;  // f_bavail * f_frsize: what the broker may still write
  // The filesystem it is on (st_dev of the directory); 0 when unknown. Directories with one
  // non-zero id share their space: it is counted once.
  uint64_t filesystem = 0;
};

class DiskProbe {
 public:
  virtual ~DiskProbe() = default;
  // Must be safe to call from many threads at once.
  virtual DiskSpace read(const std::filesystem::path& dir) const = 0;
  // Seconds of a monotonic clock, for the directories' append rates (util/rate_meter.h). Must be
  // safe to call from many threads at once. The real one is the kernel's coarse monotonic clock:
  // a few milliseconds of resolution against rate windows of seconds, read without a timer read,
  // and a tick that many placements share (MemoRateMeter::rate answers again from its last answer).
  virtual double now_seconds() const {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
  }
};

// The real probe: statvfs(2).
class StatvfsDiskProbe final : public DiskProbe {
 public:
  DiskSpace read(const std::filesystem::path& dir) const override;
};

}  // namespace lds
