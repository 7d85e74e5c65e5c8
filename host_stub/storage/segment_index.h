// segment_index.h: Kafka's two indexes of a log segment, the rule that decides their entries, and
// the walk over a segment's batch headers that builds them and that reads finish with.
//
//   <base>.index      8-byte entries: int32 offset - base, int32 byte position of the batch
//   <base>.timeindex  12-byte entries: int64 timestamp, int32 offset - base
//
// Both big-endian, ascending, beside <base>.log, as Kafka's OffsetIndex and TimeIndex lay them out
// (without the preallocated tail Kafka trims when it closes a segment). Sparse, by Kafka's rule
// (LogSegment.recover): walking the batches, a batch that starts more than `interval` bytes
// (log.index.interval.bytes) after the batch of the last entry gets one, (its last offset, its
// position); the time index then gets (the greatest batch max timestamp so far, the last offset of
// the batch that has it) unless that timestamp is not above its last entry's. A segment that stops
// being the active one ends its time index with that pair (Kafka's onBecomeInactiveSegment).
//
// The indexes only speed reads up: nothing here trusts an entry without checking it against the
// batch it points at, and an index that is missing, torn or wrong is rebuilt from the segment.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "model/record_batch.h"

namespace lds {

inline constexpr uint32_t kDefaultIndexIntervalBytes = 4096;  // Kafka's log.index.interval.bytes
inline constexpr uint64_t kOffsetIndexEntryBytes = 8;
inline constexpr uint64_t kTimeIndexEntryBytes = 12;
// Kafka's RecordBatch.NO_TIMESTAMP: the time index's "no entry".
inline constexpr int64_t kNoTimestamp = -1;

struct OffsetPosition {
  int64_t offset = -1;
  uint64_t position = 0;
};
struct TimestampOffset {
  int64_t timestamp = kNoTimestamp;
  int64_t offset = -1;
};

// A batch's header and where it starts in its segment.
struct BatchAt {
  kafka::RecordBatchHeader header;
  uint64_t position = 0;
  int64_t last_offset() const { return header.base_offset + header.last_offset_delta; }
  uint64_t end() const { return position + header.size_in_bytes(); }
};

// Reads the batch headers of one segment file from a byte position to `end`, a chunk at a time, so
// that a walk over small batches costs one read per chunk, not one per batch. It reads just the
// first header, and after a batch of more than an eighth of a chunk just the next one: a walk over
// large batches (a Fetch's, whose bytes go out by sendfile) does not read their records.
class BatchWalker {
 public:
  BatchWalker(int fd, const std::filesystem::path& path, uint64_t from, uint64_t end,
              size_t chunk_bytes);
  // The next batch; nullopt at `end`. Throws FileError(EIO, "read") when the bytes there are not a
  // batch header or the batch runs past `end` (the segment changed behind the broker's back), or
  // FileError on the read itself.
  std::optional<BatchAt> next() { return next(nullptr); }
  // As next(), but bytes there that are not a batch set *misframed and give nullopt instead: for a
  // position an index gave, which may be wrong.
  std::optional<BatchAt> next(bool* misframed);

 private:
  int fd_;
  const std::filesystem::path& path_;
  uint64_t position_, end_;
  std::string chunk_;
  uint64_t chunk_at_ = 0;                   // the segment position of chunk_[0]
  uint64_t last_batch_bytes_ = UINT64_MAX;  // none yet: taken as large
};

// Kafka's rule for which batches of a segment get index entries, batch by batch. The entries come
// out encoded, to be appended to the files.
class SegmentIndexer {
 public:
  SegmentIndexer(int64_t base_offset, uint32_t interval_bytes)
      : base_(base_offset), interval_(interval_bytes), max_{kNoTimestamp, base_offset} {}

  // Resumes after `last`, the last entry of a segment's offset index, whose batch `at` is, and
  // `last_time`, the last entry of its time index (or none): the state the rule was in right after
  // it added `last`. `at` is not passed to add(). False, changing nothing, when the two entries
  // cannot both be what the rule wrote for that batch.
  bool resume_after(const OffsetPosition& last, const BatchAt& at,
                    const std::optional<TimestampOffset>& last_time);

  // The next batch of the segment.
  void add(const BatchAt& batch, std::string* offset_entries, std::string* time_entries);
  // The time index's closing entry, when the segment stops being appended to.
  void finish(std::string* time_entries);

  // The greatest batch max timestamp so far, and the last offset of the batch that has it.
  const TimestampOffset& max_timestamp() const { return max_; }
  int64_t base_offset() const { return base_; }

 private:
  void maybe_append_time(std::string* time_entries);

  int64_t base_;
  uint32_t interval_;
  bool any_entry_ = false;
  uint64_t last_entry_position_ = 0;  // Kafka's lastIndexEntry
  int64_t last_entry_offset_ = -1;
  TimestampOffset max_;
  int64_t last_time_ = kNoTimestamp;  // the time index's last timestamp
};

namespace segment_index {

std::filesystem::path offset_index_path(const std::filesystem::path& dir, int64_t base_offset);
std::filesystem::path time_index_path(const std::filesystem::path& dir, int64_t base_offset);

// The entries encoded, as the files hold them.
void encode_offset_entry(int64_t base_offset, const OffsetPosition& e, std::string* out);
void encode_time_entry(int64_t base_offset, const TimestampOffset& e, std::string* out);

// An index file read entry by entry with pread. A missing file is an index with no entry; bytes
// after the last whole entry are not read.
class IndexFile {
 public:
  // Throws FileError when the file exists and cannot be opened or stat'ed.
  IndexFile(std::filesystem::path path, uint64_t entry_bytes);
  ~IndexFile();
  IndexFile(const IndexFile&) = delete;
  IndexFile& operator=(const IndexFile&) = delete;

  uint64_t entries() const { return entries_; }
  uint64_t size() const { return size_; }  // in bytes, a torn entry's included
  // Entry i, decoded. Throws FileError.
  OffsetPosition offset_entry(int64_t base_offset, uint64_t i) const;
  TimestampOffset time_entry(int64_t base_offset, uint64_t i) const;
  // The last entry whose key (offset, or timestamp) is at most `key`, by binary search over
  // entries that must ascend; nullopt when the first one is already above it.
  std::optional<OffsetPosition> floor_offset(int64_t base_offset, int64_t key) const;
  std::optional<TimestampOffset> floor_time(int64_t base_offset, int64_t key) const;

 private:
  std::string read_entry(uint64_t i) const;

  std::filesystem::path path_;
  uint64_t entry_bytes_;
  int fd_ = -1;
  uint64_t size_ = 0, entries_ = 0;
};

// Both indexes of the `bytes` bytes of segment `base_offset` in `dir`, built from its batches.
struct BuiltIndex {
  std::string offset_entries, time_entries;
  SegmentIndexer indexer;  // as it stands after the last batch, for the active segment's appends
};
// Throws FileError (EIO when the segment holds something other than whole batches).
BuiltIndex build(const std::filesystem::path& dir, int64_t base_offset, uint64_t bytes,
                 uint32_t interval_bytes);

}  // namespace segment_index

}  // namespace lds
