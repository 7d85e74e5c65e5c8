// error_buffer.h: the buffer the checker hands a plugin for its error text (error, error_cap),
// placed so that its last byte is followed by an inaccessible guard page.
//
// A plugin that writes past error_cap then faults at its first byte too many, inside the check that
// called it, instead of corrupting the checker's heap and failing much later somewhere unrelated
// (`free(): invalid next size`). In-process that fault ends the process, as it would end a host;
// the isolated run (isolated_run.h) catches it and names the check and the overrun.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace lds::conformance_detail {

class ErrorBuffer {
 public:
  // Maps the buffer and its guard page. Throws std::system_error when it cannot.
  explicit ErrorBuffer(uint32_t cap);
  ~ErrorBuffer();
  ErrorBuffer(const ErrorBuffer&) = delete;
  ErrorBuffer& operator=(const ErrorBuffer&) = delete;

  // cap bytes, the guard page right after them (with cap 0, the guard page itself).
  char* data() { return data_; }
  uint32_t cap() const { return cap_; }

  // What the plugin did wrong with the buffer, or "". With `terminated`, a NUL must exist within
  // the first error_cap bytes (required whenever a status is not LDS_OK). A write past error_cap
  // never gets here: it faults on the guard page.
  std::string fault(bool terminated) const;

  // The text up to the first NUL within error_cap (all error_cap bytes if there is none).
  std::string text() const;

 private:
  void* mapping_ = nullptr;
  size_t mapping_bytes_ = 0;
  char* data_ = nullptr;
  uint32_t cap_ = 0;
  int slot_ = -1;  // its entry in the table guard_page_owner() reads, or -1 if the table was full
};

// Async-signal-safe: whether `address` lies in the guard page of a live ErrorBuffer, and if so
// that buffer's error_cap in *cap. For a SIGSEGV handler.
bool guard_page_owner(const void* address, uint32_t* cap);

}  // namespace lds::conformance_detail
