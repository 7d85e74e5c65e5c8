// fd_reserve.cpp: the descriptors kept back for segment files, given up and taken back one at a
// time under a lock.
#include "io/fd_reserve.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "util/mutex.h"

namespace lds {
namespace {

struct Reserve {
  Mutex mu;
  std::vector<int> held GUARDED_BY(mu);  // /dev/null descriptors
};

Reserve& reserve() {
  static Reserve* r = new Reserve();  // never destroyed: used until the process ends
  return *r;
}

// Tops the reserve up to kReservedDescriptors where descriptors allow.
void fill_locked(Reserve& r) noexcept REQUIRES(r.mu) {
  while (r.held.size() < kReservedDescriptors) {
    const int fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    r.held.push_back(fd);
  }
}

bool out_of_descriptors(int error_number) {
  return error_number == EMFILE || error_number == ENFILE;
}

}  // namespace

ReservedFd& ReservedFd::operator=(ReservedFd&& other) noexcept {
  if (this != &other) {
    reset();
    fd_ = std::move(other.fd_);
    from_reserve_ = other.from_reserve_;
    other.from_reserve_ = false;
  }
  return *this;
}

void ReservedFd::reset() noexcept {
  if (!fd_.valid()) return;
  const int saved = errno;
  fd_.reset();
  if (from_reserve_) {
    Reserve& r = reserve();
    MutexLock lock(r.mu);
    fill_locked(r);
  }
  from_reserve_ = false;
  errno = saved;
}

ReservedFd open_reserved(const std::filesystem::path& path, int flags, mode_t mode) {
  ReservedFd out;
  out.fd_.reset(::open(path.c_str(), flags | O_CLOEXEC, mode));
  if (out.fd_.valid() || !out_of_descriptors(errno)) return out;
  Reserve& r = reserve();
  MutexLock lock(r.mu);
  int error_number = errno;
  // Another thread may take the number given up before this open does (an accept, say): then the
  // next one of the reserve is given up, and so on.
  while (!r.held.empty()) {
    ::close(r.held.back());
    r.held.pop_back();
    const int fd = ::open(path.c_str(), flags | O_CLOEXEC, mode);
    if (fd >= 0) {
      out.fd_.reset(fd);
      out.from_reserve_ = true;
      return out;
    }
    error_number = errno;
    if (!out_of_descriptors(error_number)) break;
  }
  fill_locked(r);
  errno = error_number;
  return out;
}

size_t fill_descriptor_reserve() noexcept {
  Reserve& r = reserve();
  MutexLock lock(r.mu);
  fill_locked(r);
  return r.held.size();
}

}  // namespace lds
