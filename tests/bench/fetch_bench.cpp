// fetch_bench.cpp: a Fetch at any offset of one large segment of small batches, found through the
// segment's offset index, against a Fetch at the read hint (a consumer reading on from where its
// last Fetch ended, which needs no search at all).
//
// The segment: `mib` MiB of batches of one 20-byte record (88 bytes each), written through
// PartitionLog::append a MiB at a time, with Kafka's default index interval (4096 bytes). Then, in
// turns over `reads` random offsets:
//   far   a read of 64 KiB at a random offset, the hint elsewhere: the index's binary search, then
//         at most an interval of headers walked;
//   hint  a read of 64 KiB at the offset where the previous read ended.
// And once: the index rebuilt from the segment (the files removed, the next read rebuilds them),
// what a missing or damaged index costs once.
//
// Usage: fetch_bench [mib=1024] [reads=2000]. The segment goes under $LDS_BENCH_DIR, else the
// system temp folder, and is removed afterwards. Prints one JSON object; times in microseconds.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench_support.h"
#include "io/log_layout.h"
#include "model/record_batch.h"
#include "storage/partition_log.h"
#include "util/logging.h"

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;
constexpr uint64_t kFetchBytes = 64 << 10;

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

double percentile(std::vector<double> v, double p) {
  std::sort(v.begin(), v.end());
  return v[std::min(v.size() - 1, static_cast<size_t>(p * static_cast<double>(v.size())))];
}

}  // namespace

int main(int argc, char** argv) {
  const uint64_t mib = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
  const int reads = argc > 2 ? std::atoi(argv[2]) : 2000;
  lds::set_log_level("warn");
  const fs::path scratch = lds::bench::make_scratch_dir("lds-fetch-bench");
  const fs::path dir = scratch / "t-0";
  fs::create_directory(dir);
  std::ofstream(dir / lds::layout::segment_file(0));

  // One MiB of small batches, appended again and again.
  std::vector<lds::kafka::Record> one(1);
  one[0].value = std::string(20, 'v');
  const std::string batch = lds::kafka::build_batch(0, 1700000000000, one);
  std::string chunk;
  while (chunk.size() + batch.size() <= (uint64_t{1} << 20)) chunk += batch;
  lds::PartitionLog log = lds::PartitionLog::empty();
  const auto wrote = Clock::now();
  for (uint64_t i = 0; i < mib; ++i) {
    std::string bytes = chunk;
    log.append(dir, bytes, uint64_t{1} << 31);
  }
  const double write_s = micros_since(wrote) / 1e6;
  const int64_t end = log.log_end_offset();

  std::mt19937_64 rng(42);
  std::vector<double> far, hint;
  for (int i = 0; i < reads; ++i) {
    const int64_t at = static_cast<int64_t>(rng() % static_cast<uint64_t>(end - 1000));
    const auto t0 = Clock::now();
    const std::string a = log.read(dir, at, kFetchBytes);
    far.push_back(micros_since(t0));
    const int64_t next = lds::kafka::read_batch_header(a).base_offset +
                         static_cast<int64_t>(a.size() / batch.size());
    const auto t1 = Clock::now();
    const std::string b = log.read(dir, next, kFetchBytes);
    hint.push_back(micros_since(t1));
    lds::bench::check(
        !a.empty() && !b.empty() && lds::kafka::read_batch_header(b).base_offset == next,
        "a read that missed its offset");
  }

  // The index rebuilt from the segment: removed, then found missing by the next read.
  fs::remove(dir / "00000000000000000000.index");
  fs::remove(dir / "00000000000000000000.timeindex");
  lds::PartitionLog again = log;  // a copy reloads the active segment's index
  const auto rebuilt = Clock::now();
  (void)again.read(dir, end / 2, kFetchBytes);
  const double rebuild_s = micros_since(rebuilt) / 1e6;

  const double far_median = lds::bench::median(far);
  const double hint_median = lds::bench::median(hint);
  std::printf(
      "{\"segment_bytes\": %llu, \"batches\": %lld, \"fetch_bytes\": %llu, \"reads\": %d, "
      "\"write_s\": %.3f, \"far_us_median\": %.2f, \"far_us_p99\": %.2f, \"far_us_max\": %.2f, "
      "\"hint_us_median\": %.2f, \"hint_us_p99\": %.2f, \"rebuild_s\": %.3f}\n",
      static_cast<unsigned long long>(log.size_in_bytes()), static_cast<long long>(end),
      static_cast<unsigned long long>(kFetchBytes), reads, write_s, far_median,
      percentile(far, 0.99), percentile(far, 1.0), hint_median, percentile(hint, 0.99), rebuild_s);
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return 0;
}
