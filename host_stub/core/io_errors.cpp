// io_errors.cpp: tells a disk's failure from the process running short of descriptors or memory.
#include "core/io_errors.h"

#include <cerrno>
#include <cstring>

namespace lds {

bool is_resource_shortage(int error_number) noexcept {
  switch (error_number) {
    case EMFILE:
    case ENFILE:
    case ENOMEM:
    case ENOBUFS:
      return true;
    default:
      return false;
  }
}

std::string resource_shortage_text(int error_number) {
  const char* what =
      error_number == ENOMEM || error_number == ENOBUFS ? "memory" : "file descriptors";
  return std::string("the broker is short of ") + what + " (" + std::strerror(error_number) + ")";
}

}  // namespace lds
