// Baseline for the simulator: HDFS's AvailableSpaceVolumeChoosingPolicy as a strategy plugin.
//
// Not shipped: it is built only into <build>/baseline_plugins so that the simulator can compare the
// project's strategies with what HDFS DataNodes do. The behaviour follows HDFS:
//   - a volume's available space is usable_bytes - reserved_bytes (HDFS subtracts the space held
//   for
//     replicas being written, reservedForRbw);
//   - when most - least available < balanced.space.threshold (10 GiB), pure round robin;
//   - otherwise volumes within the threshold of the least available one are "low", the rest "high";
//     a round robin over "high" is used when no low volume can hold block.bytes, or when a uniform
//     float from java.util.Random(seed) is below high*f / (high*f + low*(1-f)), f =
//     balanced.preference.fraction (0.75); otherwise a round robin over "low";
//   - each round robin keeps its own position and skips volumes with no more than block.bytes
//     available; when every volume is skipped the placement fails (DiskOutOfSpaceException).
// The chosen volume ranks first; the other volumes that can hold block.bytes follow by available
// space, most first, so a host that meets an I/O error still has somewhere to go.
//
// The random stream and the round-robin positions are shared state: rank takes a mutex. Only a
// placement (LDS_RANK_PLACE, or any call from a host older than ABI 1.2) moves them on; a dry run,
// a preview or a balancer call answers from a copy, as a DataNode would have chosen then.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "dir_ranking.h"
#include "error_text.h"
#include "option_table.h"
#include "strategy_skeleton.h"
#include <lds/logdir_strategy.h>

namespace {

using lds::plugin::byte_count_field;
using lds::plugin::dir_at;
using lds::plugin::Option;
using lds::plugin::StrategySpec;
using lds::plugin::write_error;

constexpr const char* kName = "hdfs_available_space";

// java.util.Random: the 48-bit linear congruential generator, so a seed gives HDFS's own stream.
class JavaRandom {
 public:
  explicit JavaRandom(uint64_t seed) : state_((seed ^ kMultiplier) & kMask) {}
  float next_float() { return static_cast<float>(next(24)) / static_cast<float>(1 << 24); }

