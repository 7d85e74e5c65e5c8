// file_slice.cpp: slices' open files, counted, and their bytes read when they cannot be sent.
#include "io/file_slice.h"

#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <utility>
#include <vector>

#include "io/durable_file.h"

namespace lds {
namespace {

std::atomic<size_t> open_files{0};

}  // namespace

SliceFile::SliceFile(ReservedFd fd, std::filesystem::path path)
    : fd_(std::move(fd)), path_(std::move(path)) {
  open_files.fetch_add(1, std::memory_order_relaxed);
}

SliceFile::~SliceFile() { open_files.fetch_sub(1, std::memory_order_relaxed); }

size_t open_slice_files() noexcept { return open_files.load(std::memory_order_relaxed); }

size_t slice_budget() noexcept {
  static const size_t kBudget = [] {
    rlimit limit{};
    if (::getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur == RLIM_INFINITY)
      return size_t{1024};
    return std::max<size_t>(static_cast<size_t>(limit.rlim_cur) / 8, 16);
  }();
  return kBudget;
}

bool in_page_cache(const FileSlice& slice) noexcept {
  if (slice.length == 0) return true;
  static const auto kPage = static_cast<uint64_t>(::sysconf(_SC_PAGESIZE));
  const uint64_t from = slice.position / kPage * kPage;
  const auto span = static_cast<size_t>(slice.position + slice.length - from);
  // A mapping only to ask the kernel which of its pages are resident: nothing is read through it.
  void* map =
      ::mmap(nullptr, span, PROT_READ, MAP_SHARED, slice.file->get(), static_cast<off_t>(from));
  if (map == MAP_FAILED) return false;
  std::vector<unsigned char> resident((span + kPage - 1) / kPage);
  const bool known = ::mincore(map, span, resident.data()) == 0;
  ::munmap(map, span);
  return known && std::all_of(resident.begin(), resident.end(),
                              [](unsigned char page) { return (page & 1) != 0; });
}

std::string read_slice(const FileSlice& slice) {
  std::string out(slice.length, '\0');
  if (slice.length == 0) return out;
  if (read_at(slice.file->get(), out.data(), out.size(), slice.position, slice.file->path()) !=
      out.size()) {
    throw FileError(EIO, "read", slice.file->path());
  }
  return out;
}

std::string joined(std::string_view text, const std::vector<FileSplice>& splices) {
  std::string out;
  size_t from = 0;
  for (const FileSplice& s : splices) {
    out.append(text.substr(from, s.at - from));
    out += read_slice(s.slice);
    from = s.at;
  }
  out.append(text.substr(from));
  return out;
}

}  // namespace lds
