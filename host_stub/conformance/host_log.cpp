// host_log.cpp: the counting host log handed to plugins during the checks.
#include "conformance/host_log.h"

#include <cstring>

namespace lds::conformance_detail {

void host_log(void* context, int32_t /*level*/, const char* message) {
  auto* log = static_cast<HostLog*>(context);
  if (message == nullptr) {
    log->null_messages.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  // Reading the message is the point: a bad pointer or a missing NUL shows up here.
  if (std::strlen(message) > 0) log->messages.fetch_add(1, std::memory_order_relaxed);
}

int32_t host_log_enabled(void* /*context*/, int32_t /*level*/) { return 1; }

}  // namespace lds::conformance_detail
