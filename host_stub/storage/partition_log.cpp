// partition_log.cpp: a partition's log of record batches: append with offsets and rolling, read
// by offset, and recovery of the last segment after a crash. Its indexes: partition_log_index.cpp.
#include "storage/partition_log.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <map>

#include "io/durable_file.h"
#include "io/fd_reserve.h"
#include "io/log_layout.h"
#include "model/record_batch.h"
#include "model/wire.h"
#include "storage/storage_error.h"
#include "storage/storage_logger.h"
#include "util/errors.h"

namespace lds {

namespace fs = std::filesystem;
namespace {

// The header of the batch at byte `at` of a segment, or why the bytes there are not one.
struct HeaderAt {
  kafka::RecordBatchHeader header;
  std::string problem;
  size_t available = 0;  // bytes read, at most a header's
};
HeaderAt header_at(const Fd& fd, const fs::path& path, uint64_t at) {
  char buf[kafka::kBatchHeaderBytes];
  HeaderAt h;
  h.available = read_at(fd.get(), buf, sizeof buf, at, path);
  try {
    h.header = kafka::read_batch_header_fields(std::string_view(buf, h.available));
  } catch (const kafka::ParseError& e) {
    h.problem = e.what();
    if (!h.problem.empty() && h.problem.back() == '.') h.problem.pop_back();  // a clause here
  }
  return h;
}

// Refuses segment `path`, named for offset `named`, when `first`, its batch at byte 0, is not one
// or does not start at that offset: its records would be served at offsets not their own, hiding
// the ones before or leaving a consumer at a gap for ever. Renaming a segment changes no CRC.
void check_named_offset(const fs::path& path, int64_t named, const HeaderAt& first) {
  if (!first.problem.empty() || first.header.base_offset < 0) {
    const std::string problem = first.problem.empty() ? "a negative base offset" : first.problem;
    throw ConfigError("Log segment " + path.string() + " holds no valid record batch at byte 0 (" +
                      problem +
                      "), so the offset it is named for cannot be checked and nothing was "
                      "changed; restore the segment from another replica, or move it out of the "
                      "partition directory, and start again.");
  }
  const int64_t base = first.header.base_offset;
  if (base == named) return;
  throw ConfigError("Log segment " + path.string() + " is named for offset " +
                    std::to_string(named) + " but its first record batch starts at offset " +
                    std::to_string(base) +
                    ", so its records would be served at other offsets and nothing was changed; "
                    "rename it to " +
                    layout::segment_file(static_cast<uint64_t>(base)) +
                    ", the name of a segment starting there, and start again.");
}

std::map<int64_t, fs::path> segment_files(const fs::path& dir) {
  std::map<int64_t, fs::path> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    uint64_t base = 0;
    if (layout::parse_segment_file(e.path().filename().string(), &base)) {
      out[static_cast<int64_t>(base)] = e.path();
    }
  }
  return out;
}

}  // namespace

PartitionLog PartitionLog::empty() {
  PartitionLog log;
  log.segments_.push_back(LogSegment{0, 0});
  return log;
}

uint64_t PartitionLog::size_in_bytes() const {
  uint64_t total = 0;
  for (const LogSegment& s : segments_) total += s.bytes;
  return total;
}

