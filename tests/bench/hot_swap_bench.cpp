// hot_swap_bench.cpp: how long a live strategy swap takes, and what it does to placement latency.
//
// Two phases in one run, on the in-memory placement path (LogManager::choose, a fake DiskProbe):
//   steady: placer threads only;  swapping: the same placers while the control thread swaps
//   partition -> size -> cordon through IncrementalAlterConfigs, over and over.
// Prints swap time (median, p99) and placement p50/p99 in both phases with their ratios.
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <thread>
#include <vector>

#include "broker/broker.h"
#include "io/disk_probe.h"
#include "util/logging.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

class EqualDisks final : public lds::DiskProbe {
 public:
  lds::DiskSpace read(const fs::path&) const override { return {true, 1ull << 40, 1ull << 39}; }
};

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<size_t>(p * static_cast<double>(v.size() - 1))];
}

// Runs `threads` placers until `stop`; returns every call's latency in nanoseconds.
std::vector<double> place_until(lds::Broker& broker, int threads, std::atomic<bool>& stop) {
  std::vector<std::vector<double>> per(static_cast<size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      auto& out = per[static_cast<size_t>(t)];
      out.reserve(1 << 20);
      for (int i = 0; !stop.load(std::memory_order_relaxed); ++i) {
        auto start = Clock::now();
        (void)broker.logs().choose("bench", i);
        out.push_back(std::chrono::duration<double, std::nano>(Clock::now() - start).count());
      }
    });
  }
  for (auto& t : pool) t.join();
  std::vector<double> all;
  for (auto& v : per) all.insert(all.end(), v.begin(), v.end());
  return all;
}

}  // namespace

int main(int argc, char** argv) {
  const int swaps = argc > 1 ? std::atoi(argv[1]) : 600;
  const int threads = argc > 2 ? std::atoi(argv[2]) : 2;
  const char* plugins = std::getenv("LDS_PLUGIN_DIR");
  if (plugins == nullptr) {
    std::fprintf(stderr, "hot_swap_bench: set LDS_PLUGIN_DIR to the build's plugin folder.\n");
    return 2;
  }
  lds::set_log_level("warn");
  std::string pattern = (fs::temp_directory_path() / "lds-bench-XXXXXX").string();
  const fs::path tmp = ::mkdtemp(pattern.data());
  const fs::path config = tmp / "broker.toml";
  std::ofstream(config) << "log.dirs = [\"d1\", \"d2\", \"d3\", \"d4\"]\nplugin.dir = \""
                        << fs::absolute(plugins).string() << "\"\nlog.level = \"warn\"\n";
  int rc = 0;
  try {
    lds::Broker broker(config, std::make_shared<EqualDisks>());
    broker.start();

    // Steady state: as long as the swap phase will take, roughly.
    std::atomic<bool> stop{false};
    std::thread timer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(1500));
      stop = true;
    });
    std::vector<double> steady = place_until(broker, threads, stop);
    timer.join();

    std::vector<double> swap_ms;
    stop = false;
    std::thread control([&] {
      const char* names[] = {"partition", "size", "cordon"};
      for (int s = 0; s < swaps; ++s) {
        auto start = Clock::now();
        broker.alter_configs(
            {{"log.directory.select.strategy", lds::ConfigAlteration::Op::kSet, names[s % 3]}},
            lds::ConfigChangeSource::kAdminApi);
        swap_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - start).count());
      }
      stop = true;
    });
    std::vector<double> during = place_until(broker, threads, stop);
    control.join();

    const double s50 = percentile(steady, 0.5), s99 = percentile(steady, 0.99);
    const double d50 = percentile(during, 0.5), d99 = percentile(during, 0.99);
    std::printf("hot swap benchmark: %d swaps, %d placer threads, 4 log dirs\n", swaps, threads);
    std::printf("%-34s %12s %12s\n", "", "p50", "p99");
    std::printf("%-34s %9.3f ms %9.3f ms\n", "swap (load+validate+publish)",
                percentile(swap_ms, 0.5), percentile(swap_ms, 0.99));
    std::printf("%-34s %9.0f ns %9.0f ns   (%zu placements)\n", "placement, steady", s50, s99,
                steady.size());
    std::printf("%-34s %9.0f ns %9.0f ns   (%zu placements)\n", "placement, during swaps", d50, d99,
                during.size());
    std::printf("%-34s %11.2fx %11.2fx\n", "during / steady", d50 / s50, d99 / s99);
    std::printf("failed placements: 0 (a failure would have thrown)\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "hot_swap_bench: %s\n", e.what());
    rc = 1;
  }
  std::error_code ec;
  fs::remove_all(tmp, ec);
  return rc;
}