 private:
  static constexpr uint64_t kMultiplier = 0x5DEECE66Dull;
  static constexpr uint64_t kMask = (1ull << 48) - 1;
  uint32_t next(int bits) {
    state_ = (state_ * kMultiplier + 0xBull) & kMask;
    return static_cast<uint32_t>(state_ >> (48 - bits));
  }
  uint64_t state_;
};

struct HdfsOptions {
  uint64_t seed;
  uint64_t threshold;    // dfs...balanced-space-threshold
  float preference;      // dfs...balanced-space-preference-fraction
  uint64_t block_bytes;  // dfs.blocksize: the replica size asked for
};

lds_status preference_fraction_field(const lds_config_entry& entry, HdfsOptions& options,
                                     char* error, uint32_t error_cap) {
  char* end = nullptr;
  errno = 0;
  const double parsed = std::strtod(entry.value, &end);
  if (errno == 0 && end != entry.value && *end == '\0' && std::isfinite(parsed) && parsed >= 0 &&
      parsed <= 1) {
    options.preference = static_cast<float>(parsed);
    return LDS_OK;
  }
  write_error(error, error_cap, "invalid value '%s' for option %s: expected a number from 0 to 1",
              entry.value, entry.key);
  return LDS_ERR_INVALID_ARGUMENT;
}

// HDFS's defaults: a 10 GiB balanced-space threshold, a 0.75 preference, 128 MiB blocks.
constexpr Option<HdfsOptions> kOptions[] = {
    {"seed", "0", byte_count_field<&HdfsOptions::seed>},
    {"balanced.space.threshold", "10737418240", byte_count_field<&HdfsOptions::threshold>},
    {"balanced.preference.fraction", "0.75", preference_fraction_field},
    {"block.bytes", "134217728", byte_count_field<&HdfsOptions::block_bytes>},
};

// What a choice reads and moves on.
struct HdfsState {
  JavaRandom random;
  // RoundRobinVolumeChoosingPolicy positions: balanced, high available, low available.
  size_t balanced_next = 0, high_next = 0, low_next = 0;
};

struct HdfsStrategy {
  explicit HdfsStrategy(const HdfsOptions& o) : options(o), state{JavaRandom(o.seed)} {}
  const HdfsOptions options;
  std::mutex mu;  // guards state
  HdfsState state;
};

struct Volume {
  uint32_t index;
  uint64_t available;
};

// RoundRobinVolumeChoosingPolicy.chooseVolume: the first volume from the saved position on that
// has more than block_bytes available; advances the position past it. Returns -1 when none has.
int64_t round_robin(const std::vector<Volume>& volumes, size_t& next, uint64_t block_bytes) {
  if (volumes.empty()) return -1;
  size_t current = next < volumes.size() ? next : 0;
  const size_t start = current;
  for (;;) {
    const Volume& v = volumes[current];
    current = (current + 1) % volumes.size();
    if (v.available > block_bytes) {
      next = current;
      return v.index;
    }
    if (current == start) return -1;
  }
}

// AvailableSpaceVolumeChoosingPolicy.chooseVolume; -1 when no volume can take a block.
int64_t choose(const HdfsOptions& o, HdfsState& s, const std::vector<Volume>& all) {
  uint64_t least = UINT64_MAX, most = 0;
  for (const Volume& v : all) {
    least = std::min(least, v.available);
    most = std::max(most, v.available);
  }
  if (most - least < o.threshold) return round_robin(all, s.balanced_next, o.block_bytes);
  const uint64_t low_limit = least > UINT64_MAX - o.threshold ? UINT64_MAX : least + o.threshold;
  std::vector<Volume> high, low;
  uint64_t most_among_low = 0;
  for (const Volume& v : all) {
    if (v.available <= low_limit) {
      low.push_back(v);
      most_among_low = std::max(most_among_low, v.available);
    } else {
      high.push_back(v);
    }
  }
  const float scaler = static_cast<float>(high.size()) * o.preference +
                       static_cast<float>(low.size()) * (1 - o.preference);
  const float preference = static_cast<float>(high.size()) * o.preference / scaler;
  if (most_among_low < o.block_bytes || s.random.next_float() < preference) {
    return round_robin(high, s.high_next, o.block_bytes);
  }
  return round_robin(low, s.low_next, o.block_bytes);
}

lds_status rank_volumes(HdfsStrategy& strategy, lds_rank_args& args) {
  std::vector<Volume> volumes;
  volumes.reserve(args.dir_count);
  for (uint32_t i = 0; i < args.dir_count; ++i) {
    const lds_dir& d = dir_at(args, i);
    const bool known = (d.flags & LDS_DIR_SPACE_UNKNOWN) == 0;
    const uint64_t usable = known ? d.usable_bytes : 0;
    volumes.push_back({i, usable > d.reserved_bytes ? usable - d.reserved_bytes : 0});
  }
  const bool placing = !LDS_RANK_ARGS_HAVE_PURPOSE(&args) || args.purpose == LDS_RANK_PLACE;
  int64_t chosen;
  {
    std::lock_guard lock(strategy.mu);
    HdfsState copy = strategy.state;
    chosen = choose(strategy.options, placing ? strategy.state : copy, volumes);
  }
  const uint64_t block = strategy.options.block_bytes;
  if (chosen < 0) {
    write_error(args.error, args.error_cap,
                "strategy %s: out of space: no volume has more than block.bytes=%llu bytes "
                "available",
                kName, static_cast<unsigned long long>(block));
    return LDS_ERR_NO_ELIGIBLE_DIR;
  }
  std::stable_sort(volumes.begin(), volumes.end(),
                   [](const Volume& a, const Volume& b) { return a.available > b.available; });
  uint32_t n = 0;
  args.order[n++] = static_cast<uint32_t>(chosen);
  for (const Volume& v : volumes) {
    if (v.index != static_cast<uint32_t>(chosen) && v.available > block) args.order[n++] = v.index;
  }
  args.order_len = n;
  return LDS_OK;
}

constexpr StrategySpec<HdfsOptions, HdfsStrategy> kHdfsStrategy = {
    .name = kName,
    .version = "1.0.0",
    .description =
        "Baseline for comparison: HDFS AvailableSpaceVolumeChoosingPolicy (round robin, "
        "preferring volumes with much more available space).",
    .capabilities = LDS_CAP_USES_SPACE | LDS_CAP_USES_RESERVATIONS,
    .options = kOptions,
    .rank = rank_volumes,
};

}  // namespace

LDS_PLUGIN_STRATEGY(kHdfsStrategy)
