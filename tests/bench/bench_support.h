// bench_support.h: what the benchmarks on real directories share: a failed call ends the run, a
// scratch folder under $LDS_BENCH_DIR (else the temp folder), and the median of timed rounds.
#pragma once

#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

namespace lds::bench {

// Ends the run with perror(what) unless `ok`.
inline void check(bool ok, const std::string& what) {
  if (!ok) {
    std::perror(what.c_str());
    std::exit(1);
  }
}

// A new folder "<prefix>-XXXXXX" under $LDS_BENCH_DIR, else the system temp folder; the caller
// removes it.
inline std::filesystem::path make_scratch_dir(const std::string& prefix) {
  namespace fs = std::filesystem;
  const char* base = std::getenv("LDS_BENCH_DIR");
  std::string pattern = ((base ? fs::path(base) : fs::temp_directory_path()) / prefix).string();
  pattern += "-XXXXXX";
  check(::mkdtemp(pattern.data()) != nullptr, "mkdtemp");
  return pattern;
}

inline double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

}  // namespace lds::bench
