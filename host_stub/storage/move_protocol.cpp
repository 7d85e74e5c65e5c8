// move_protocol.cpp: a replica move's commit steps and its completion marker.
#include "storage/move_protocol.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>

#include "io/durable_file.h"
#include "io/log_layout.h"

namespace lds::move_protocol {

namespace fs = std::filesystem;

std::string marker_text(std::string_view source, uint64_t size, std::string_view topic,
                        int32_t partition) {
  return "source=" + std::string(source) + "\nsize=" + std::to_string(size) +
         "\ntopic=" + std::string(topic) + "\npartition=" + std::to_string(partition) + "\n";
}

Marker parse_marker(std::string_view text) {
  Marker m;
  while (!text.empty()) {
    const size_t end = std::min(text.find('\n'), text.size());
    const std::string_view line = text.substr(0, end);
    text.remove_prefix(std::min(end + 1, text.size()));
    if (line.starts_with("source=")) m.source = std::string(line.substr(7));
    if (line.starts_with("topic=")) m.topic = std::string(line.substr(6));
    if (line.starts_with("partition=")) {
      const std::string_view v = line.substr(10);
      int32_t partition = 0;
      const auto [at, ec] = std::from_chars(v.data(), v.data() + v.size(), partition);
      m.partition = ec == std::errc() && at == v.data() + v.size() && !v.empty()
                        ? std::optional<int32_t>(partition)
                        : std::nullopt;
    }
    if (!line.starts_with("size=")) continue;
    const std::string_view v = line.substr(5);
    m.size_text = std::string(v);
    uint64_t size = 0;
    const auto [at, ec] = std::from_chars(v.data(), v.data() + v.size(), size);
    m.size = ec == std::errc() && at == v.data() + v.size() && !v.empty()
                 ? std::optional<uint64_t>(size)
                 : std::nullopt;
  }
  return m;
}

std::optional<Marker> read_marker(const fs::path& copy_dir) {
  const std::optional<std::string> text =
      read_file_if_present(copy_dir / layout::kMoveCompleteMarker);
  if (!text) return std::nullopt;
  return parse_marker(*text);
}

void mark_complete(const fs::path& copy_dir, std::string_view source, uint64_t size,
                   std::string_view topic, int32_t partition) {
  write_file_atomically(copy_dir / layout::kMoveCompleteMarker,
                        marker_text(source, size, topic, partition));
  fsync_folder(copy_dir.parent_path());
}

void promote(const fs::path& copy_dir, const fs::path& final_path) {
  check_syscall(::rename(copy_dir.c_str(), final_path.c_str()), "rename", copy_dir);
  fsync_folder(final_path.parent_path());
}

fs::path retire(const fs::path& source_dir, std::string_view topic, int32_t partition) {
  fs::path del =
      source_dir.parent_path() / layout::delete_dir(topic, partition, layout::random_hex_id());
  check_syscall(::rename(source_dir.c_str(), del.c_str()), "rename", source_dir);
  fsync_folder(source_dir.parent_path());
  return del;
}

void finish(const fs::path& final_path) {
  const fs::path marker = final_path / layout::kMoveCompleteMarker;
  if (::unlink(marker.c_str()) != 0 && errno != ENOENT) check_syscall(-1, "unlink", marker);
  fsync_folder(final_path);
}

}  // namespace lds::move_protocol
