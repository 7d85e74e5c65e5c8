// segment_index.cpp: Kafka's offset and time indexes of a segment: their rule, their files, and
// the chunked walk over batch headers.
#include "storage/segment_index.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "io/durable_file.h"
#include "io/log_layout.h"
#include "model/wire.h"

namespace lds {

namespace fs = std::filesystem;

namespace {

void put_be(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) out->push_back(static_cast<char>((v >> (8 * i)) & 0xFF));
}

uint64_t get_be(const char* in, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | static_cast<unsigned char>(in[i]);
  return v;
}

// The segment file name with another suffix: "00000000000000000000.index".
fs::path sibling(const fs::path& dir, int64_t base_offset, std::string_view suffix) {
  std::string name = layout::segment_file(static_cast<uint64_t>(base_offset));
  name.resize(name.size() - layout::kSegmentSuffix.size());
  return dir / name.append(suffix);
}

}  // namespace

BatchWalker::BatchWalker(int fd, const fs::path& path, uint64_t from, uint64_t end,
                         size_t chunk_bytes)
    : fd_(fd), path_(path), position_(from), end_(end) {
  chunk_.reserve(std::max(chunk_bytes, kafka::kBatchHeaderBytes));
}

std::optional<BatchAt> BatchWalker::next(bool* misframed) {
  if (position_ >= end_) return std::nullopt;
  const uint64_t have_from = chunk_at_;
  const uint64_t have_to = chunk_at_ + chunk_.size();
  if (position_ < have_from || position_ + kafka::kBatchHeaderBytes > have_to) {
    const uint64_t span =
        last_batch_bytes_ > chunk_.capacity() / 8 ? kafka::kBatchHeaderBytes : chunk_.capacity();
    const uint64_t want = std::min<uint64_t>(span, end_ - position_);
    chunk_.resize(static_cast<size_t>(want));
    chunk_.resize(read_at(fd_, chunk_.data(), chunk_.size(), position_, path_));
    chunk_at_ = position_;
  }
  const size_t at = static_cast<size_t>(position_ - chunk_at_);
  BatchAt b;
  b.position = position_;
  bool framed = true;
  try {
    b.header = kafka::read_batch_header_fields(std::string_view(chunk_).substr(at));
    framed = b.end() <= end_ && b.header.last_offset_delta >= 0;
  } catch (const kafka::ParseError&) {
    framed = false;
  }
  if (!framed) {
    if (misframed == nullptr) throw FileError(EIO, "read", path_);  // changed behind our back
    *misframed = true;
    return std::nullopt;
  }
  last_batch_bytes_ = b.end() - b.position;
  position_ = b.end();
  return b;
}

bool SegmentIndexer::resume_after(const OffsetPosition& last, const BatchAt& at,
                                  const std::optional<TimestampOffset>& last_time) {
  if (at.position != last.position || at.last_offset() != last.offset) return false;
  const TimestampOffset max = last_time.value_or(TimestampOffset{kNoTimestamp, base_});
  // The entry's batch was counted in the time entry written with it, or did not raise it.
  if (max.offset > last.offset || at.header.max_timestamp > max.timestamp) return false;
  any_entry_ = true;
  last_entry_position_ = last.position;
  last_entry_offset_ = last.offset;
  max_ = max;
  last_time_ = max.timestamp;
  return true;
}

void SegmentIndexer::add(const BatchAt& batch, std::string* offset_entries,
                         std::string* time_entries) {
  if (batch.header.max_timestamp > max_.timestamp) {
    max_ = TimestampOffset{batch.header.max_timestamp, batch.last_offset()};
  }
  // Kafka's test, position - lastIndexEntry > interval, with lastIndexEntry 0 before any entry.
  if (batch.position - last_entry_position_ > interval_ &&
      (!any_entry_ || batch.last_offset() > last_entry_offset_)) {
    segment_index::encode_offset_entry(base_, {batch.last_offset(), batch.position},
                                       offset_entries);
    maybe_append_time(time_entries);
    any_entry_ = true;
    last_entry_position_ = batch.position;
    last_entry_offset_ = batch.last_offset();
  }
}

void SegmentIndexer::finish(std::string* time_entries) { maybe_append_time(time_entries); }

