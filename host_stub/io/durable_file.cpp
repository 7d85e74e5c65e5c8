// durable_file.cpp: Fd, checked file calls, folder and file fsync, and the atomic file write.
#include "io/durable_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace lds {

namespace fs = std::filesystem;

FileError::FileError(int error_number, std::string_view operation, const fs::path& path)
    : std::system_error(error_number, std::generic_category(),
                        std::string(operation) + " " + path.string()),
      operation_(operation),
      path_(path) {}

void check_syscall(long result, std::string_view operation, const fs::path& path) {
  if (result < 0) throw FileError(errno, operation, path);
}

void Fd::reset(int fd) noexcept {
  if (fd_ >= 0) {
    const int saved = errno;
    ::close(fd_);
    errno = saved;
  }
  fd_ = fd;
}

void Fd::close(const fs::path& shown) {
  // Linux releases the descriptor even when close fails, so it is never closed twice.
  check_syscall(::close(release()), "close", shown);
}

Fd open_file(const fs::path& path, int flags, mode_t mode, std::string_view operation) {
  Fd fd(::open(path.c_str(), flags | O_CLOEXEC, mode));
  check_syscall(fd.get(), operation, path);
  return fd;
}

void write_all(const Fd& fd, std::string_view data, const fs::path& shown) {
  while (!data.empty()) {
    const ssize_t n = ::write(fd.get(), data.data(), data.size());
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) errno = EIO;  // no progress and no error: never loop on it
    check_syscall(n <= 0 ? -1 : 0, "write", shown);
    data.remove_prefix(static_cast<size_t>(n));
  }
}

size_t read_at(int fd, char* out, size_t n, uint64_t at, const fs::path& shown) {
  size_t done = 0;
  while (done < n) {
    const ssize_t k = ::pread(fd, out + done, n - done, static_cast<off_t>(at + done));
    if (k < 0 && errno == EINTR) continue;
    check_syscall(k, "read", shown);
    if (k == 0) break;
    done += static_cast<size_t>(k);
  }
  return done;
}

namespace {

void fsync_opened(const fs::path& path, int flags) {
  Fd fd = open_file(path, flags);
  check_syscall(::fsync(fd.get()), "fsync", path);
}

}  // namespace

std::optional<std::string> read_file_if_present(const fs::path& file) {
  const Fd fd(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd && errno == ENOENT) return std::nullopt;
  check_syscall(fd.get(), "open", file);
  std::string content;
  char buffer[64 * 1024];
  for (;;) {
    const ssize_t got = ::read(fd.get(), buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    check_syscall(got, "read", file);
    if (got == 0) return content;
    content.append(buffer, static_cast<size_t>(got));
  }
}

void fsync_file(const fs::path& file) { fsync_opened(file, O_RDONLY); }

void fsync_folder(const fs::path& folder) { fsync_opened(folder, O_RDONLY | O_DIRECTORY); }

void write_file_atomically(const fs::path& file, std::string_view content, mode_t mode) {
  const fs::path folder = file.has_parent_path() ? file.parent_path() : fs::path(".");
  // Appended rather than `"." + name`: GCC 12 at -O3 reports a false -Wrestrict on the latter.
  std::string hidden = ".";
  hidden.append(file.filename().string()).append(".XXXXXX");
  std::string temp = (folder / hidden).string();
  Fd fd(::mkostemp(temp.data(), O_CLOEXEC));
  check_syscall(fd.get(), "create", temp);
  try {
    // mkostemp creates the file 0600: the file it replaces is read by others too.
    check_syscall(::fchmod(fd.get(), mode), "chmod", temp);
    write_all(fd, content, temp);
    check_syscall(::fsync(fd.get()), "fsync", temp);
    fd.close(temp);
    check_syscall(::rename(temp.c_str(), file.c_str()), "rename", temp);
  } catch (const FileError&) {
    const int saved = errno;
    ::unlink(temp.c_str());
    errno = saved;
    throw;
  }
  fsync_folder(folder);
}

bool is_temp_file_of(std::string_view name, std::string_view file) {
  return name.size() > file.size() + 2 && name[0] == '.' && name.substr(1, file.size()) == file &&
         name[file.size() + 1] == '.';
}

void remove_temp_files_of(const fs::path& file) noexcept {
  const std::string name = file.filename().string();
  std::error_code ec;
  for (fs::directory_iterator it(file.parent_path(), ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ignored;
    if (is_temp_file_of(it->path().filename().string(), name)) fs::remove(it->path(), ignored);
  }
}

}  // namespace lds
