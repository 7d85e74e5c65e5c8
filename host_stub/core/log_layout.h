// log_layout.h: the one place that knows Kafka's on-disk names: partition, future, delete and
// segment.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

namespace lds::layout {

inline constexpr std::string_view kMetaProperties = "meta.properties";
// The file a running broker holds an exclusive flock on (core/dir_lock.h), as Kafka's LogManager
// does. Like meta.properties it is a regular file, so parse_entry() classifies it kOther.
inline constexpr std::string_view kLockFile = ".lock";
// Written (and fsynced) inside a future directory when its copy is complete; see ReplicaMover.
inline constexpr std::string_view kMoveCompleteMarker = "move.complete";
inline constexpr std::string_view kSegmentSuffix = ".log";

// Kafka's topic rule: [a-zA-Z0-9._-], 1 to 249 characters, not "." or "..". Returns an empty string
// if valid, else one sentence saying why not.
std::string topic_name_problem(std::string_view topic);

// Why `name` is not a partition directory name "<topic>-<partition>" ("" when it is one), as one
// clause for a log line: "partition number \"00\" has a leading zero".
std::string partition_name_problem(std::string_view name);

std::string partition_dir(std::string_view topic, int32_t partition);  // "t-0"
std::string future_dir(std::string_view topic, int32_t partition,
                       std::string_view id);  // "t-0.<id>-future"
std::string delete_dir(std::string_view topic, int32_t partition,
                       std::string_view id);     // "t-0.<id>-delete"
std::string segment_file(uint64_t base_offset);  // "00000000000000000000.log"

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
// The 22-character URL-safe base64 text (no padding) of 16 bytes, as Kafka's Uuid.toString.
std::string uuid_text(std::span<const unsigned char, 16> bytes);

// The values of the admin API's filler records: a pattern that depends only on (topic, partition,
// offset), where offset is the record's, so that a copied replica can be checked record by
// record.
void fill_payload(std::string_view topic, int32_t partition, uint64_t offset, std::span<char> out);

}  // namespace lds::layout
