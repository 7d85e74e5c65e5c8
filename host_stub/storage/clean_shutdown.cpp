// clean_shutdown.cpp: Kafka's recovery-point checkpoint and clean-shutdown marker.
#include "storage/clean_shutdown.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <sstream>

#include "io/durable_file.h"
#include "storage/storage_logger.h"

namespace lds {

namespace fs = std::filesystem;

namespace {

template <typename T>
bool parse_number(std::string_view text, T& out) {
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), out);
  return ec == std::errc() && end == text.data() + text.size();
}

// The checkpoint's entries, or what is wrong with it ("line 3: ...").
std::optional<std::map<CheckpointKey, int64_t>> parse_checkpoint(const std::string& text,
                                                                 std::string& problem) {
  std::istringstream in(text);
  std::string line;
  int line_number = 0;
  auto fail = [&](const std::string& why) {
    problem = "line " + std::to_string(line_number) + ": " + why;
    return std::nullopt;
  };
  ++line_number;
  if (!std::getline(in, line) || line != "0") return fail("the version is not 0");
  ++line_number;
  int64_t count = 0;
  if (!std::getline(in, line) || !parse_number(line, count) || count < 0) {
    return fail("the entry count is not a number");
  }
  std::map<CheckpointKey, int64_t> points;
  for (int64_t i = 0; i < count; ++i) {
    ++line_number;
    if (!std::getline(in, line))
      return fail("the file ends before its " + std::to_string(count) + " entries");
    const size_t a = line.find(' ');
    const size_t b = a == std::string::npos ? a : line.find(' ', a + 1);
    int32_t partition = 0;
    int64_t offset = 0;
    if (b == std::string::npos || a == 0 ||
        !parse_number(std::string_view(line).substr(a + 1, b - a - 1), partition) ||
        partition < 0 || !parse_number(std::string_view(line).substr(b + 1), offset) ||
        offset < 0) {
      return fail("\"" + line + "\" is not \"<topic> <partition> <offset>\"");
    }
    if (!points.emplace(CheckpointKey{line.substr(0, a), partition}, offset).second) {
      return fail(line.substr(0, a) + "-" + std::to_string(partition) + " is listed twice");
    }
  }
  ++line_number;
  if (std::getline(in, line))
    return fail("more lines than its " + std::to_string(count) + " entries");
  return points;
}

// Whether `text` is a marker as Kafka writes it: one JSON object whose "version" is 0 (spaces
// aside, whatever else it holds, such as Kafka's brokerEpoch). A marker torn or edited into
// anything else vouches for nothing.
bool is_kafkas_marker(std::string_view text) {
  std::string packed;
  for (char c : text) {
    if (c != ' ' && c != '\t' && c != '\n' && c != '\r') packed += c;
  }
  if (packed.size() < 2 || packed.front() != '{' || packed.back() != '}') return false;
  constexpr std::string_view kVersion = "\"version\":0";
  const size_t at = packed.find(kVersion);
  if (at == std::string::npos || (packed[at - 1] != '{' && packed[at - 1] != ',')) return false;
  const char after = packed[at + kVersion.size()];
  return after == ',' || after == '}';
}

fs::file_time_type modified(const fs::path& file) {
  std::error_code ec;
  const fs::file_time_type t = fs::last_write_time(file, ec);
  if (ec) throw FileError(ec.value(), "stat", file);
  return t;
}

}  // namespace

std::string recovery_point_text(const std::map<CheckpointKey, int64_t>& points) {
  std::string text = "0\n" + std::to_string(points.size()) + "\n";
  for (const auto& [key, offset] : points) {
    text += key.first + " " + std::to_string(key.second) + " " + std::to_string(offset) + "\n";
  }
  return text;
}

void record_clean_shutdown(const fs::path& dir, const std::map<CheckpointKey, int64_t>& points) {
  write_file_atomically(dir / kRecoveryPointFile, recovery_point_text(points));
  write_file_atomically(dir / kCleanShutdownFile, R"({"version":0,"brokerEpoch":-1})");
}

std::optional<CleanShutdown> read_clean_shutdown(const fs::path& dir) {
  const fs::path marker = dir / kCleanShutdownFile;
  const fs::path file = dir / kRecoveryPointFile;
  const std::optional<std::string> marker_text = read_file_if_present(marker);
  if (!marker_text) return std::nullopt;
  if (!is_kafkas_marker(*marker_text)) {
    storage_logger()->warn(
        "{} is not Kafka's clean-shutdown marker ({{\"version\":0,...}}); every log in {} "
        "is read through.",
        marker.string(), dir.string());
    return std::nullopt;
  }
  const std::optional<std::string> text = read_file_if_present(file);
  if (!text) {
    storage_logger()->warn("{} has no {} beside it; every log in {} is read through.",
                           marker.string(), kRecoveryPointFile, dir.string());
    return std::nullopt;
  }
  CleanShutdown clean;
  clean.recorded_at = modified(file);
  if (clean.recorded_at > modified(marker)) {
    storage_logger()->warn("{} was written after {}; every log in {} is read through.",
                           file.string(), kCleanShutdownFile, dir.string());
    return std::nullopt;
  }
  std::string problem;
  std::optional<std::map<CheckpointKey, int64_t>> points = parse_checkpoint(*text, problem);
  if (!points) {
    storage_logger()->warn("Ignoring {}: {}; every log in {} is read through.", file.string(),
                           problem, dir.string());
    return std::nullopt;
  }
  clean.recovery_points = std::move(*points);
  return clean;
}

void forget_clean_shutdown(const fs::path& dir) {
  const fs::path marker = dir / kCleanShutdownFile;
  if (::unlink(marker.c_str()) != 0) {
    if (errno == ENOENT) return;
    check_syscall(-1, "unlink", marker);
  }
  fsync_folder(dir);
}

}  // namespace lds
