// simulator_limits_test.cpp: the bounds on a simulation's work: the size limits a trace must pass
// unless --force is given, and a forced run whose memory does not grow with its steps.
#include <gtest/gtest.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "byte_units.h"
#include "sim/simulator.h"
#include "sim/text.h"
#include "temp_dir.h"

namespace lds::sim {

namespace fs = std::filesystem;
namespace {

// LDS_PLUGIN_DIR (set by CTest), else this build's plugin folder.
std::string build_plugin_dir() {
  const char* dir = std::getenv("LDS_PLUGIN_DIR");
  return dir ? dir : LDS_BUILD_PLUGIN_DIR;
}

using test::TempDir;

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

// A trace of `steps` steps on `disks` disks of 1 TiB, with one topic of `partitions` partitions
// that write nothing: the replay still visits every partition at every step, cheaply.
fs::path write_trace(const fs::path& file, uint32_t steps, int disks, uint32_t partitions) {
  std::ofstream out(file);
  out << "[simulation]\nsteps = " << steps << "\nstrategies = [\"partition\"]\n";
  for (int i = 1; i <= disks; ++i)
    out << "\n[[disk]]\nname = \"d" << i << "\"\ncapacity = \"1TiB\"\n";
  out << "\n[[topic]]\nname = \"t\"\npartitions = " << partitions << "\nwrite_bytes_per_step = 0\n";
  return file;
}

struct Child {
  int exit_code = -1;  // -1 unless it exited
  uint64_t max_rss = 0;
  std::string out;  // stdout
  std::string err;  // stderr
};

// Runs lds-host with `args` and its outputs in `dir`, through wait4 to read its peak resident set
// size. A file size limit keeps a runaway run from filling the disk.
Child run_host(const std::vector<std::string>& args, const fs::path& dir) {
  const fs::path out = dir / "stdout", err = dir / "stderr";
  std::vector<char*> argv;
  std::string exe = LDS_HOST_EXE;
  argv.push_back(exe.data());
  std::vector<std::string> copy = args;
  for (std::string& a : copy) argv.push_back(a.data());
  argv.push_back(nullptr);
  const pid_t pid = ::fork();
  if (pid == 0) {
    const rlimit fsize{64 * kMiB, 64 * kMiB};
    const rlimit cpu{60, 60};
    if (::freopen(out.c_str(), "w", stdout) == nullptr ||
        ::freopen(err.c_str(), "w", stderr) == nullptr || ::setrlimit(RLIMIT_FSIZE, &fsize) != 0 ||
        ::setrlimit(RLIMIT_CPU, &cpu) != 0) {
      ::_exit(127);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  Child child;
  int status = 0;
  rusage usage{};
  pid_t waited;
  do {
    waited = ::wait4(pid, &status, 0, &usage);
  } while (waited < 0 && errno == EINTR);
  EXPECT_EQ(waited, pid);
  if (WIFEXITED(status)) child.exit_code = WEXITSTATUS(status);
  child.max_rss = static_cast<uint64_t>(usage.ru_maxrss) * 1024;  // Linux counts KiB
  child.out = read_file(out);
  child.err = read_file(err);
  return child;
}

Trace trace_of(uint32_t steps, size_t disks, std::vector<uint32_t> partitions) {
  Trace trace;
  trace.file = "/traces/big.toml";
  trace.steps = steps;
  trace.disks.resize(disks);
  for (uint32_t p : partitions) {
    TopicSpec topic;
    topic.partitions = p;
    trace.topics.push_back(topic);
  }
  return trace;
}

TEST(SimulatorLimits, MeasuresCsvCellsAndPartitionSteps) {
  const SimulationSize size = simulation_size(trace_of(1000, 7, {10, 5}), 3);
  EXPECT_EQ(size.csv_cells, 7u * 1000 * 3);
  EXPECT_EQ(size.partition_steps, 15u * 1000);
  EXPECT_EQ(grouped(0), "0");
  EXPECT_EQ(grouped(999), "999");
  EXPECT_EQ(grouped(1000), "1,000");
  EXPECT_EQ(grouped(2000000000), "2,000,000,000");
}

TEST(SimulatorLimits, RefusesOnlyPastALimit) {
  // 50 disks x 1,000,000 steps: at the limit with one strategy, past it with two.
  const Trace wide = trace_of(1000000, 50, {1});
  EXPECT_EQ(size_refusal(wide, simulation_size(wide, 1)), "");
  EXPECT_EQ(size_refusal(wide, simulation_size(wide, 2)),
            "Trace big.toml would write 100,000,000 per-step CSV cells (disks x steps x "
            "strategies), more than the limit of 50,000,000; pass --force to run it anyway.");
  // 500 partitions x 1,000,000 steps: at the limit; one more partition passes it.
  const Trace busy = trace_of(1000000, 1, {400, 100});
  EXPECT_EQ(size_refusal(busy, simulation_size(busy, 6)), "");
  const Trace busier = trace_of(1000000, 1, {400, 101});
  EXPECT_EQ(size_refusal(busier, simulation_size(busier, 6)),
            "Trace big.toml would replay 501,000,000 partition-steps (partitions x steps) per "
            "strategy, more than the limit of 500,000,000; pass --force to run it anyway.");
}

TEST(SimulatorLimits, ShippedTracesPassFarBelowTheLimits) {
  size_t count = 0;
  for (const fs::path& dir : {fs::path(LDS_CONF_SIM_DIR), fs::path(LDS_SIM_TRACE_DIR)}) {
    for (const auto& entry : fs::directory_iterator(dir)) {
      if (entry.path().extension() != ".toml") continue;
      SCOPED_TRACE(entry.path().string());
      const Trace trace = load_trace(entry.path());
      // Every built-in variant at once.
      const SimulationSize size = simulation_size(trace, builtin_variants(trace.seed).size());
      EXPECT_LE(size.csv_cells, kMaxCsvCells / 1000);
      EXPECT_LE(size.partition_steps, kMaxPartitionSteps / 1000);
      ++count;
    }
  }
  EXPECT_GE(count, 8u);
}

TEST(SimulatorLimits, CommandRefusesTooManyCsvCellsAndWritesNothing) {
  TempDir tmp;
  const fs::path trace = write_trace(tmp.path() / "big.toml", 1000000, 2000, 1);
  const Child child = run_host(
      {"simulate", "--trace", trace.string(), "--out", (tmp.path() / "out").string()}, tmp.path());
  EXPECT_EQ(child.exit_code, 2);
  EXPECT_EQ(
      child.err,
      "lds-host: Trace big.toml would write 2,000,000,000 per-step CSV cells (disks x steps x "
      "strategies), more than the limit of 50,000,000; pass --force to run it anyway.\n");
  EXPECT_EQ(child.out, "");
  EXPECT_FALSE(fs::exists(tmp.path() / "out"));
}

// 1,000,000 steps x 600 partitions passes the work limit while writing a CSV of about 30 MB: a run
// that kept its rows in memory would need that much more (and twice that while its buffer grows).
TEST(SimulatorLimits, ForcedRunStreamsItsCsvInBoundedMemory) {
  constexpr uint32_t kSteps = 1000000;
  // AddressSanitizer keeps freed blocks in a quarantine of up to 256 MiB, which a long run fills
  // and a short one does not: without it, both children measure what the host itself holds.
  const char* asan = std::getenv("ASAN_OPTIONS");
  const std::string saved_asan = asan ? asan : "";
  setenv("ASAN_OPTIONS",
         (saved_asan.empty() ? "" : saved_asan + ":").append("quarantine_size_mb=0").c_str(), 1);
  struct RestoreAsan {
    bool had;
    std::string value;
    ~RestoreAsan() { had ? setenv("ASAN_OPTIONS", value.c_str(), 1) : unsetenv("ASAN_OPTIONS"); }
  } restore{asan != nullptr, saved_asan};
  TempDir tmp;
  const fs::path trace = write_trace(tmp.path() / "long.toml", kSteps, 4, 600);
  const fs::path out = tmp.path() / "out";
  const std::vector<std::string> args = {"simulate",   "--trace",      trace.string(),    "--out",
                                         out.string(), "--plugin-dir", build_plugin_dir()};

  const Child refused = run_host(args, tmp.path());
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_EQ(refused.err,
            "lds-host: Trace long.toml would replay 600,000,000 partition-steps (partitions x "
            "steps) per strategy, more than the limit of 500,000,000; pass --force to run it "
            "anyway.\n");
  EXPECT_FALSE(fs::exists(out));

  std::vector<std::string> forced = args;
  forced.push_back("--force");
  const Child big = run_host(forced, tmp.path());
  ASSERT_EQ(big.exit_code, 0) << big.err;
  EXPECT_EQ(big.err, "");  // nothing on stderr, not even progress, when it is not a terminal
  const uint64_t csv_bytes = fs::file_size(out / "partition.csv");
  std::ifstream csv(out / "partition.csv");
  std::string line, last;
  std::getline(csv, line);
  EXPECT_EQ(line, "step,d1,d2,d3,d4");
  while (std::getline(csv, line)) last = line;
  EXPECT_EQ(last, "999999,0.000,0.000,0.000,0.000");
  fs::remove_all(out);

  // The same trace over 1,000 steps: what the host needs whatever the length. Sanitizer builds and
  // the size of this test process (counted in a child's peak until its exec) move both alike.
  write_trace(tmp.path() / "long.toml", 1000, 4, 600);
  const Child small = run_host(forced, tmp.path());
  ASSERT_EQ(small.exit_code, 0) << small.err;
  EXPECT_LT(big.max_rss, small.max_rss + 16 * kMiB)
      << "1,000 steps: " << small.max_rss / kMiB << " MiB, 1,000,000 steps: " << big.max_rss / kMiB
      << " MiB, for a CSV of " << csv_bytes / kMiB << " MiB";
  EXPECT_GT(csv_bytes, 16 * kMiB);
}

}  // namespace
}  // namespace lds::sim
