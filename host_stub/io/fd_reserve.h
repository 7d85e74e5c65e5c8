// fd_reserve.h: descriptors kept back for the log's own files.
//
// Clients may hold every descriptor the process can have, one connection each up to
// RLIMIT_NOFILE (max.connections defaults to Kafka's 2^31 - 1). An append or a read of a segment
// must not fail for that. So a few descriptors (/dev/null) are opened while there are plenty;
// when opening a segment fails with EMFILE or ENFILE, one of them is given up just for it, and
// taken back once the segment's descriptor is closed. The Kafka and admin listeners keep a spare
// descriptor for accept() in the same way.
//
// Kafka itself keeps every segment open instead. This broker does not keep the active segments
// open: a file open for writing pins its filesystem read-write, and `mount -o remount,ro` of a
// log dir (the torture and disk-fault suites' read-only disk, an operator freezing a disk) would
// then fail with EBUSY for as long as the broker runs. A Fetch's reply holds its segment open only
// until it is sent (io/file_slice.h), read-only, and at most slice_budget() files at once.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <filesystem>

#include "io/durable_file.h"

namespace lds {

// An open descriptor that, closed, goes back to the reserve if it was taken from it.
class ReservedFd {
 public:
  ReservedFd() noexcept = default;
  ~ReservedFd() { reset(); }
  ReservedFd(ReservedFd&& other) noexcept
      : fd_(std::move(other.fd_)), from_reserve_(other.from_reserve_) {
    other.from_reserve_ = false;
  }
  ReservedFd& operator=(ReservedFd&& other) noexcept;
  ReservedFd(const ReservedFd&) = delete;
  ReservedFd& operator=(const ReservedFd&) = delete;

  const Fd& fd() const noexcept { return fd_; }
  int get() const noexcept { return fd_.get(); }
  explicit operator bool() const noexcept { return fd_.valid(); }
  // Whether it took one of the reserve's descriptors.
  bool from_reserve() const noexcept { return from_reserve_; }
  // Closes it (keeping errno) and refills the reserve.
  void reset() noexcept;

 private:
  friend ReservedFd open_reserved(const std::filesystem::path& path, int flags, mode_t mode);
  Fd fd_;
  bool from_reserve_ = false;
};

// The descriptors the reserve keeps.
inline constexpr size_t kReservedDescriptors = 16;

// open(2) of `path` (O_CLOEXEC added), falling back on the reserve when the process or the system
// is out of descriptors. Invalid, with errno set, when it cannot open it.
ReservedFd open_reserved(const std::filesystem::path& path, int flags, mode_t mode = 0);

// Opens the reserve's descriptors that are missing, as far as descriptors allow; the broker calls
// it at startup. Returns how many it holds.
size_t fill_descriptor_reserve() noexcept;

}  // namespace lds
