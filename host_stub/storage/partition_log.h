// partition_log.h: one partition's Kafka log: its segments, named by the offset of their first
// record, and its log end offset; appending whole record batches, reading them back by offset,
// rolling segments, and reading the log again after a crash (a torn last batch is cut off, as
// Kafka's segment recovery does).
//
// Not thread-safe: the LogManager serialises every call on one partition with its I/O lock.
// The log does not know its directory: a move renames the partition directory, and the caller
// passes the current one to every call.
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/file_slice.h"
#include "storage/segment_index.h"

namespace lds {

struct LogSegment {
  int64_t base_offset = 0;  // the offset of its first record, and its file name
  uint64_t bytes = 0;       // its file's size
  // Whether its indexes were rebuilt from it since the start (at most once: one that cannot be
  // written is not tried again, and reads walk its batches).
  enum class Index : uint8_t { kAsFound, kRebuilt, kUnwritable };
  mutable Index index = Index::kAsFound;
};

// The active segment's indexer, between appends, and how far its index files are written.
struct ActiveIndex {
  SegmentIndexer indexer;
  uint64_t offset_index_bytes = 0;
  uint64_t time_index_bytes = 0;
  bool writable = true;  // false once a write of them failed: they stay as they are
};

struct ScannedLog;

class PartitionLog {
 public:
  // An empty log whose first segment (base offset 0, empty) exists on disk, as a new partition's.
  static PartitionLog empty();
  // A log with no files at all: the in-memory LogManager's bookkeeping, offsets only.
  PartitionLog() = default;
  // A copy leaves the active segment's indexer behind: it is loaded again from the files.
  PartitionLog(const PartitionLog& other)
      : segments_(other.segments_), next_offset_(other.next_offset_) {}
  PartitionLog& operator=(const PartitionLog& other) {
    if (this != &other) *this = PartitionLog(other);
    return *this;
  }
  PartitionLog(PartitionLog&&) noexcept = default;
  PartitionLog& operator=(PartitionLog&&) noexcept = default;
  ~PartitionLog() = default;

  // Reads the log of partition directory `dir` after a start: lists its segments and checks every
  // batch of the last one (framing, magic 2, CRC32C), changing nothing. A torn last batch, one cut
  // short or whose CRC does not match with nothing after it, is what a crash during a write
  // leaves: it is left out of the log, and ScannedLog::cut_torn_tail() removes it from the file,
  // as Kafka's recovery does after an unclean shutdown. Anything else that is not a whole batch
  // is not a torn write: ConfigError names the segment, the byte position and what is found
  // there. So is a segment whose first batch does not start at the offset its name says (one
  // header read per segment; a torn first batch of the last one is not checked). Throws
  // FileError on I/O.
  static ScannedLog scan(const std::filesystem::path& dir);

  // The log of `dir` as a clean shutdown left it (clean_shutdown.h): its segments at their sizes,
  // its end at `log_end_offset`, nothing read. nullopt when that cannot be what the shutdown left,
  // and the log must be scanned: no segment, an end before the last segment's base offset (or
  // past it while that segment is empty, or at it while it is not), or a segment or the directory
  // itself modified after `not_after` (a segment edited, renamed, added or removed by hand). Throws
  // FileError.
  static std::optional<PartitionLog> trusted(const std::filesystem::path& dir,
                                             int64_t log_end_offset,
                                             std::filesystem::file_time_type not_after);

  // Checks `batches`, a client's records for partition `partition` ("t-0") as Produce carries
  // them: one or more whole batches of magic 2, each with its CRC32C, at least one record (and
  // lastOffsetDelta + 1 of them: the offsets the append gives it) and at most `max_message_bytes`
  // bytes (message.max.bytes, compared with the batch's whole size as Kafka's UnifiedLog compares
  // sizeInBytes), together at most `segment_bytes`. Throws StorageError kCorruptBatch (framing,
  // CRC), kInvalidBatch (another magic, no records, a count other than lastOffsetDelta + 1),
  // kBatchTooLarge (one batch, Kafka's sentence) or kBatchesTooLarge (all of them),
  // naming the batch's position. `validate`, when given, is called with each batch whose framing,
  // size and CRC hold, before its record count is checked: the Kafka listener's own checks
  // (LogValidator's, kafka/server/record_validator.h), which refuse by throwing KafkaError; it
  // passes through as it is.
  using BatchValidator = std::function<void(std::string_view batch)>;
  static void check_batches(std::string_view batches, const std::string& partition,
                            uint64_t segment_bytes, uint64_t max_message_bytes,
                            const BatchValidator& validate = nullptr);

