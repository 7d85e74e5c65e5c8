// clean_shutdown.h: what a clean shutdown leaves in a log directory, with Kafka's names and
// formats: recovery-point-offset-checkpoint (each log's end offset) and, once that is on disk, the
// .kafka_cleanshutdown marker. A start that finds both takes each listed log's segments as they
// are instead of reading the last one through; without the marker (a kill -9, a crash, a full
// disk at shutdown) every log is read through as before. The start removes the marker before
// anything is written, so that a crash from then on leaves none.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace lds {

inline constexpr std::string_view kCleanShutdownFile = ".kafka_cleanshutdown";
inline constexpr std::string_view kRecoveryPointFile = "recovery-point-offset-checkpoint";

// A partition as the checkpoint names it: topic and partition number.
using CheckpointKey = std::pair<std::string, int32_t>;

struct CleanShutdown {
  std::map<CheckpointKey, int64_t> recovery_points;  // each log's end offset at the shutdown
  // The checkpoint's time, which the marker follows: a log touched later is read through. (Not the
  // marker's own: a marker rewritten by hand would stretch what it vouches for.)
  std::filesystem::file_time_type recorded_at;
};

// Kafka's OffsetCheckpointFile text: "0", the count, then "<topic> <partition> <offset>" each.
std::string recovery_point_text(const std::map<CheckpointKey, int64_t>& points);

// Writes the checkpoint, then the marker ({"version":0,"brokerEpoch":-1}, as Kafka's
// CleanShutdownFileHandler writes it; this broker has no epoch), each atomically
// (write_file_atomically). Throws FileError naming the step and file; the marker is then absent.
void record_clean_shutdown(const std::filesystem::path& dir,
                           const std::map<CheckpointKey, int64_t>& points);

// The clean shutdown `dir` records, or nullopt when there is none to trust: no marker, or one that
// is not a JSON object with "version":0 as Kafka writes it; or a checkpoint that is missing,
// written after the marker, or not Kafka's format (one WARN line naming the file, the line and
// what is wrong; every log of the dir is then read through).
// Throws FileError when a file exists but cannot be read.
std::optional<CleanShutdown> read_clean_shutdown(const std::filesystem::path& dir);

// Removes the marker, if any, and makes that durable (fsync of the dir). Throws FileError.
void forget_clean_shutdown(const std::filesystem::path& dir);

}  // namespace lds
