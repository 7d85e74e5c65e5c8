// main.cpp: lds-torture, the driver. Plays seeded random schedules against a real `lds-host serve`
// and checks invariants after every step; see docs/testing.md, "Torture test".
//
//   lds-torture [--seeds FIRST-LAST]  the fixed seed list, or the part of it from FIRST to LAST
//                                     (ctest runs two halves side by side: a seed mostly waits)
//   lds-torture --replay SEED [--steps N] [--verbose]
//   lds-torture --shrink SEED [--steps N]
//   lds-torture --regressions         the shrunk schedules of fixed defects
//   lds-torture --self-test           changes data behind the broker's back; the checker must see
//   it LDS_TORTURE_MINUTES=N lds-torture new seeds for N minutes (a soak)
//   --unprivileged (with any of those)  as root, drops to user nobody first: the run a user
//                                       without root gets (plain temp folders, no disk faults)
#include <grp.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "environment.h"
#include "kafka_client.h"
#include "model/record_batch.h"
#include "regressions.h"
#include "runner.h"
#include "schedule.h"

namespace lds::torture {
namespace {

using Clock = std::chrono::steady_clock;

// About three minutes in all on the development machine, one seed after another.
constexpr uint64_t kFixedSeeds[] = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 11, 12, 13, 14, 15,
                                    16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30};
constexpr size_t kDefaultSteps = 200;

RunOptions options_from_env() {
  RunOptions o;
  const char* host = std::getenv("LDS_TORTURE_HOST");
  const char* plugins = std::getenv("LDS_PLUGIN_DIR");
  o.host = host != nullptr ? host : LDS_HOST_EXE;
  o.plugin_dir = plugins != nullptr ? plugins : LDS_BUILD_PLUGIN_DIR;
  o.hostile_plugin_dir = LDS_BAD_PLUGIN_DIR;
  o.forbid_plugin_dir = LDS_FORBID_PLUGIN_DIR;
  if (std::string why = kafka_client_problem(LDS_KAFKA_PRODUCE); why.empty()) {
    o.kafka_client = LDS_KAFKA_PRODUCE;
  } else {
    std::printf("%s: the kafka-produce steps are skipped\n", why.c_str());
  }
  return o;
}

bool as_root() { return ::geteuid() == 0; }

void print_schedule(const std::vector<Step>& steps, size_t upto) {
  for (size_t i = 0; i <= upto && i < steps.size(); ++i) {
    std::printf("  %3zu %s\n", i, describe(steps[i]).c_str());
  }
}

// One seed; prints the seed, the violation and the schedule so far on failure.
bool run_seed(uint64_t seed, size_t steps, const RunOptions& options) {
  const std::vector<Step> schedule = make_schedule(seed, steps, as_root());
  const auto start = Clock::now();
  Outcome out;
  try {
    out = run_schedule(schedule, options);
  } catch (const std::exception& e) {
    out = {std::string("setup failed: ") + e.what(), 0, ""};
  }
  const double secs = std::chrono::duration<double>(Clock::now() - start).count();
  if (!out.failed()) {
    std::printf("seed %llu: %zu steps, every invariant held (%.1f s) [%s]\n",
                static_cast<unsigned long long>(seed), steps, secs, out.stats.c_str());
    return true;
  }
  std::printf("seed %llu FAILED at step %zu of %zu: %s\nschedule so far:\n",
              static_cast<unsigned long long>(seed), out.step, steps, out.violation.c_str());
  print_schedule(schedule, out.step);
  std::printf("replay: lds-torture --replay %llu --steps %zu\n",
              static_cast<unsigned long long>(seed), steps);
  return false;
}

// The kind of a violation: its text up to the first path or number, so shrinking keeps the same
// failure rather than any failure.
std::string violation_kind(const std::string& v) {
  const size_t end = v.find_first_of("/0123456789");
  return v.substr(0, std::min<size_t>(end, 40));
}

int shrink(uint64_t seed, size_t steps, const RunOptions& options) {
  std::vector<Step> schedule = make_schedule(seed, steps, as_root());
  Outcome first = run_schedule(schedule, options);
  if (!first.failed()) {
    std::printf("seed %llu passes with %zu steps: nothing to shrink\n",
                static_cast<unsigned long long>(seed), steps);
    return 0;
  }
  const std::string kind = violation_kind(first.violation);
  schedule.resize(std::min(schedule.size(), first.step + 1));
  std::printf("seed %llu fails at step %zu: %s\nshrinking...\n",
              static_cast<unsigned long long>(seed), first.step, first.violation.c_str());
  // Drops chunks, halving their size, while the same kind of violation remains.
  for (size_t chunk = schedule.size() / 2; chunk >= 1; chunk /= 2) {
    for (size_t at = 0; at < schedule.size();) {
      std::vector<Step> trial = schedule;
      trial.erase(trial.begin() + static_cast<long>(at),
                  trial.begin() + static_cast<long>(std::min(at + chunk, trial.size())));
      const Outcome o = run_schedule(trial, options);
      if (o.failed() && violation_kind(o.violation) == kind) {
        schedule = trial;
        first = o;
        std::printf("  %zu steps still fail\n", schedule.size());
      } else {
        at += chunk;
      }
    }
    if (chunk == 1) break;
  }
  std::printf("shortest schedule (%zu steps) failing with: %s\n", schedule.size(),
              first.violation.c_str());
  std::printf("// Paste into tests/torture/regressions.cpp:\n{\"seed %llu: %s\",\n {",
              static_cast<unsigned long long>(seed), kind.c_str());
  for (size_t i = 0; i < schedule.size(); ++i) {
    std::printf("%s%s", i == 0 ? "" : ",\n  ", as_code(schedule[i]).c_str());
  }
  std::printf("}},\n");
  return 1;
}

int run_regressions(const RunOptions& options) {
  int failed = 0;
  for (const auto& r : regressions()) {
    if (!r.pause_point.empty()) ::setenv("LDS_PAUSE_POINT", r.pause_point.c_str(), 1);
    const Outcome o = run_schedule(r.steps, options);
    ::unsetenv("LDS_PAUSE_POINT");
    std::printf("regression '%s': %s\n", r.name.c_str(),
                o.failed() ? o.violation.c_str() : "every invariant held");
    failed += o.failed() ? 1 : 0;
  }
  std::printf("%zu passed, %d failed\n", regressions().size() - static_cast<size_t>(failed),
              failed);
  return failed == 0 ? 0 : 1;
}

// The checker's verdict on a partition t0-0 that was written by `steps` and then changed behind
// the broker's back by `corrupt` (given the segment); "" when the setup itself failed, printed.
std::string verdict_after(const RunOptions& options, const std::vector<Step>& steps,
                          const std::function<void(const fs::path&)>& corrupt) {
  Environment env(options.host, options.plugin_dir);
  RunOptions shipped_only = options;
  shipped_only.hostile_plugin_dir.clear();
  shipped_only.forbid_plugin_dir.clear();
  Runner runner(env, shipped_only);
  if (std::string p = env.start(); !p.empty()) {
    std::printf("self-test: start failed: %s\n", p.c_str());
    return "";
  }
  for (const Step& s : steps) {
    if (std::string p = runner.execute(s); !p.empty()) {
      std::printf("self-test: %s failed: %s\n", describe(s).c_str(), p.c_str());
      return "";
    }
  }
  if (std::string p = runner.settled_check(); !p.empty()) {
    std::printf("self-test: the untouched partition fails the check: %s\n", p.c_str());
    return "";
  }
  for (const auto& dir : env.log_dirs()) {
    const fs::path segment = dir / "t0-0" / "00000000000000000000.log";
    if (fs::exists(segment)) corrupt(segment);
  }
  return runner.settled_check();
}

// Flips one byte of a segment: the batch's CRC no longer matches.
void flip_byte(const fs::path& segment) {
  std::fstream f(segment, std::ios::in | std::ios::out | std::ios::binary);
  f.seekg(1000);
  const char c = static_cast<char>(f.get());
  f.seekp(1000);
  f.put(static_cast<char>(c ^ 0x5a));
}

// Changes a byte of the value of the Kafka client's first message (key "k1") and gives its batch
// the CRC of the new bytes: a whole, valid log holding a record other than the one acknowledged.
void rewrite_client_record(const fs::path& segment) {
  std::string bytes;
  {
    std::ifstream in(segment, std::ios::binary);
    bytes.assign(std::istreambuf_iterator<char>(in), {});
  }
  for (size_t at = 0; at < bytes.size();) {
    const std::string_view batch = std::string_view(bytes).substr(at);
    const kafka::RecordBatchHeader h = kafka::read_batch_header(batch);
    const std::string_view whole = batch.substr(0, h.size_in_bytes());
    const auto records = kafka::read_records(whole);
    const bool has_key = std::any_of(records.begin(), records.end(),
                                     [](const kafka::Record& r) { return r.key == "k1"; });
    // Keys are letters and digits, values letters only: "k1" first occurs as the key.
    const size_t key = has_key ? whole.find("k1") : std::string_view::npos;
    if (key != std::string_view::npos) {
      bytes[at + key + 5] ^= 0x01;  // past the key and the value's length: inside the value
      const uint32_t crc = kafka::compute_batch_crc(std::string_view(bytes).substr(at));
      for (int i = 0; i < 4; ++i) {
        bytes[at + kafka::kBatchCrcOffset + static_cast<size_t>(i)] =
            static_cast<char>(crc >> (24 - 8 * i));
      }
      break;
    }
    at += h.size_in_bytes();
  }
  std::ofstream(segment, std::ios::binary | std::ios::trunc) << bytes;
}

// Writes data, then changes it behind the broker's back, and expects the checker to name that
// partition: the checker can fail. Once with a flipped byte (a bad CRC); once, when the Kafka
// client can run, with a client's record rewritten under a valid CRC.
int self_test(const RunOptions& options) {
  int failed = 0;
  const std::string flipped = verdict_after(
      options, {Step{Kind::kCreate, 0, 0, 0}, Step{Kind::kProduce, 0, 2, 0}}, flip_byte);
  const bool caught_flip = flipped.find("t0-0") != std::string::npos &&
                           flipped.find("not on disk as written") != std::string::npos;
  std::printf("self-test: after a corrupted byte the checker says: %s\n", flipped.c_str());
  failed += caught_flip ? 0 : 1;
  int ran = 1;
  if (!options.kafka_client.empty()) {
    ++ran;
    const std::string rewritten =
        verdict_after(options,
                      {Step{Kind::kCreate, 0, 0, 0}, Step{Kind::kProduce, 0, 0, 0},
                       Step{Kind::kKafkaProduce, 0, 9, 1}},
                      rewrite_client_record);
    const bool caught = rewritten.find("t0-0") != std::string::npos &&
                        rewritten.find("not the one the client was told") != std::string::npos;
    std::printf("self-test: after a client's record was rewritten the checker says: %s\n",
                rewritten.c_str());
    failed += caught ? 0 : 1;
  }
  std::printf("%d passed, %d failed\n", ran - failed, failed);
  return failed == 0 ? 0 : 1;
}

constexpr int kSkipped = 77;  // ctest's SKIP_RETURN_CODE for the torture_unprivileged suite
constexpr uid_t kNobody = 65534;

// As root, becomes user and group nobody (65534) for good; "" or why not. A path the run needs
// that nobody cannot read makes it return kSkipped instead, saying which.
std::string drop_root(const RunOptions& options, int* code) {
  *code = 0;
  if (::geteuid() != 0) return "";
  if (::setgroups(0, nullptr) != 0 || ::setgid(kNobody) != 0 || ::setuid(kNobody) != 0) {
    *code = 1;
    return std::string("cannot become user nobody: ") + std::strerror(errno);
  }
  const std::pair<fs::path, int> needs[] = {{options.host, X_OK},
                                            {options.plugin_dir, R_OK | X_OK},
                                            {options.hostile_plugin_dir, R_OK | X_OK},
                                            {options.forbid_plugin_dir, R_OK | X_OK},
                                            {options.kafka_client, R_OK},
                                            {fs::temp_directory_path(), W_OK | X_OK}};
  for (const auto& [p, mode] : needs) {
    if (!p.empty() && ::access(p.c_str(), mode) != 0) {
      *code = kSkipped;
      return "skipped: user nobody cannot use " + p.string() + " (" + std::strerror(errno) + ")";
    }
  }
  return "";
}

int usage() {
  std::fprintf(
      stderr,
      "usage: lds-torture [--seeds FIRST-LAST | --replay SEED | --shrink SEED] [--steps N]\n"
      "                   [--verbose]\n"
      "       lds-torture --regressions | --self-test\n"
      "       add --unprivileged to run as user nobody when root\n"
      "       LDS_TORTURE_MINUTES=N lds-torture   (a soak on new seeds)\n");
  return 2;
}

int main_impl(int argc, char** argv) {
  RunOptions options = options_from_env();
  std::optional<uint64_t> replay;
  std::optional<uint64_t> shrink_seed;
  size_t steps = kDefaultSteps;
  bool regressions_only = false;
  bool self = false;
  bool unprivileged = false;
  uint64_t first_seed = 0;
  uint64_t last_seed = UINT64_MAX;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const bool has_value = i + 1 < argc;
    if (a == "--replay" && has_value) {
      replay = std::stoull(argv[++i]);
    } else if (a == "--seeds" && has_value) {
      const std::string range = argv[++i];
      const size_t dash = range.find('-');
      if (dash == std::string::npos || dash == 0 || dash + 1 == range.size() ||
          range.find_first_not_of("0123456789-") != std::string::npos) {
        std::fprintf(stderr, "lds-torture: --seeds takes FIRST-LAST, e.g. 1-15, not '%s'.\n",
                     range.c_str());
        return 2;
      }
      first_seed = std::stoull(range.substr(0, dash));
      last_seed = std::stoull(range.substr(dash + 1));
    } else if (a == "--shrink" && has_value) {
      shrink_seed = std::stoull(argv[++i]);
    } else if (a == "--steps" && has_value) {
      steps = std::stoull(argv[++i]);
    } else if (a == "--verbose") {
      options.verbose = true;
    } else if (a == "--regressions") {
      regressions_only = true;
    } else if (a == "--self-test") {
      self = true;
    } else if (a == "--unprivileged") {
      unprivileged = true;
    } else {
      return usage();
    }
  }
  if (unprivileged) {
    int code = 0;
    if (std::string why = drop_root(options, &code); !why.empty()) {
      std::printf("%s\n", why.c_str());
      return code;
    }
  }
  if (!as_root()) {
    std::printf(
        "not root: plain temp dirs instead of tmpfs disks; the fill-a-disk and "
        "read-only remount steps are skipped\n");
  }
  if (self) return self_test(options);
  if (regressions_only) return run_regressions(options);
  if (shrink_seed) return shrink(*shrink_seed, steps, options);
  if (replay) return run_seed(*replay, steps, options) ? 0 : 1;
  if (const char* minutes = std::getenv("LDS_TORTURE_MINUTES"); minutes != nullptr) {
    const auto end = Clock::now() + std::chrono::minutes(std::atoi(minutes));
    // New seeds each soak, printed so any one can be replayed.
    uint64_t seed = std::random_device{}() % 1000000000ull + 1000;
    const uint64_t first = seed;
    size_t runs = 0;
    size_t failed = 0;
    while (Clock::now() < end) {
      failed += run_seed(seed++, steps, options) ? 0 : 1;
      ++runs;
    }
    std::printf("soak: seeds %llu..%llu, %zu runs of %zu steps (%zu steps), %zu failed\n",
                static_cast<unsigned long long>(first), static_cast<unsigned long long>(seed - 1),
                runs, steps, runs * steps, failed);
    std::printf("%zu passed, %zu failed\n", runs - failed, failed);
    return failed == 0 ? 0 : 1;
  }
  size_t failed = 0;
  size_t runs = 0;
  for (uint64_t seed : kFixedSeeds) {
    if (seed < first_seed || seed > last_seed) continue;
    failed += run_seed(seed, steps, options) ? 0 : 1;
    ++runs;
  }
  if (runs == 0) {
    std::fprintf(stderr, "lds-torture: no fixed seed lies in %llu-%llu (they are %llu-%llu).\n",
                 static_cast<unsigned long long>(first_seed),
                 static_cast<unsigned long long>(last_seed),
                 static_cast<unsigned long long>(kFixedSeeds[0]),
                 static_cast<unsigned long long>(std::size(kFixedSeeds)));
    return 2;
  }
  std::printf("%zu passed, %zu failed\n", runs - failed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace
}  // namespace lds::torture

int main(int argc, char** argv) { return lds::torture::main_impl(argc, argv); }
