// io_errors.cpp: tells a disk's failure from the process running short of descriptors or memory.
#include "io/io_errors.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "util/byte_size.h"

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

bool is_name_too_long(int error_number) noexcept { return error_number == ENAMETOOLONG; }

std::string name_too_long_text(const std::string& what, const std::string& dir,
                               const std::string& path, int error_number) {
  return what + " in " + dir + ": the name " + path + " is too long for the filesystem (" +
         std::strerror(error_number) + "); the log directory stays online.";
}

bool is_out_of_space(int error_number) noexcept {
  return error_number == ENOSPC || error_number == EDQUOT;
}

std::string not_enough_space_to_move(const std::string& dir, const std::string& partition,
                                     uint64_t needed, uint64_t free) {
  return "Not enough space in " + dir + " to move " + partition + ": " + format_byte_size(needed) +
         " needed, " + format_byte_size(free) + " free.";
}

std::string out_of_space_text(int error_number) {
  const char* what = error_number == EDQUOT ? "its disk quota is spent" : "its filesystem is full";
  return std::string(what) + " (" + std::strerror(error_number) + ")";
}

std::string filesystem_full_for_move(const std::string& dir, const std::string& partition,
                                     int error_number) {
  return "Not enough space in " + dir + " to move " + partition + ": " +
         out_of_space_text(error_number) + ".";
}

bool is_out_of_space_for_move(const std::string& message) noexcept {
  return message.starts_with("Not enough space in ") &&
         message.find(" to move ") != std::string::npos;
}

}  // namespace lds
