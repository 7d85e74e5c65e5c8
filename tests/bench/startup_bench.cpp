// startup_bench.cpp: a LogManager start over many hosted partitions, after a clean shutdown and
// after a kill -9, against the floor of any start: `find | xargs stat` of the same tree.
//
// The tree: 4 log dirs holding `partitions` partitions between them, each with one segment of a few
// record batches (a copy of the segment LogManager wrote for a seed partition). The three are timed
// in turns (floor, unclean, clean, floor, ...) so that drift of the machine hits all of them:
//   floor    find <dirs> -print0 | xargs -0 stat > /dev/null: every entry listed and stat'ed once;
//   unclean  LogManager construction and startup() with no clean-shutdown marker, as after a
//            kill -9: the last segment of every partition is read through;
//   clean    the same after LogManager::shutdown() recorded the recovery points and the marker.
// Wall time; the figures are the medians.
//
// Usage: startup_bench [partitions=50000] [rounds=3]. The tree goes under $LDS_BENCH_DIR, else the
// system temp folder, and is removed afterwards. Prints one JSON object.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "bench_support.h"
#include "io/disk_probe.h"
#include "storage/log_manager.h"
#include "strategy/strategy_slot.h"
#include "util/logging.h"

namespace {

namespace fs = std::filesystem;
using lds::bench::check;
using lds::bench::make_scratch_dir;
using lds::bench::median;
using Clock = std::chrono::steady_clock;
constexpr int kDirs = 4;
constexpr uint64_t kSeedBytes = 4096;  // the seed partition's log: a few filler batches

double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

lds::LogManager::Options options_for(const std::vector<fs::path>& dirs) {
  lds::LogManager::Options options;
  options.log_dirs = dirs;
  return options;
}

// Writes meta.properties in each dir and one seed partition through LogManager; returns the bytes
// of the seed's segment.
std::string seed_segment(const std::vector<fs::path>& dirs) {
  lds::StrategySlot slot;
  lds::LogManager logs(options_for(dirs), std::make_shared<lds::StatvfsDiskProbe>(), slot);
  logs.startup();
  const lds::PlacementResult placed = logs.create_partition("seed", 0);
  logs.append("seed", 0, kSeedBytes);
  const fs::path segment = fs::path(placed.log_dir) / "seed-0" / "00000000000000000000.log";
  std::ifstream in(segment, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  check(bytes.size() == kSeedBytes, "reading the seed segment");
  fs::remove_all(fs::path(placed.log_dir) / "seed-0");
  return bytes;
}

void make_tree(const std::vector<fs::path>& dirs, int partitions, const std::string& segment) {
  for (int p = 0; p < partitions; ++p) {
    std::string name = "bench-";  // appended: GCC 12 -O3 sees a false -Wrestrict in "..." + s
    name += std::to_string(p);
    const fs::path dir = dirs[static_cast<size_t>(p % kDirs)] / name;
    check(::mkdir(dir.c_str(), 0755) == 0, "mkdir");
    const fs::path file = dir / "00000000000000000000.log";
    const int fd = ::open(file.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    check(fd >= 0, "create");
    check(::write(fd, segment.data(), segment.size()) == static_cast<ssize_t>(segment.size()),
          "write");
    ::close(fd);
  }
}

double floor_run(const std::vector<fs::path>& dirs) {
  std::string command = "find";
  for (const fs::path& d : dirs) {
    command += " '";
    command += d.string();
    command += "'";
  }
  command += " -print0 | xargs -0 stat > /dev/null";
  const auto start = Clock::now();
  check(std::system(command.c_str()) == 0, command);
  return seconds_since(start);
}

// One start; `clean_after` records a clean shutdown before the LogManager goes.
double start_run(const std::vector<fs::path>& dirs, int partitions, bool clean_after) {
  lds::StrategySlot slot;
  const auto start = Clock::now();
  double took = 0;
  {
    lds::LogManager logs(options_for(dirs), std::make_shared<lds::StatvfsDiskProbe>(), slot);
    logs.startup();
    took = seconds_since(start);
    check(logs.partition_count() == static_cast<size_t>(partitions), "counting the partitions");
    if (clean_after) logs.shutdown();
  }
  return took;
}

}  // namespace

int main(int argc, char** argv) {
  const int partitions = argc > 1 ? std::atoi(argv[1]) : 50000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 3;
  lds::set_log_level("warn");
  const fs::path tmp = make_scratch_dir("lds-startup");
  std::vector<double> floor, unclean, clean;
  try {
    std::vector<fs::path> dirs;
    for (int d = 0; d < kDirs; ++d) {
      std::string name = "d";
      name += std::to_string(d);
      dirs.push_back(tmp / name);
      fs::create_directories(dirs.back());
    }
    make_tree(dirs, partitions, seed_segment(dirs));
    for (int r = 0; r < rounds; ++r) {
      floor.push_back(floor_run(dirs));
      unclean.push_back(start_run(dirs, partitions, true));  // no marker yet: read through
      clean.push_back(start_run(dirs, partitions, false));   // the marker the last one left
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "startup_bench: %s\n", e.what());
    fs::remove_all(tmp);
    return 1;
  }
  fs::remove_all(tmp);
  std::printf(
      "{\"partitions\": %d, \"rounds\": %d, \"floor_s\": %.4f, \"unclean_s\": %.4f, "
      "\"clean_s\": %.4f}\n",
      partitions, rounds, median(floor), median(unclean), median(clean));
  return 0;
}
