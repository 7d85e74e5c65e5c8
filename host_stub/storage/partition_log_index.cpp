// partition_log_index.cpp: how a partition's log keeps and uses its segments' indexes
// (segment_index.h): the batch that holds an offset, the first batch at a time, the active
// segment's indexer resumed after a start, and an index rebuilt when it does not hold.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

#include "io/durable_file.h"
#include "io/fd_reserve.h"
#include "io/log_layout.h"
#include "storage/partition_log.h"
#include "storage/storage_logger.h"

namespace lds {

namespace fs = std::filesystem;

namespace {

// Whether `b`, the batch holding a time index entry's offset, is the one the entry names: the
// entry's offset is its last, and its time is the batch's max timestamp.
bool holds(const std::optional<BatchAt>& b, const TimestampOffset& entry) {
  return b && b->last_offset() == entry.offset && b->header.max_timestamp == entry.timestamp;
}

}  // namespace

std::optional<BatchAt> PartitionLog::locate(const fs::path& dir, const LogSegment& seg, int fd,
                                            int64_t offset, uint32_t index_interval) const {
  if (is_active(seg)) (void)active_index(dir, index_interval);  // its entries caught up
  const fs::path path = dir / layout::segment_file(static_cast<uint64_t>(seg.base_offset));
  uint64_t from = 0;
  if (hint_segment_ == seg.base_offset && hint_offset_ <= offset) from = hint_position_;
  int64_t expected = -1;  // the last offset of the batch at `from`, per the index; -1: none
  const char* wrong = nullptr;
  try {
    const segment_index::IndexFile index(segment_index::offset_index_path(dir, seg.base_offset),
                                         kOffsetIndexEntryBytes);
    if (const auto e = index.floor_offset(seg.base_offset, offset)) {
      if (e->position >= seg.bytes) {
        wrong = "an entry past the segment's end";
      } else if (e->position >= from) {
        from = e->position;
        expected = std::max<int64_t>(e->offset, 0);
      }
    }
  } catch (const FileError& e) {
    wrong = "an index that cannot be read";
  }
  BatchWalker walker(fd, path, from, seg.bytes, size_t{16} << 10);
  uint64_t walked = 0, largest = 0;
  bool misframed = false;
  while (const std::optional<BatchAt> b = walker.next(expected >= 0 ? &misframed : nullptr)) {
    if (expected >= 0 && b->last_offset() != expected) {
      wrong = "an entry that does not match its batch";
      break;
    }
    expected = -1;
    if (b->last_offset() >= offset) {
      if (walked > index_interval + largest && seg.index == LogSegment::Index::kAsFound) {
        rebuild_index(dir, seg, index_interval, "it leaves batches unindexed");
      }
      return b;
    }
    walked += b->header.size_in_bytes();
    largest = std::max<uint64_t>(largest, b->header.size_in_bytes());
  }
  if (misframed) wrong = "an entry that points at no batch";
  if (wrong == nullptr) return std::nullopt;
  // The index misled the walk: read the segment from its start, once the index is made again.
  if (seg.index == LogSegment::Index::kAsFound) rebuild_index(dir, seg, index_interval, wrong);
  BatchWalker again(fd, path, 0, seg.bytes, size_t{1} << 20);
  while (const std::optional<BatchAt> b = again.next()) {
    if (b->last_offset() >= offset) return b;
  }
  return std::nullopt;
}

std::optional<std::string> PartitionLog::batch_at_timestamp(const fs::path& dir, int64_t timestamp,
                                                            uint32_t index_interval) const {
  for (const LogSegment& seg : segments_) {
    if (seg.bytes == 0 || largest_timestamp(dir, seg, index_interval).timestamp < timestamp) {
      continue;
    }
    const fs::path path = dir / layout::segment_file(static_cast<uint64_t>(seg.base_offset));
    const ReservedFd reserved = open_reserved(path, O_RDONLY);
    if (!reserved) throw FileError(errno, "open", path);
    const int fd = reserved.fd().get();
    // The time index's last entry at or below the timestamp: no batch before its offset's reaches
    // the timestamp. Checked against that batch, as every entry used.
    int64_t from_offset = seg.base_offset;
    try {
      const segment_index::IndexFile times(segment_index::time_index_path(dir, seg.base_offset),
                                           kTimeIndexEntryBytes);
      if (const auto e = times.floor_time(seg.base_offset, timestamp)) {
        const std::optional<BatchAt> b = locate(dir, seg, fd, e->offset, index_interval);
        if (holds(b, *e)) {
          from_offset = e->offset;
        } else if (seg.index == LogSegment::Index::kAsFound) {
          rebuild_index(dir, seg, index_interval, "an entry that does not match its batch");
        }
      }
    } catch (const FileError&) {
      // An index that cannot be read: the walk starts at the segment's start.
    }
    const std::optional<BatchAt> start = locate(dir, seg, fd, from_offset, index_interval);
    if (!start) continue;
    BatchWalker walker(fd, path, start->position, seg.bytes, size_t{64} << 10);
    while (const std::optional<BatchAt> b = walker.next()) {
      if (b->header.max_timestamp < timestamp) continue;
      std::string out(b->header.size_in_bytes(), '\0');
      if (read_at(reserved.fd().get(), out.data(), out.size(), b->position, path) != out.size()) {
        throw FileError(EIO, "read", path);
      }
      return out;
    }
  }
  return std::nullopt;
}

TimestampOffset PartitionLog::largest_timestamp(const fs::path& dir, const LogSegment& seg,
                                                uint32_t index_interval) const {
  if (is_active(seg)) return active_index(dir, index_interval).indexer.max_timestamp();
  // A closed segment's time index ends with its largest timestamp (SegmentIndexer::finish).
  try {
    const segment_index::IndexFile times(segment_index::time_index_path(dir, seg.base_offset),
                                         kTimeIndexEntryBytes);
    if (times.entries() > 0 && times.size() % kTimeIndexEntryBytes == 0) {
      const TimestampOffset last = times.time_entry(seg.base_offset, times.entries() - 1);
      const fs::path path = dir / layout::segment_file(static_cast<uint64_t>(seg.base_offset));
      const Fd fd = open_file(path, O_RDONLY | O_CLOEXEC);
      const std::optional<BatchAt> b = locate(dir, seg, fd.get(), last.offset, index_interval);
      if (holds(b, last)) {
        return last;
      }
    } else if (seg.index != LogSegment::Index::kAsFound) {
      return {};  // rebuilt since the start, and no batch has a timestamp
    }
  } catch (const FileError& e) {
    if (e.path().extension() == ".log") throw;
  }
  if (seg.index != LogSegment::Index::kAsFound) {  // made once already: walk, write nothing
    segment_index::BuiltIndex walked =
        segment_index::build(dir, seg.base_offset, seg.bytes, index_interval);
    return walked.indexer.max_timestamp();
  }
  segment_index::BuiltIndex built =
      rebuild_index(dir, seg, index_interval, "its time index does not end as a closed one does");
  return built.indexer.max_timestamp();
}

ActiveIndex& PartitionLog::active_index(const fs::path& dir, uint32_t index_interval) const {
  if (active_index_) return *active_index_;
  const LogSegment& seg = segments_.back();
  auto a =
      std::make_unique<ActiveIndex>(ActiveIndex{SegmentIndexer(seg.base_offset, index_interval)});
  if (seg.bytes == 0) {
    // Entries left by bytes that are gone (a torn first batch cut off) must not mislead a read.
    for (const fs::path& p : {segment_index::offset_index_path(dir, seg.base_offset),
                              segment_index::time_index_path(dir, seg.base_offset)}) {
      if (::unlink(p.c_str()) != 0 && errno != ENOENT) {
        a->writable = false;
        storage_logger()->warn(
            "Cannot remove index {} ({}); the segment's appends go on without index entries.",
            p.string(), std::error_code(errno, std::generic_category()).message());
      }
    }
  } else if (!resume_index(dir, seg, *a)) {
    segment_index::BuiltIndex built =
        rebuild_index(dir, seg, index_interval, "its last entries do not match the segment");
    a->indexer = built.indexer;
    a->offset_index_bytes = built.offset_entries.size();
    a->time_index_bytes = built.time_entries.size();
    a->writable = seg.index == LogSegment::Index::kRebuilt;
  }
  active_index_ = std::move(a);
  return *active_index_;
}

bool PartitionLog::resume_index(const fs::path& dir, const LogSegment& seg, ActiveIndex& a) const {
  const int64_t base = seg.base_offset;
  const fs::path path = dir / layout::segment_file(static_cast<uint64_t>(base));
  const Fd fd = open_file(path, O_RDONLY | O_CLOEXEC);
  uint64_t from = 0;
  try {
    const segment_index::IndexFile offsets(segment_index::offset_index_path(dir, base),
                                           kOffsetIndexEntryBytes);
    const segment_index::IndexFile times(segment_index::time_index_path(dir, base),
                                         kTimeIndexEntryBytes);
    if (offsets.size() % kOffsetIndexEntryBytes != 0 || times.size() % kTimeIndexEntryBytes != 0) {
      return false;  // torn
    }
    std::optional<TimestampOffset> last_time;
    if (times.entries() > 0) {
      last_time = times.time_entry(base, times.entries() - 1);
      if (times.entries() > 1) {
        const TimestampOffset before = times.time_entry(base, times.entries() - 2);
        if (before.timestamp >= last_time->timestamp || before.offset > last_time->offset) {
          return false;
        }
      }
    }
    if (offsets.entries() > 0) {
      const OffsetPosition last = offsets.offset_entry(base, offsets.entries() - 1);
      if (offsets.entries() > 1) {
        const OffsetPosition before = offsets.offset_entry(base, offsets.entries() - 2);
        if (before.offset >= last.offset || before.position >= last.position) return false;
      }
      if (last.position >= seg.bytes) return false;
      BatchWalker at(fd.get(), path, last.position, seg.bytes, kafka::kBatchHeaderBytes);
      bool misframed = false;
      const std::optional<BatchAt> b = at.next(&misframed);
      if (!b || !a.indexer.resume_after(last, *b, last_time)) return false;
      from = b->end();
    } else if (last_time) {
      return false;  // a time entry comes with an offset entry, or closes the segment
    }
    a.offset_index_bytes = offsets.size();
    a.time_index_bytes = times.size();
  } catch (const FileError& e) {
    if (e.path() == path) throw;
    return false;
  }
  // The batches after the last entry: appended since, or not indexed before a crash.
  std::string offset_entries, time_entries;
  BatchWalker walker(fd.get(), path, from, seg.bytes, size_t{1} << 20);
  while (const std::optional<BatchAt> b = walker.next()) {
    a.indexer.add(*b, &offset_entries, &time_entries);
  }
  write_index_entries(dir, a, offset_entries, time_entries);
  return true;
}

segment_index::BuiltIndex PartitionLog::rebuild_index(const fs::path& dir, const LogSegment& seg,
                                                      uint32_t index_interval,
                                                      const char* why) const {
  segment_index::BuiltIndex built =
      segment_index::build(dir, seg.base_offset, seg.bytes, index_interval);
  if (!is_active(seg)) built.indexer.finish(&built.time_entries);
  const fs::path offsets = segment_index::offset_index_path(dir, seg.base_offset);
  const fs::path times = segment_index::time_index_path(dir, seg.base_offset);
  // A rebuild a crash interrupted left its temp files: they go with the index they were for.
  remove_temp_files_of(offsets);
  remove_temp_files_of(times);
  try {
    write_file_atomically(offsets, built.offset_entries);
    write_file_atomically(times, built.time_entries);
    seg.index = LogSegment::Index::kRebuilt;
    storage_logger()->warn(
        "Rebuilt the indexes of log segment {}: {}.",
        (dir / layout::segment_file(static_cast<uint64_t>(seg.base_offset))).string(), why);
  } catch (const FileError& e) {
    seg.index = LogSegment::Index::kUnwritable;
    storage_logger()->warn(
        "The indexes of log segment {} cannot be rebuilt ({}: {}); reads walk its batches.",
        (dir / layout::segment_file(static_cast<uint64_t>(seg.base_offset))).string(), why,
        e.what());
  }
  if (is_active(seg) && active_index_) {
    active_index_->indexer = built.indexer;
    active_index_->offset_index_bytes = built.offset_entries.size();
    active_index_->time_index_bytes = built.time_entries.size();
    active_index_->writable = seg.index == LogSegment::Index::kRebuilt;
  }
  return built;
}

void PartitionLog::write_index_entries(const fs::path& dir, ActiveIndex& a,
                                       const std::string& offset_entries,
                                       const std::string& time_entries) const {
  const int64_t base = a.indexer.base_offset();
  const std::pair<fs::path, std::pair<const std::string*, uint64_t*>> files[] = {
      {segment_index::offset_index_path(dir, base), {&offset_entries, &a.offset_index_bytes}},
      {segment_index::time_index_path(dir, base), {&time_entries, &a.time_index_bytes}}};
  for (const auto& [path, what] : files) {
    const auto& [entries, bytes] = what;
    if (!a.writable || entries->empty()) continue;
    // The first entries of a segment replace whatever a file of that name held.
    const ReservedFd fd =
        open_reserved(path, O_WRONLY | O_CREAT | (*bytes == 0 ? O_TRUNC : 0), 0644);
    int err = fd ? 0 : errno;
    for (size_t done = 0; err == 0 && done < entries->size();) {
      const ssize_t w = ::pwrite(fd.get(), entries->data() + done, entries->size() - done,
                                 static_cast<off_t>(*bytes + done));
      if (w < 0 && errno == EINTR) continue;
      if (w <= 0) {
        err = w < 0 ? errno : ENOSPC;
      } else {
        done += static_cast<size_t>(w);
      }
    }
    if (err == 0) {
      *bytes += entries->size();
      continue;
    }
    if (fd) (void)::ftruncate(fd.get(), static_cast<off_t>(*bytes));  // no torn entry
    a.writable = false;
    storage_logger()->warn(
        "Cannot write index {} ({}); the segment's appends go on without index entries, and reads "
        "of it walk its batches until the indexes are rebuilt.",
        path.string(), std::error_code(err, std::generic_category()).message());
  }
}

}  // namespace lds
