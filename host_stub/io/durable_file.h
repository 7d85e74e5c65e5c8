// durable_file.h: owned file descriptors, and file writes that a crash leaves whole or not at all.
#pragma once

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace lds {

// A failed call on a file or folder. what() reads "<operation> <path>: <reason>", the one form
// every file error of the core takes, so an offline directory's reason names the file and the call.
class FileError : public std::system_error {
 public:
  FileError(int error_number, std::string_view operation, const std::filesystem::path& path);

  // The call that failed: "create", "open", "chmod", "write", "fsync", "close", "rename", ...
  const std::string& operation() const noexcept { return operation_; }
  // The file or folder it was applied to: for a step of write_file_atomically, the temp file or
  // the folder, so a caller can tell "fsync" of the data from "fsync" of the folder.
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::string operation_;
  std::filesystem::path path_;
};

// Throws FileError(errno, operation, path) when a system call returned a negative result.
void check_syscall(long result, std::string_view operation, const std::filesystem::path& path);

// Owns one file descriptor and closes it when destroyed. Moved, never copied.
class Fd {
 public:
  Fd() noexcept = default;
  explicit Fd(int fd) noexcept : fd_(fd) {}
  ~Fd() { reset(); }
  Fd(Fd&& other) noexcept : fd_(other.release()) {}
  Fd& operator=(Fd&& other) noexcept {
    if (this != &other) reset(other.release());
    return *this;
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;

  int get() const noexcept { return fd_; }
  bool valid() const noexcept { return fd_ >= 0; }
  explicit operator bool() const noexcept { return valid(); }
  // Hands the descriptor to the caller, who closes it.
  [[nodiscard]] int release() noexcept {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }
  // Closes the descriptor held, if any (keeping errno: a close in an error path must not replace
  // the error being reported), and holds `fd` instead.
  void reset(int fd = -1) noexcept;
  // Closes now and reports what close(2) said: after a write, its failure means lost data.
  // Throws FileError("close", shown).
  void close(const std::filesystem::path& shown);

 private:
  int fd_ = -1;
};

// open(2) that throws FileError(operation, path) when the file cannot be opened.
Fd open_file(const std::filesystem::path& path, int flags, mode_t mode = 0,
             std::string_view operation = "open");

// Writes all of `data`, retrying short writes and EINTR. Throws FileError("write", shown).
void write_all(const Fd& fd, std::string_view data, const std::filesystem::path& shown);

// Reads `n` bytes at byte `at` of the open file `fd` into `out`, retrying short reads and EINTR;
// fewer only at the end of the file. Returns how many were read. Throws FileError("read", shown).
size_t read_at(int fd, char* out, size_t n, uint64_t at, const std::filesystem::path& shown);

// The whole content of `file`, or nullopt when it does not exist. Throws FileError("open" or
// "read", file) for any other failure.
std::optional<std::string> read_file_if_present(const std::filesystem::path& file);

// fsync(2) of a file's data, or of a folder's entries (after a create, rename or unlink in it).
// Throw FileError("open" or "fsync", path).
void fsync_file(const std::filesystem::path& file);
void fsync_folder(const std::filesystem::path& folder);

// Replaces `file` with `content` so that a crash or a failure leaves the old file or the new one,
// never a mix: a hidden temp file beside it (".<name>.XXXXXX", unique, so two writers never share
// one), written, fsynced and closed, then renamed over `file`, then an fsync of the folder. A
// failure before the rename removes the temp file and leaves `file` untouched. Throws FileError
// naming the step that failed: "create", "chmod", "write", "fsync" or "close" of the temp file,
// "rename" of it, or "open" or "fsync" of the folder.
void write_file_atomically(const std::filesystem::path& file, std::string_view content,
                           mode_t mode = 0644);

// Whether `name` is a temp file write_file_atomically made for a file named `file`: what a crash
// during that write leaves beside it.
bool is_temp_file_of(std::string_view name, std::string_view file);
// Removes the temp files an interrupted write_file_atomically of `file` left beside it; what
// cannot be removed stays. Throws nothing.
void remove_temp_files_of(const std::filesystem::path& file) noexcept;

}  // namespace lds
