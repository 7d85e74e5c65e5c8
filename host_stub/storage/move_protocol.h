// move_protocol.h: the commit protocol of a replica move between log dirs (KIP-113), written once
// for the two that run it: the mover, which copies a replica and promotes the copy, and the start
// that finds a move interrupted and finishes or undoes it. The completion marker's text is written
// and read here, side by side.
//
// The steps, each made durable (an fsync of the folder it changed) before the next:
//   0. mark_complete  the whole copy, already fsynced, gets its marker: from here the move commits;
//   1. promote        the marked copy takes the partition's final name in its dir;
//   2. retire         the source takes a -delete name in its own dir;
//   3. finish         the marker goes.
// Then the -delete folder is removed (a crash before that leaves it to the next start). What a
// crash between any two steps leaves, and what the next start does with it, is in
// docs/on-disk-format.md#the-move-commit-protocol.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace lds::move_protocol {

// What a completion marker (layout::kMoveCompleteMarker) records: the source the copy was made
// from, its size in bytes, and the topic-partition in full (a capped -future name holds only a
// prefix of the topic).
struct Marker {
  std::string source;                    // empty when the marker has no source= line
  std::optional<uint64_t> size;          // nullopt: no size= line, or not a number
  std::optional<std::string> size_text;  // the size= value as written, when there is one
  std::optional<std::string> topic;
  std::optional<int32_t> partition;
};

// "source=<path>\nsize=<bytes>\ntopic=<topic>\npartition=<n>\n".
std::string marker_text(std::string_view source, uint64_t size, std::string_view topic,
                        int32_t partition);
// The fields of a marker's text, each line on its own; unknown lines are skipped.
Marker parse_marker(std::string_view text);
// The marker of the copy in `copy_dir`, nullopt when it has none. Throws FileError when it exists
// and cannot be read.
std::optional<Marker> read_marker(const std::filesystem::path& copy_dir);

// Step 0: writes the marker of the complete copy `copy_dir` atomically, then fsyncs the folder
// holding the copy. Throws FileError.
void mark_complete(const std::filesystem::path& copy_dir, std::string_view source, uint64_t size,
                   std::string_view topic, int32_t partition);
// Step 1: renames the marked copy to `final_path` (in the same log dir) and fsyncs that dir.
// Throws FileError naming the copy (the rename) or the dir (the fsync).
void promote(const std::filesystem::path& copy_dir, const std::filesystem::path& final_path);
// Step 2: renames the source `source_dir` aside to a new -delete name of (topic, partition) in its
// log dir, fsyncs that dir, and returns the new name. Throws FileError.
std::filesystem::path retire(const std::filesystem::path& source_dir, std::string_view topic,
                             int32_t partition);
// Step 3: removes the marker of the promoted copy `final_path` (none there is no error) and fsyncs
// the copy's folder. Throws FileError.
void finish(const std::filesystem::path& final_path);

}  // namespace lds::move_protocol
