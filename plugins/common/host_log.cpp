// Plugin-side logging through lds_host_api: field checks by struct_size, and the warn-once latch.
#include "host_log.h"

#include <cstdarg>
#include <cstddef>
#include <cstdio>

#include "error_text.h"

namespace lds::plugin {
namespace {

// True if the host's struct_size covers a field that ends at byte `end`.
bool host_has_field(const lds_host_api* host, size_t end) { return host->struct_size >= end; }

}  // namespace

bool host_log_enabled(const lds_host_api* host, int32_t level) noexcept {
  if (host == nullptr) return false;
  if (!host_has_field(host, offsetof(lds_host_api, log) + sizeof(host->log))) return false;
  if (host->log == nullptr) return false;
  if (!host_has_field(host, offsetof(lds_host_api, log_enabled) + sizeof(host->log_enabled))) {
    return true;
  }
  return host->log_enabled == nullptr || host->log_enabled(host->context, level) != 0;
}

void log_to_host(const lds_host_api* host, int32_t level, const char* message) noexcept {
  if (!host_log_enabled(host, level)) return;
  host->log(host->context, level, message);
}

void WarnOnce::warn(const lds_host_api* host, const char* format, ...) noexcept {
  if (fired_.load(std::memory_order_relaxed)) return;
  if (fired_.exchange(true, std::memory_order_acq_rel)) return;
  if (!host_log_enabled(host, LDS_LOG_WARN)) return;
  char message[512];
  va_list arguments;
  va_start(arguments, format);
  write_error_v(message, sizeof message, format, arguments);
  va_end(arguments);
  host->log(host->context, LDS_LOG_WARN, message);
}

}  // namespace lds::plugin
