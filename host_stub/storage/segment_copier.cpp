// segment_copier.cpp: the copy of a moving replica's segments: copy_file_range in large ranges,
// read/write where the kernel cannot, each segment opened once.
#include "storage/segment_copier.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <iterator>
#include <string>

#include "io/log_layout.h"
#include "storage/segment_index.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

// The read/write fallback's buffer, when copy_file_range cannot serve the two files.
constexpr size_t kFallbackBufferBytes = 4 << 20;

// The segments of a partition directory by the position of their first byte in the log: the
// files in base-offset order, each starting where the one before ends. Only the last one grows, so
// the positions hold for every segment but the last until the next listing.
std::map<uint64_t, fs::path> segments_of(const fs::path& dir) {
  std::map<uint64_t, fs::path> by_offset;
  for (const auto& e : fs::directory_iterator(dir)) {
    uint64_t base = 0;
    if (layout::parse_segment_file(e.path().filename().string(), &base)) by_offset[base] = e.path();
  }
  std::map<uint64_t, fs::path> out;
  uint64_t position = 0;
  for (const auto& [base, path] : by_offset) {
    out[position] = path;  // an empty segment is replaced by the one after it: nothing to copy
    position += fs::file_size(path);
  }
  return out;
}

}  // namespace

SegmentCopier::SegmentCopier(fs::path src_dir, fs::path dst_dir)
    : src_dir_(std::move(src_dir)), dst_dir_(std::move(dst_dir)) {}

void SegmentCopier::copy(uint64_t from, uint64_t to) {
  while (from < to) {
    if (!in_ || from < base_ || from >= end_) open_at(from);
    const uint64_t n = copy_range(from - base_, std::min(to, end_) - from);
    if (n > 0) {
      from += n;
      continue;
    }
    // The source segment ends here: the next one must start at `from`.
    const uint64_t ended = base_;
    segments_.clear();
    open_at(from);
    if (base_ == ended) throw FileError(ENOENT, "open", src_dir_);
  }
}

void SegmentCopier::copy_partition_metadata() {
  const fs::path from = src_dir_ / layout::kPartitionMetadata;
  Fd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in) {
    if (errno == ENOENT) return;  // placed without an expected size, or before the file existed
    check_syscall(-1, "open", from);
  }
  std::string text;
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(in.get(), buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    check_syscall(n, "read", from);
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  write_file_atomically(dst_dir_ / layout::kPartitionMetadata, text);
}

void SegmentCopier::copy_indexes() {
  for (const auto& e : fs::directory_iterator(src_dir_)) {
    uint64_t base = 0;
    if (!layout::parse_segment_file(e.path().filename().string(), &base)) continue;
    const auto offset = static_cast<int64_t>(base);
    for (const fs::path& from : {segment_index::offset_index_path(src_dir_, offset),
                                 segment_index::time_index_path(src_dir_, offset)}) {
      const fs::path to = dst_dir_ / from.filename();
      try {
        const std::optional<std::string> bytes = read_file_if_present(from);
        if (!bytes) continue;
        const Fd out = open_file(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644, "create");
        write_all(out, *bytes, to);
        written_.push_back(to);
      } catch (const FileError&) {
        (void)::unlink(to.c_str());
      }
    }
  }
}

void SegmentCopier::sync() {
  finish_segment();
  for (const auto& path : written_) fsync_file(path);
}

void SegmentCopier::open_at(uint64_t offset) {
  finish_segment();
  auto it = segments_.upper_bound(offset);
  // Entering the last segment known: list again, one may have rolled since.
  if (it == segments_.begin() || it == segments_.end()) {
    segments_ = segments_of(src_dir_);
    it = segments_.upper_bound(offset);
  }
  if (it == segments_.begin()) {
    throw FileError(ENOENT, "open", src_dir_);
  }
  auto seg = std::prev(it);
  base_ = seg->first;
  end_ = it == segments_.end() ? UINT64_MAX : it->first;
  in_path_ = seg->second;
  out_path_ = dst_dir_ / seg->second.filename();
  in_ = open_file(in_path_, O_RDONLY | O_CLOEXEC);
  out_ = open_file(out_path_, O_WRONLY | O_CREAT | O_CLOEXEC, 0644, "create");
  if (written_.empty() || written_.back() != out_path_) written_.push_back(out_path_);
}

void SegmentCopier::finish_segment() {
  if (!out_) return;
  (void)::sync_file_range(out_.get(), 0, 0, SYNC_FILE_RANGE_WRITE);
  out_.close(out_path_);
  in_.reset();
}

uint64_t SegmentCopier::copy_range(uint64_t offset, uint64_t len) {
  uint64_t done = 0;
  while (done < len) {
    const auto at = static_cast<off_t>(offset + done);
    const size_t want = static_cast<size_t>(std::min<uint64_t>(len - done, 1ull << 30));
    ssize_t n;
    if (use_copy_file_range_) {
      loff_t in_off = at, out_off = at;
      n = ::copy_file_range(in_.get(), &in_off, out_.get(), &out_off, want, 0);
      if (n < 0 && (errno == EXDEV || errno == ENOSYS || errno == EINVAL || errno == EOPNOTSUPP)) {
        use_copy_file_range_ = false;
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      check_syscall(n, "write", out_path_);
    } else {
      if (buffer_.empty()) buffer_.resize(kFallbackBufferBytes);
      n = ::pread(in_.get(), buffer_.data(), std::min(want, buffer_.size()), at);
      if (n < 0 && errno == EINTR) continue;
      check_syscall(n, "read", in_path_);
      for (ssize_t w = 0; w < n;) {
        const ssize_t k =
            ::pwrite(out_.get(), buffer_.data() + w, static_cast<size_t>(n - w), at + w);
        if (k < 0 && errno == EINTR) continue;
        check_syscall(k, "write", out_path_);
        w += k;
      }
    }
    if (n == 0) break;
    done += static_cast<uint64_t>(n);
  }
  return done;
}

}  // namespace lds
