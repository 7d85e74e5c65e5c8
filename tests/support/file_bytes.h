// file_bytes.h: a whole file's bytes in one read, what the tests compare logs and configs by, and
// a whole file written durably. Reading through std::istreambuf_iterator costs a call per byte,
// which a -O0 sanitizer build turns into seconds for a few MiB of log.
#pragma once

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>

namespace lds::test {

// The file's bytes; "" when it cannot be opened or read (as an empty file reads).
inline std::string file_bytes(const std::filesystem::path& file) {
  const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return "";
  std::string out;
  struct stat st {};
  if (::fstat(fd, &st) == 0 && st.st_size > 0) out.reserve(static_cast<size_t>(st.st_size));
  char buffer[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      out.clear();
      break;
    }
    if (n == 0) break;
    out.append(buffer, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

// Replaces `file` with `bytes` and fsyncs it; false when any of that failed. A write a full
// filesystem accepts into the page cache can be lost at writeback (ext4 then reads zeros), which
// only the fsync reports.
inline bool put_file_bytes(const std::filesystem::path& file, const std::string& bytes) {
  const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return false;
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    done += static_cast<size_t>(n);
  }
  const bool synced = done == bytes.size() && ::fsync(fd) == 0;
  return ::close(fd) == 0 && synced;
}

}  // namespace lds::test
