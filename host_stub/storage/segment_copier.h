// segment_copier.h: copies a partition's segment files into another directory, range by range,
// for a replica move.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <vector>

#include "io/durable_file.h"

namespace lds {

// Copies a partition's log into a future directory, range by range, as the move asks. The source
// is listed once, and again only when the copy enters the last segment it knows (one may have
// rolled since); the segment being copied stays open on both sides between ranges, so a range
// costs no listing and no open. copy_file_range moves the bytes inside the kernel; read/write
// takes over where it cannot (another filesystem, an old kernel). One thread at a time.
class SegmentCopier {
 public:
  SegmentCopier(std::filesystem::path src_dir, std::filesystem::path dst_dir);

  // Copies the log's bytes [from, to): positions in the partition's segments laid end to end, in
  // base-offset order (segment names are record offsets, not byte positions). Throws FileError
  // naming the file (a read of the source, a write of the copy) or
  // std::filesystem::filesystem_error (listing the source).
  void copy(uint64_t from, uint64_t to);

  // Copies the partition's lds.partition (layout::kPartitionMetadata), if it has one, atomically
  // and durably. Throws FileError naming the source file (its read) or the copy (its write).
  void copy_partition_metadata();

  // Copies the indexes of every segment (segment_index.h), with appends stopped, so that the copy
  // needs no rebuild. Best effort: an index that cannot be read or written is left out (the
  // destination rebuilds it when it reads the segment).
  void copy_indexes();

  // Makes every segment written durable (fsync of each file).
  void sync();

 private:
  void open_at(uint64_t offset);
  // Starts writing back the segment just finished, so the final fsync finds little left to do.
  void finish_segment();
  // Copies up to `len` bytes at `offset` of the open segment; fewer (0) at the source's end.
  uint64_t copy_range(uint64_t offset, uint64_t len);

  std::filesystem::path src_dir_, dst_dir_;
  std::map<uint64_t, std::filesystem::path> segments_;  // the source's, by first byte
  uint64_t base_ = 0, end_ = 0;                         // the open segment's bytes
  std::filesystem::path in_path_, out_path_;
  Fd in_, out_;
  bool use_copy_file_range_ = true;
  std::vector<char> buffer_;  // the read/write fallback's
  std::vector<std::filesystem::path> written_;
};

}  // namespace lds