void SegmentIndexer::maybe_append_time(std::string* time_entries) {
  if (max_.timestamp <= last_time_) return;  // TimeIndex.maybeAppend keeps it ascending
  segment_index::encode_time_entry(base_, max_, time_entries);
  last_time_ = max_.timestamp;
}

namespace segment_index {

fs::path offset_index_path(const fs::path& dir, int64_t base_offset) {
  return sibling(dir, base_offset, ".index");
}

fs::path time_index_path(const fs::path& dir, int64_t base_offset) {
  return sibling(dir, base_offset, ".timeindex");
}

void encode_offset_entry(int64_t base_offset, const OffsetPosition& e, std::string* out) {
  put_be(out, static_cast<uint32_t>(e.offset - base_offset), 4);
  put_be(out, static_cast<uint32_t>(e.position), 4);
}

void encode_time_entry(int64_t base_offset, const TimestampOffset& e, std::string* out) {
  put_be(out, static_cast<uint64_t>(e.timestamp), 8);
  put_be(out, static_cast<uint32_t>(e.offset - base_offset), 4);
}

IndexFile::IndexFile(fs::path path, uint64_t entry_bytes)
    : path_(std::move(path)), entry_bytes_(entry_bytes) {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) {
    if (errno == ENOENT) return;
    throw FileError(errno, "open", path_);
  }
  struct stat st {};
  if (::fstat(fd_, &st) != 0) {
    const int err = errno;
    ::close(fd_);
    throw FileError(err, "stat", path_);
  }
  size_ = static_cast<uint64_t>(st.st_size);
  entries_ = size_ / entry_bytes_;
}

IndexFile::~IndexFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::string IndexFile::read_entry(uint64_t i) const {
  std::string out(static_cast<size_t>(entry_bytes_), '\0');
  if (read_at(fd_, out.data(), out.size(), i * entry_bytes_, path_) != out.size()) {
    throw FileError(EIO, "read", path_);  // cut short while being read
  }
  return out;
}

OffsetPosition IndexFile::offset_entry(int64_t base_offset, uint64_t i) const {
  const std::string e = read_entry(i);
  return {base_offset + static_cast<int32_t>(get_be(e.data(), 4)),
          static_cast<uint32_t>(get_be(e.data() + 4, 4))};
}

TimestampOffset IndexFile::time_entry(int64_t base_offset, uint64_t i) const {
  const std::string e = read_entry(i);
  return {static_cast<int64_t>(get_be(e.data(), 8)),
          base_offset + static_cast<int32_t>(get_be(e.data() + 8, 4))};
}

namespace {

// How many of `entries` entries, ascending by key, have a key of at most `key`: a binary search
// reading entry i's key with key_of(i).
template <typename KeyOf>
uint64_t count_at_most(uint64_t entries, int64_t key, const KeyOf& key_of) {
  uint64_t lo = 0, hi = entries;
  while (lo < hi) {
    const uint64_t mid = lo + (hi - lo) / 2;
    if (key_of(mid) <= key) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  return lo;
}

}  // namespace

std::optional<OffsetPosition> IndexFile::floor_offset(int64_t base_offset, int64_t key) const {
  const uint64_t n =
      count_at_most(entries_, key, [&](uint64_t i) { return offset_entry(base_offset, i).offset; });
  if (n == 0) return std::nullopt;
  return offset_entry(base_offset, n - 1);
}

std::optional<TimestampOffset> IndexFile::floor_time(int64_t base_offset, int64_t key) const {
  const uint64_t n = count_at_most(
      entries_, key, [&](uint64_t i) { return time_entry(base_offset, i).timestamp; });
  if (n == 0) return std::nullopt;
  return time_entry(base_offset, n - 1);
}

BuiltIndex build(const fs::path& dir, int64_t base_offset, uint64_t bytes,
                 uint32_t interval_bytes) {
  BuiltIndex out{{}, {}, SegmentIndexer(base_offset, interval_bytes)};
  const fs::path path = dir / layout::segment_file(static_cast<uint64_t>(base_offset));
  const Fd fd = open_file(path, O_RDONLY | O_CLOEXEC);
  BatchWalker walker(fd.get(), path, 0, bytes, size_t{1} << 20);
  while (const std::optional<BatchAt> b = walker.next()) {
    out.indexer.add(*b, &out.offset_entries, &out.time_entries);
  }
  return out;
}

}  // namespace segment_index

}  // namespace lds