void PartitionLog::check_batches(std::string_view batches, const std::string& partition,
                                 uint64_t segment_bytes, uint64_t max_message_bytes,
                                 const BatchValidator& validate) {
  if (batches.size() > segment_bytes) {
    throw StorageError(StorageErrc::kBatchesTooLarge,
                       "The record batches of " + std::to_string(batches.size()) +
                           " bytes are larger than log.segment.bytes (" +
                           std::to_string(segment_bytes) + ").");
  }
  if (batches.empty()) {
    throw StorageError(StorageErrc::kInvalidBatch, "The request carries no record batch.");
  }
  size_t at = 0;
  while (at < batches.size()) {
    const std::string_view rest = batches.substr(at);
    if (rest.size() > kafka::kBatchCrcOffset - 1 &&
        static_cast<int8_t>(rest[kafka::kBatchCrcOffset - 1]) != kafka::kMagicV2) {
      throw StorageError(StorageErrc::kInvalidBatch,
                         "The record batch at byte " + std::to_string(at) + " has magic " +
                             std::to_string(static_cast<int8_t>(rest[kafka::kBatchCrcOffset - 1])) +
                             "; this broker takes magic 2 only.");
    }
    kafka::RecordBatchHeader h;
    try {
      h = kafka::read_batch_header(rest);
    } catch (const kafka::ParseError& e) {
      throw StorageError(
          StorageErrc::kCorruptBatch,
          "The record batch at byte " + std::to_string(at) + " is malformed: " + e.what());
    }
    const std::string_view batch = rest.substr(0, h.size_in_bytes());
    if (batch.size() > max_message_bytes) {
      // Kafka's check (UnifiedLog.analyzeAndValidateRecords), before the CRC's.
      throw StorageError(StorageErrc::kBatchTooLarge,
                         "The record batch size in the append to " + partition + " is " +
                             std::to_string(batch.size()) +
                             " bytes which exceeds the maximum configured value of " +
                             std::to_string(max_message_bytes) + ".");
    }
    if (kafka::compute_batch_crc(batch) != h.crc) {
      throw StorageError(StorageErrc::kCorruptBatch,
                         "The record batch at byte " + std::to_string(at) +
                             " fails its CRC32C check (" + std::to_string(h.crc) + " stored, " +
                             std::to_string(kafka::compute_batch_crc(batch)) + " computed).");
    }
    if (validate) validate(batch);
    if (h.record_count < 1 || h.last_offset_delta < 0) {
      throw StorageError(StorageErrc::kInvalidBatch,
                         "The record batch at byte " + std::to_string(at) + " holds no record.");
    }
    // The offsets an append gives the batch are lastOffsetDelta + 1: its records', no more.
    if (int64_t{h.last_offset_delta} + 1 != h.record_count) {
      throw StorageError(StorageErrc::kInvalidBatch,
                         "The record batch at byte " + std::to_string(at) +
                             " has lastOffsetDelta " + std::to_string(h.last_offset_delta) +
                             " for " + std::to_string(h.record_count) + " records.");
    }
    at += h.size_in_bytes();
  }
}

int64_t PartitionLog::count(std::string_view batches) {
  const int64_t first = next_offset_;
  size_t at = 0;
  while (at + kafka::kBatchHeaderBytes <= batches.size()) {
    const kafka::RecordBatchHeader h = kafka::read_batch_header(batches.substr(at));
    next_offset_ += int64_t{h.last_offset_delta} + 1;
    at += h.size_in_bytes();
  }
  return first;
}

int64_t PartitionLog::append(const fs::path& dir, std::string& batches, uint64_t segment_bytes,
                             uint32_t index_interval) {
  const int64_t first = next_offset_;
  int64_t next = next_offset_;
  std::vector<BatchAt> written;  // positions relative to the append's start
  for (size_t at = 0; at < batches.size();) {
    BatchAt b{kafka::read_batch_header(std::string_view(batches).substr(at)), at};
    kafka::set_base_offset(batches, at, next);
    b.header.base_offset = next;
    next += int64_t{b.header.last_offset_delta} + 1;
    at += b.header.size_in_bytes();
    written.push_back(b);
  }
  const bool roll = segments_.empty() || (segments_.back().bytes > 0 &&
                                          segments_.back().bytes + batches.size() > segment_bytes);
  const LogSegment active = roll ? LogSegment{first, 0} : segments_.back();
  const fs::path path = dir / layout::segment_file(static_cast<uint64_t>(active.base_offset));
  // Clients holding every descriptor the process may have do not stop an append: the reserve
  // gives one up (fd_reserve.h).
  const ReservedFd fd = open_reserved(path, O_WRONLY | O_CREAT | O_APPEND, 0644);
  if (!fd) throw FileError(errno, roll ? "create" : "open", path);
  size_t done = 0;
  int err = 0;
  while (done < batches.size()) {
    const ssize_t w = ::write(fd.get(), batches.data() + done, batches.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      err = w < 0 ? errno : ENOSPC;
      break;
    }
    done += static_cast<size_t>(w);
  }
  if (err != 0) {
    // Never leave a torn batch, nor a segment that no record reached.
    if (roll) {
      (void)::unlink(path.c_str());
    } else {
      (void)::ftruncate(fd.get(), static_cast<off_t>(active.bytes));
    }
    throw FileError(err, "write", path);
  }
  // The bytes are in: what follows only indexes them, and cannot fail the append.
  try {
    if (roll && !segments_.empty() && segments_.back().bytes > 0) {
      // The segment left behind closes its time index (Kafka's onBecomeInactiveSegment).
      ActiveIndex& old = active_index(dir, index_interval);
      std::string closing;
      old.indexer.finish(&closing);
      write_index_entries(dir, old, {}, closing);
    }
  } catch (const std::exception& e) {
    storage_logger()->warn("Cannot close the indexes of the segment before {}: {}", path.string(),
                           e.what());
  }
  if (roll) {
    segments_.push_back(LogSegment{first, 0});
    active_index_ =
        std::make_unique<ActiveIndex>(ActiveIndex{SegmentIndexer(first, index_interval)});
  }
  try {
    ActiveIndex& index = active_index(dir, index_interval);
    std::string offset_entries, time_entries;
    for (BatchAt& b : written) {
      b.position += segments_.back().bytes;
      index.indexer.add(b, &offset_entries, &time_entries);
    }
    write_index_entries(dir, index, offset_entries, time_entries);
  } catch (const std::exception& e) {
    // Reads find the batches without the entries, and rebuild the index once.
    storage_logger()->warn("Cannot index the append to {}: {}", path.string(), e.what());
    if (active_index_) active_index_->writable = false;
  }
  segments_.back().bytes += batches.size();
  next_offset_ = next;
  return first;
}

