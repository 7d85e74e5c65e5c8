// host_log.h: the host services the checks hand to create: a log that only reads and counts.
#pragma once

#include <atomic>
#include <cstdint>

namespace lds::conformance_detail {

// The context of host_log: how many messages the plugin logged, and how many were NULL.
struct HostLog {
  std::atomic<uint64_t> messages{0};
  std::atomic<uint64_t> null_messages{0};
};

// lds_host_api.log with a HostLog as context: reads the whole message, so a bad pointer or a
// missing NUL shows up in the check that made the plugin log.
void host_log(void* context, int32_t level, const char* message);

// lds_host_api.log_enabled: every level is enabled, so the plugin's logging paths all run.
int32_t host_log_enabled(void* context, int32_t level);

}  // namespace lds::conformance_detail
