// io_errors.cpp: tells a disk's failure from the process running short of descriptors or memory.
#include "core/io_errors.h"

#include <cerrno>
#include <cstdio>
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

bool is_out_of_space(int error_number) noexcept {
  return error_number == ENOSPC || error_number == EDQUOT;
}

std::string byte_count_text(uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int unit = 0;
  while (v >= 1024.0 && unit < 6) {
    v /= 1024.0;
    ++unit;
  }
  char buf[48];
  if (unit == 0) {
    std::snprintf(buf, sizeof buf, "%llu B", static_cast<unsigned long long>(bytes));
  } else {
    std::snprintf(buf, sizeof buf, "%.1f %s", v, kUnits[unit]);
  }
  return buf;
}

std::string not_enough_space_to_move(const std::string& dir, const std::string& partition,
                                     uint64_t needed, uint64_t free) {
  return "Not enough space in " + dir + " to move " + partition + ": " + byte_count_text(needed) +
         " needed, " + byte_count_text(free) + " free.";
}

}  // namespace lds
