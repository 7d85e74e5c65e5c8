// creation_bench.cpp: creating partitions on real directories through LogManager, against a bare
// loop of the same system calls.
//
// The host path is LogManager::create_partition with the partition strategy loaded from its .so and
// the statvfs DiskProbe: placement decision, mkdir of <dir>/<topic>-<n>, create of the first
// segment file, fsync of the log directory, bookkeeping. The bare loop makes exactly those mkdir,
// open(O_CREAT|O_EXCL), close and open/fsync/close calls in the same round-robin directories and
// nothing else. The two alternate (bare, host, bare, host, ...) on fresh directories so that drift
// of the machine hits both; the figure is the ratio of the medians.
//
// Usage: creation_bench [partitions=10000] [rounds=2]. Directories go under $LDS_BENCH_DIR, else
// the system temp folder. Prints one JSON object. Needs LDS_PLUGIN_DIR.
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "bench_support.h"
#include "io/disk_probe.h"
#include "storage/log_manager.h"
#include "strategy/strategy_plugin.h"
#include "strategy/strategy_slot.h"
#include "util/logging.h"

namespace {

namespace fs = std::filesystem;
using lds::bench::check;
using lds::bench::make_scratch_dir;
using lds::bench::median;
using Clock = std::chrono::steady_clock;
constexpr int kDirs = 4;

std::vector<fs::path> make_dirs(const fs::path& root, const std::string& name) {
  std::vector<fs::path> dirs;
  for (int d = 0; d < kDirs; ++d) {
    dirs.push_back(root / (name + "-d" + std::to_string(d)));
    fs::create_directories(dirs.back());
    dirs.back() = fs::canonical(dirs.back());
  }
  return dirs;
}

double bare_loop(const fs::path& root, int partitions) {
  const std::vector<fs::path> dirs = make_dirs(root, "bare");
  const auto start = Clock::now();
  for (int p = 0; p < partitions; ++p) {
    const fs::path& parent = dirs[static_cast<size_t>(p % kDirs)];
    const fs::path dir = parent / ("bench-" + std::to_string(p));
    check(::mkdir(dir.c_str(), 0755) == 0, "mkdir");
    const fs::path segment = dir / "00000000000000000000.log";
    int fd = ::open(segment.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    check(fd >= 0, "create");
    ::close(fd);
    int dfd = ::open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    check(dfd >= 0, "open");
    check(::fsync(dfd) == 0, "fsync");
    ::close(dfd);
  }
  return std::chrono::duration<double>(Clock::now() - start).count();
}

double host_loop(const fs::path& root, int partitions) {
  lds::LogManager::Options options;
  options.log_dirs = make_dirs(root, "host");
  lds::StrategySlot slot;
  lds::LogManager logs(options, std::make_shared<lds::StatvfsDiskProbe>(), slot);
  logs.startup();
  lds::StrategyLoadSpec spec;
  spec.plugin_dir = fs::canonical(std::getenv("LDS_PLUGIN_DIR"));
  spec.name = "partition";
  slot.publish(logs.load_strategy(spec));
  const auto start = Clock::now();
  for (int p = 0; p < partitions; ++p) logs.create_partition("bench", p);
  return std::chrono::duration<double>(Clock::now() - start).count();
}

}  // namespace

int main(int argc, char** argv) {
  const int partitions = argc > 1 ? std::atoi(argv[1]) : 10000;
  const int rounds = argc > 2 ? std::atoi(argv[2]) : 2;
  if (std::getenv("LDS_PLUGIN_DIR") == nullptr) {
    std::fprintf(stderr, "creation_bench: set LDS_PLUGIN_DIR to the build's plugin folder.\n");
    return 2;
  }
  lds::set_log_level("warn");
  const fs::path tmp = make_scratch_dir("lds-creation");
  std::vector<double> bare, host;
  try {
    for (int r = 0; r < rounds; ++r) {
      const fs::path round = tmp / ("round" + std::to_string(r));
      bare.push_back(bare_loop(round, partitions));
      host.push_back(host_loop(round, partitions));
      fs::remove_all(round);
    }
  } catch (const std::exception& e) {
    std::fprintf(stderr, "creation_bench: %s\n", e.what());
    fs::remove_all(tmp);
    return 1;
  }
  fs::remove_all(tmp);
  const double b = median(bare), h = median(host);
  std::printf(
      "{\"partitions\": %d, \"rounds\": %d, \"dirs\": %d, \"bare_seconds\": %.6f, "
      "\"host_seconds\": %.6f, \"ratio\": %.4f, \"filesystem_root\": \"%s\"}\n",
      partitions, rounds, kDirs, b, h, h / b, tmp.parent_path().c_str());
  return 0;
}
