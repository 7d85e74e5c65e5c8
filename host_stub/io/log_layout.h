// log_layout.h: the one place that knows Kafka's on-disk names: partition, future, delete and
// segment.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace lds::layout {

inline constexpr std::string_view kMetaProperties = "meta.properties";
// The file a running broker holds an exclusive flock on (io/dir_lock.h), as Kafka's LogManager
// does. Like meta.properties it is a regular file, so parse_entry() classifies it kOther.
inline constexpr std::string_view kLockFile = ".lock";
// Written (and fsynced) inside a future directory when its copy is complete (move_protocol.h). It
// names the move's source, the partition's size and the full topic-partition ("topic=", then
// "partition="), which a capped future name no longer carries.
inline constexpr std::string_view kMoveCompleteMarker = "move.complete";
// Inside a partition directory: what the partition was placed with, so that its reservation
// survives a restart and a move ("expected.bytes=<n>\n"), and the replica's own identity
// ("replica.id=<id>\n"), so that a pending deletion recorded for it can tell it from a partition
// re-created under the same name (partition_metadata_text). Written atomically at every creation,
// copied by a move with the segments; a missing file means 0 bytes and no identity (partitions
// created before it existed), a file without replica.id no identity. Our own name: Kafka keeps its
// partition.metadata beside it.
inline constexpr std::string_view kPartitionMetadata = "lds.partition";
// The longest name a log directory entry can have (NAME_MAX on Linux), as Kafka's LocalLog counts.
inline constexpr size_t kMaxEntryName = 255;
inline constexpr std::string_view kSegmentSuffix = ".log";

// Kafka's topic rule: [a-zA-Z0-9._-], 1 to 249 characters, not "." or "..". Returns an empty string
// if valid, else one sentence saying why not.
std::string topic_name_problem(std::string_view topic);

// Kafka's Topic.hasCollision: two different names that become equal once every '.' is read as
// '_' collide, since Kafka's metric names make that replacement.
bool topic_names_collide(std::string_view a, std::string_view b);

// Why `name` is not a partition directory name "<topic>-<partition>" ("" when it is one), as one
// clause for a log line: "partition number \"00\" has a leading zero".
std::string partition_name_problem(std::string_view name);

std::string partition_dir(std::string_view topic, int32_t partition);  // "t-0"
// "t-0.<id>-future" and "t-0.<id>-delete", with the topic cut so the name fits in kMaxEntryName
// bytes, as Kafka's LocalLog.logDirNameWithSuffixCappedLength: the suffix
// "-<partition>.<id>-future" is kept whole and the topic is cut to min(its length, 255 - the
// suffix's length). Kafka caps only -delete (and -stray) names, and a 249-character topic's -future
// name is then too long to create; the future name is capped here too. A capped name's topic is a
// prefix of the real one: recovery reads the topic-partition of a future from its marker, and a
// -delete needs none.
std::string future_dir(std::string_view topic, int32_t partition, std::string_view id);
std::string delete_dir(std::string_view topic, int32_t partition, std::string_view id);
// Whether `name` (a -future or -delete entry) may have had its topic cut: it is as long as an entry
// name can be.
bool may_be_capped(std::string_view name);
std::string segment_file(uint64_t base_offset);  // "00000000000000000000.log"

// The lds.partition text of a partition placed expecting `expected_bytes`, with its replica.id
// line when `replica_id` is not empty.
std::string partition_metadata_text(uint64_t expected_bytes, std::string_view replica_id = {});
// The expected bytes and replica id an lds.partition text records, or the clause saying why it
// cannot be read ("line 1 is not expected.bytes=<n>"). replica.id is optional (files written
// before it existed); expected.bytes is not.
struct PartitionMetadata {
  uint64_t expected_bytes = 0;
  std::string replica_id;  // "" when the file has none (or is malformed)
  std::string problem;     // "" when the text is well formed
};
PartitionMetadata parse_partition_metadata(std::string_view text);

enum class EntryKind { kPartition, kFuture, kDelete, kOther };
struct Entry {
  EntryKind kind = EntryKind::kOther;
  std::string topic;
  int32_t partition = -1;
};
// Classifies a directory entry name of a log directory.
Entry parse_entry(std::string_view name);
// Parses a segment file name; returns false if `name` is not one.
bool parse_segment_file(std::string_view name, uint64_t* base_offset);

std::string random_hex_id();  // 32 hex digits, as Kafka's unique ids in dir names
// A random Uuid as Kafka writes one (Uuid.toString, as directory.id and cluster.id): 22 characters
// of URL-safe base64 without padding, of a version 4 UUID, never starting with '-' (Kafka's
// Uuid.randomUuid() avoids those, since a leading '-' reads as a command-line option).
std::string random_directory_id();

// The values of the admin API's filler records: a pattern that depends only on (topic, partition,
// offset), where offset is the record's, so that a copied replica can be checked record by
// record.
void fill_payload(std::string_view topic, int32_t partition, uint64_t offset, std::span<char> out);

}  // namespace lds::layout
