// process_rss.h: a process's resident memory, what the tests that bound the broker's memory read.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <fstream>
#include <string>

namespace lds::test {

// VmRSS of process `pid`, in bytes; 0 when it cannot be read.
inline uint64_t rss_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6)) * 1024;
  }
  return 0;
}

}  // namespace lds::test