std::string PartitionLog::read(const fs::path& dir, int64_t offset, uint64_t max_bytes,
                               uint32_t index_interval) const {
  const Batches batches = slice(dir, offset, max_bytes, index_interval);
  return batches.bytes.file ? read_slice(batches.bytes) : std::string();
}

PartitionLog::Batches PartitionLog::slice(const fs::path& dir, int64_t offset, uint64_t max_bytes,
                                          uint32_t index_interval) const {
  Batches out;
  out.next_offset = offset;
  if (offset >= next_offset_ || segments_.empty()) return out;
  auto seg = std::upper_bound(segments_.begin(), segments_.end(), offset,
                              [](int64_t o, const LogSegment& s) { return o < s.base_offset; });
  if (seg == segments_.begin()) return out;
  --seg;
  const fs::path path = dir / layout::segment_file(static_cast<uint64_t>(seg->base_offset));
  ReservedFd reserved = open_reserved(path, O_RDONLY);  // a Fetch, as an append
  if (!reserved) throw FileError(errno, "open", path);
  const int fd = reserved.get();
  const std::optional<BatchAt> first = locate(dir, *seg, fd, offset, index_interval);
  if (!first) return out;
  // Whole batches from there, the first always (KIP-74).
  uint64_t end = first->end();
  int64_t next_offset = first->last_offset() + 1;
  BatchWalker walker(fd, path, end, seg->bytes, size_t{64} << 10);
  while (const std::optional<BatchAt> b = walker.next()) {
    if (b->end() - first->position > max_bytes) break;
    end = b->end();
    next_offset = b->last_offset() + 1;
  }
  hint_segment_ = seg->base_offset;
  hint_offset_ = next_offset;
  hint_position_ = end;
  out.bytes = FileSlice{std::make_shared<const SliceFile>(std::move(reserved), path),
                        first->position, end - first->position};
  out.next_offset = next_offset;
  return out;
}

std::optional<PartitionLog> PartitionLog::trusted(const fs::path& dir, int64_t log_end_offset,
                                                  fs::file_time_type not_after) {
  // A segment renamed, added or removed by hand changes the directory's own time; one edited in
  // place changes its own. Either after the shutdown: the log is read through.
  const auto modified_after = [not_after](const struct stat& st) {
    const std::chrono::system_clock::time_point modified(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            std::chrono::seconds(st.st_mtim.tv_sec) +
            std::chrono::nanoseconds(st.st_mtim.tv_nsec)));
    return std::chrono::file_clock::from_sys(modified) > not_after;
  };
  struct stat st {};
  check_syscall(::stat(dir.c_str(), &st), "stat", dir);
  if (modified_after(st)) return std::nullopt;
  PartitionLog log;
  for (const auto& [base, path] : segment_files(dir)) {
    check_syscall(::stat(path.c_str(), &st), "stat", path);
    if (modified_after(st)) return std::nullopt;
    log.segments_.push_back(LogSegment{base, static_cast<uint64_t>(st.st_size)});
  }
  if (log.segments_.empty()) return std::nullopt;
  const LogSegment& last = log.segments_.back();
  if (log_end_offset < last.base_offset ||
      (last.bytes == 0) != (log_end_offset == last.base_offset)) {
    return std::nullopt;
  }
  log.next_offset_ = log_end_offset;
  return log;
}