  // Gives the records of `batches` (checked by check_batches, or built by this broker) offsets
  // from the log end offset on, by rewriting each batch's baseOffset, and writes them to the active
  // segment of `dir`, rolling a new segment first when the active one is not empty and would pass
  // `segment_bytes`. All or nothing: a short write is cut back and a segment created for it is
  // removed before the error (FileError, with errno) is thrown. Returns the first record's offset.
  // The segment's indexes (segment_index.h) get their entries, every `index_interval` bytes; an
  // index that cannot be written is left behind with one WARN line, and the append stands.
  int64_t append(const std::filesystem::path& dir, std::string& batches, uint64_t segment_bytes,
                 uint32_t index_interval = kDefaultIndexIntervalBytes);
  // The in-memory log: gives the records of `batches` offsets, writes nothing.
  int64_t count(std::string_view batches);

  // The whole batches from the one that holds `offset` on, within one segment, at most
  // `max_bytes` together but the first one always whole (KIP-74). `offset` must lie in
  // [log_start_offset(), log_end_offset()]; at the log end offset the result is empty. The
  // segment's offset index finds the batch; an index entry that does not match its batch, or an
  // index that leaves more than `index_interval` bytes plus a batch unindexed, has the index
  // rebuilt from the segment.
  std::string read(const std::filesystem::path& dir, int64_t offset, uint64_t max_bytes,
                   uint32_t index_interval = kDefaultIndexIntervalBytes) const;
  // The same batches unread: where they lie in their segment, which the slice holds open (no file
  // when there are none), and the offset after the last of them (`offset` when none). Throws
  // FileError.
  struct Batches {
    FileSlice bytes;
    int64_t next_offset = 0;
  };
  Batches slice(const std::filesystem::path& dir, int64_t offset, uint64_t max_bytes,
                uint32_t index_interval = kDefaultIndexIntervalBytes) const;

  // The first batch, from the log start on, whose max timestamp is at least `timestamp`, found as
  // Kafka's UnifiedLog.fetchOffsetByTimestamp finds it: the first segment whose largest timestamp
  // reaches it, its time index, then its offset index; nullopt when no batch does. The caller
  // picks the record (its records may be compressed). Throws FileError.
  std::optional<std::string> batch_at_timestamp(
      const std::filesystem::path& dir, int64_t timestamp,
      uint32_t index_interval = kDefaultIndexIntervalBytes) const;

  // The partition directory was moved: its indexes are read, and made again, where it now is.
  void forget_index() { active_index_.reset(); }

  int64_t log_start_offset() const {
    return segments_.empty() ? next_offset_ : segments_.front().base_offset;
  }
  int64_t log_end_offset() const { return next_offset_; }
  uint64_t size_in_bytes() const;
  const std::vector<LogSegment>& segments() const { return segments_; }

 private:
  // The batch of segment `seg` (open as `fd`) that holds `offset`; nullopt past its last one.
  std::optional<BatchAt> locate(const std::filesystem::path& dir, const LogSegment& seg, int fd,
                                int64_t offset, uint32_t index_interval) const;
  // The active segment's indexer, resumed from its files (rebuilt when they do not hold).
  ActiveIndex& active_index(const std::filesystem::path& dir, uint32_t index_interval) const;
  bool resume_index(const std::filesystem::path& dir, const LogSegment& seg, ActiveIndex& a) const;
  // Rebuilds both indexes of `seg` from its batches and writes them atomically; the active one's
  // indexer is taken from the rebuild. A write that fails is one WARN line.
  segment_index::BuiltIndex rebuild_index(const std::filesystem::path& dir, const LogSegment& seg,
                                          uint32_t index_interval, const char* why) const;
  // Appends encoded entries to the active segment's index files.
  void write_index_entries(const std::filesystem::path& dir, ActiveIndex& a,
                           const std::string& offset_entries,
                           const std::string& time_entries) const;
  // The largest timestamp in segment `seg` and the offset of the batch that has it.
  TimestampOffset largest_timestamp(const std::filesystem::path& dir, const LogSegment& seg,
                                    uint32_t index_interval) const;
  bool is_active(const LogSegment& seg) const { return &seg == &segments_.back(); }

  std::vector<LogSegment> segments_;  // by base offset
  int64_t next_offset_ = 0;
  // Where the last read ended (a consumer's next fetch), so reading on needs no scan.
  mutable int64_t hint_offset_ = -1;    // the offset the next batch starts with
  mutable int64_t hint_segment_ = -1;   // in the segment of this base offset
  mutable uint64_t hint_position_ = 0;  // at this byte of it
  // Loaded on the first append or read of the active segment, so that a start reads no index.
  mutable std::unique_ptr<ActiveIndex> active_index_;
};

// What PartitionLog::scan() found: the log of whole batches, and a torn last batch after it.
struct ScannedLog {
  PartitionLog log;
  uint64_t torn_bytes = 0;   // bytes of the torn last batch, still in the file
  std::string torn_problem;  // what is wrong with them, as a clause

  // Truncates the last segment of `dir` to its whole batches (ftruncate, fsync), logging what is
  // cut. A no-op without a torn batch. Throws FileError.
  void cut_torn_tail(const std::filesystem::path& dir);
};

}  // namespace lds
