// log_manager/internal.h: LogManager's logger and file helpers, shared by its source files.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "io/log_layout.h"
#include "storage/hosted_partition.h"
#include "storage/log_dir.h"
#include "storage/log_manager.h"
#include "storage/storage_logger.h"

namespace lds {

namespace {
// The LogManager's files log through storage's logger as log(). Defined once here, not in each
// file, so that a unity build (LDS_UNITY_BUILD), which compiles several of them as one unit, sees
// it once.
[[maybe_unused]] std::shared_ptr<spdlog::logger> log() { return storage_logger(); }
}  // namespace

namespace detail {
// Total size of a partition directory's segment files.
uint64_t segments_size(const std::filesystem::path& partition_dir);
// Why the startup scan ignores a log directory entry, or "" when it is not stray (meta.properties,
// .lock). `kind` is how layout::parse_entry classified `name`.
std::string stray_entry_reason(const std::string& name, layout::EntryKind kind, bool is_dir);

}  // namespace detail
}  // namespace lds