ScannedLog PartitionLog::scan(const fs::path& dir) {
  ScannedLog scanned;
  PartitionLog& result = scanned.log;
  const std::map<int64_t, fs::path> files = segment_files(dir);
  for (const auto& [base, path] : files) {
    result.segments_.push_back(LogSegment{base, fs::file_size(path)});
    // One header read per earlier segment; the last one's first batch is checked below, unless it
    // is torn.
    if (result.segments_.back().bytes == 0 || path == files.rbegin()->second) continue;
    const Fd fd = open_file(path, O_RDONLY | O_CLOEXEC);
    check_named_offset(path, base, header_at(fd, path, 0));
  }
  if (result.segments_.empty()) return scanned;
  LogSegment& last = result.segments_.back();
  const fs::path& path = files.rbegin()->second;
  result.next_offset_ = last.base_offset;
  const Fd fd = open_file(path, O_RDONLY | O_CLOEXEC);
  uint64_t position = 0;
  std::vector<char> batch;
  while (position < last.bytes) {
    const HeaderAt h = header_at(fd, path, position);
    std::string problem = h.problem;
    const uint64_t left = last.bytes - position;
    bool torn = false;
    if (problem.empty()) {
      const uint64_t size = h.header.size_in_bytes();
      if (size > left) {
        problem = "a batch of " + std::to_string(size) + " bytes with " + std::to_string(left) +
                  " left in the file";
        torn = true;
      } else {
        batch.resize(static_cast<size_t>(size));
        if (read_at(fd.get(), batch.data(), batch.size(), position, path) != batch.size()) {
          throw FileError(EIO, "read", path);
        }
        if (kafka::compute_batch_crc(std::string_view(batch.data(), batch.size())) !=
            h.header.crc) {
          problem = "a batch whose CRC32C does not match";
          torn = size == left;
        }
      }
    } else if (h.available < kafka::kBatchHeaderBytes) {
      torn = true;  // a header cut short
    }
    if (problem.empty()) {
      if (position == 0) check_named_offset(path, last.base_offset, h);
      result.next_offset_ = h.header.base_offset + h.header.last_offset_delta + 1;
      position += h.header.size_in_bytes();
      continue;
    }
    if (!torn) {
      throw ConfigError("Log segment " + path.string() + " holds no valid record batch at byte " +
                        std::to_string(position) + " (" + problem + "), and " +
                        std::to_string(left) +
                        " bytes from there are not a write cut short by a crash, so nothing was "
                        "truncated; move the segment out of the partition directory or truncate "
                        "it to " +
                        std::to_string(position) + " bytes, and start again.");
    }
    scanned.torn_bytes = left;
    scanned.torn_problem = problem;
    last.bytes = position;
    break;
  }
  return scanned;
}

void ScannedLog::cut_torn_tail(const fs::path& dir) {
  if (torn_bytes == 0) return;
  const LogSegment& last = log.segments().back();
  const fs::path path = dir / layout::segment_file(static_cast<uint64_t>(last.base_offset));
  storage_logger()->warn(
      "Found invalid messages in log segment {} at byte offset {}: {}. Truncating the {} bytes "
      "of the torn last batch.",
      path.string(), last.bytes, torn_problem, torn_bytes);
  const Fd fd = open_file(path, O_WRONLY | O_CLOEXEC);
  check_syscall(::ftruncate(fd.get(), static_cast<off_t>(last.bytes)), "truncate", path);
  check_syscall(::fsync(fd.get()), "fsync", path);
  torn_bytes = 0;
  torn_problem.clear();
}

}  // namespace lds
