// file_slice.h: bytes of a reply that are still in a file, sent from the file to the socket by
// sendfile(2) so that they never pass through user space: a Fetch's record batches, as Kafka's
// FileRecords sends them.
//
// A slice holds its file open, so the bytes stay readable after a move or a deletion renamed or
// unlinked the file; a segment is append-only, so they stay the bytes that were read. Held
// descriptors are counted: a reply that would hold more than slice_budget() of them at once reads
// its bytes into memory instead (a client that never reads must not pin the process's
// descriptors).
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/fd_reserve.h"

namespace lds {

// An open file kept open by the slices that share it; counted while it lives.
class SliceFile {
 public:
  SliceFile(ReservedFd fd, std::filesystem::path path);
  ~SliceFile();
  SliceFile(const SliceFile&) = delete;
  SliceFile& operator=(const SliceFile&) = delete;

  int get() const noexcept { return fd_.get(); }
  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  ReservedFd fd_;
  std::filesystem::path path_;
};

// `length` bytes at `position` of `file`.
struct FileSlice {
  std::shared_ptr<const SliceFile> file;
  uint64_t position = 0;
  uint64_t length = 0;
};

// A slice's bytes go in before byte `at` of the text it belongs to.
struct FileSplice {
  size_t at = 0;
  FileSlice slice;
};

// SliceFiles open now, in the whole process.
size_t open_slice_files() noexcept;

// How many SliceFiles may be open at once: an eighth of the open-file limit, at least 16.
size_t slice_budget() noexcept;

// Whether every page of the slice is in the page cache now, so that sending it waits on no disk.
// False when it cannot tell. Pages may leave the cache before the slice is sent; that only costs
// the wait this avoids.
bool in_page_cache(const FileSlice& slice) noexcept;

// The slice's bytes, read. Throws FileError("read", path); a file that ends before the slice's
// end is a FileError with EIO.
std::string read_slice(const FileSlice& slice);

// `text` with every splice's bytes put in (the splices in the order of `at`), for a sender that
// cannot send from files. Throws FileError as read_slice does.
std::string joined(std::string_view text, const std::vector<FileSplice>& splices);

}  // namespace lds
