// error_buffer.cpp: the error buffer with a guard page after it, and the table of live guard pages
// a signal handler may read.
#include "conformance/error_buffer.h"

#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <system_error>

namespace lds::conformance_detail {
namespace {

// More than the checks ever have alive at once (rank_concurrent's threads and the main thread).
constexpr int kSlots = 64;

// Guard page start per slot (0: free) and the cap of its buffer. Lock-free atomics only, so a
// signal handler may read them.
std::atomic<uintptr_t> g_guard[kSlots];
std::atomic<uint32_t> g_cap[kSlots];

size_t page_size() {
  static const size_t kSize = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
  return kSize;
}

}  // namespace

ErrorBuffer::ErrorBuffer(uint32_t cap) : cap_(cap) {
  const size_t page = page_size();
  const size_t data_pages = (static_cast<size_t>(cap) + page - 1) / page;
  mapping_bytes_ = (data_pages + 1) * page;
  void* mapping =
      ::mmap(nullptr, mapping_bytes_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED) {
    throw std::system_error(errno, std::generic_category(), "conformance: mmap of an error buffer");
  }
  mapping_ = mapping;
  char* guard = static_cast<char*>(mapping_) + data_pages * page;
  if (::mprotect(guard, page, PROT_NONE) != 0) {
    const int err = errno;
    ::munmap(mapping_, mapping_bytes_);
    throw std::system_error(err, std::generic_category(),
                            "conformance: mprotect of an error buffer's guard page");
  }
  data_ = guard - cap;
  // What a plugin that reads before writing would see: not zeros that pass for an empty text.
  std::memset(data_, static_cast<char>(0xA5), cap);
  for (int i = 0; i < kSlots; ++i) {
    uintptr_t free_slot = 0;
    if (g_guard[i].load(std::memory_order_relaxed) != 0) continue;
    if (g_guard[i].compare_exchange_strong(free_slot, reinterpret_cast<uintptr_t>(guard),
                                           std::memory_order_acq_rel)) {
      // Before the plugin is handed the buffer, so before any fault a handler could look up.
      g_cap[i].store(cap, std::memory_order_release);
      slot_ = i;
      break;
    }
  }
}

ErrorBuffer::~ErrorBuffer() {
  if (slot_ >= 0) g_guard[slot_].store(0, std::memory_order_release);
  ::munmap(mapping_, mapping_bytes_);
}

std::string ErrorBuffer::fault(bool terminated) const {
  if (terminated && cap_ > 0 && std::memchr(data_, '\0', cap_) == nullptr) {
    return "left the error text without a NUL within error_cap " + std::to_string(cap_);
  }
  return "";
}

std::string ErrorBuffer::text() const {
  const void* nul = std::memchr(data_, '\0', cap_);
  const size_t length = nul ? static_cast<size_t>(static_cast<const char*>(nul) - data_) : cap_;
  return std::string(data_, length);
}

bool guard_page_owner(const void* address, uint32_t* cap) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  const size_t page = page_size();
  for (int i = 0; i < kSlots; ++i) {
    const uintptr_t guard = g_guard[i].load(std::memory_order_acquire);
    if (guard != 0 && at >= guard && at - guard < page) {
      *cap = g_cap[i].load(std::memory_order_relaxed);
      return true;
    }
  }
  return false;
}

}  // namespace lds::conformance_detail
