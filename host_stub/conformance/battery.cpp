// battery.cpp: the battery's generator, and the candidate sets it makes.
#include "conformance/battery.h"

#include <cstddef>
#include <cstdint>
#include <utility>

#include "util/splitmix.h"

namespace lds::conformance_detail {
namespace {

constexpr uint64_t kBatterySeed = 0x6c64732d636f6e66ull;
constexpr size_t kBatterySize = 96;
constexpr uint64_t kGiB = 1ull << 30;

// The battery's generator: util/splitmix.h's sequence, identical on every platform, with the two
// draws the battery needs.
class BatteryRandom {
 public:
  explicit BatteryRandom(uint64_t seed) : sequence_(seed) {}
  uint64_t next() { return sequence_.next(); }
  uint64_t below(uint64_t bound) { return bound == 0 ? 0 : next() % bound; }
  bool chance(unsigned percent) { return below(100) < percent; }

 private:
  SplitMix64 sequence_;
};

// A directory's flags under flag profile `profile`: none, some/all cordoned, some/all unknown,
// mixed.
uint32_t draw_flags(BatteryRandom& rng, size_t profile) {
  switch (profile) {
    case 1:
      return rng.chance(30) ? LDS_DIR_CORDONED : 0;
    case 2:
      return LDS_DIR_CORDONED;
    case 3:
      return rng.chance(25) ? LDS_DIR_SPACE_UNKNOWN : 0;
    case 4:
      return LDS_DIR_SPACE_UNKNOWN;
    case 5:
      return (rng.chance(30) ? LDS_DIR_CORDONED : 0) | (rng.chance(25) ? LDS_DIR_SPACE_UNKNOWN : 0);
    default:
      return 0;
  }
}

// A directory's sizes and partition count under size profile `profile`: random, all equal
// (`equal_total` and `equal_count`), extreme, tiny disks.
void draw_space(BatteryRandom& rng, size_t profile, uint64_t equal_total, uint32_t equal_count,
                lds_dir& dir) {
  switch (profile) {
    case 1:
      dir.total_bytes = equal_total;
      dir.usable_bytes = equal_total / 2;
      dir.partition_count = equal_count;
      break;
    case 2:
      dir.total_bytes = rng.chance(50) ? UINT64_MAX : (rng.chance(50) ? 0 : rng.next());
      dir.usable_bytes = rng.chance(50) ? dir.total_bytes : rng.below(dir.total_bytes);
      dir.reserved_bytes = rng.chance(50) ? UINT64_MAX / 2 : rng.next();
      dir.partition_count = rng.chance(50) ? UINT32_MAX : static_cast<uint32_t>(rng.next());
      break;
    case 3:
      dir.total_bytes = 1 + rng.below(64ull << 20);
      dir.usable_bytes = rng.below(dir.total_bytes + 1);
      dir.reserved_bytes = rng.below(dir.total_bytes * 2);
      dir.partition_count = static_cast<uint32_t>(rng.below(8));
      break;
    default:
      dir.total_bytes = (1 + rng.below(uint64_t{16} * 1024)) * kGiB;
      dir.usable_bytes = rng.below(dir.total_bytes + 1);
      dir.reserved_bytes = rng.chance(50) ? 0 : rng.below(dir.total_bytes / 4 + 1);
      dir.partition_count = static_cast<uint32_t>(rng.below(5000));
      break;
  }
}

// ABI 1.1: append rates, known or not, from idle to absurd: random, all/some unknown, all idle,
// extreme.
void draw_rate(BatteryRandom& rng, size_t profile, lds_dir& dir) {
  switch (profile) {
    case 1:
      dir.flags |= LDS_DIR_RATE_UNKNOWN;
      break;
    case 2:
      if (rng.chance(25)) dir.flags |= LDS_DIR_RATE_UNKNOWN;
      break;
    case 3:
      dir.bytes_in_per_sec = 0;
      break;
    case 4:
      dir.bytes_in_per_sec = rng.chance(50) ? UINT64_MAX : rng.next();
      break;
    default:
      dir.bytes_in_per_sec = rng.below(200ull << 20);
      break;
  }
  if ((dir.flags & LDS_DIR_RATE_UNKNOWN) == 0 && profile == 2) {
    dir.bytes_in_per_sec = rng.below(200ull << 20);
  }
}

// What varies with a candidate set's number: each profile cycles through its cases.
struct SetProfile {
  size_t flags;          // none, some/all cordoned, some/all unknown, mixed
  size_t size;           // random, all equal, extreme, tiny disks
  size_t rate;           // random, all/some unknown, all idle, extreme
  uint64_t equal_total;  // every directory's size, when `size` makes them all equal
  uint32_t equal_count;  // and its partition count
};

// One directory of a set: flags, space, then rates. The order of the draws is part of the battery,
// which every host must generate alike.
lds_dir make_dir(BatteryRandom& rng, const SetProfile& profile) {
  lds_dir dir{};
  dir.struct_size = sizeof(lds_dir);
  dir.flags = draw_flags(rng, profile.flags);
  draw_space(rng, profile.size, profile.equal_total, profile.equal_count, dir);
  if ((dir.flags & LDS_DIR_SPACE_UNKNOWN) != 0) dir.total_bytes = dir.usable_bytes = 0;
  dir.topic_partition_count =
      static_cast<uint32_t>(rng.below(static_cast<uint64_t>(dir.partition_count) + 1));
  draw_rate(rng, profile.rate, dir);
  return dir;
}

// Candidate set `n`'s request: its partition, expected size and expected append rate.
void draw_request(BatteryRandom& rng, size_t n, const SetProfile& profile, lds_request& request) {
  request.struct_size = sizeof(lds_request);
  request.partition = static_cast<int32_t>(rng.below(100000));
  switch (n % 4) {
    case 0:
      request.expected_bytes = 0;
      break;
    case 1:
      request.expected_bytes = rng.below(1024 * kGiB);
      break;
    case 2:
      request.expected_bytes = rng.below(16ull << 20);
      break;
    default:
      request.expected_bytes = profile.size == 2 ? (1ull << 62) : rng.below(kGiB);
      break;
  }
  switch (n % 3) {
    case 0:
      request.expected_bytes_in_per_sec = 0;
      break;
    case 1:
      request.expected_bytes_in_per_sec = rng.below(100ull << 20);
      break;
    default:
      request.expected_bytes_in_per_sec = profile.rate == 4 ? UINT64_MAX : rng.below(1 << 20);
      break;
  }
}

// Candidate set `n`, of `count` directories.
CandidateSet make_candidate_set(BatteryRandom& rng, size_t n, uint32_t count) {
  CandidateSet set;
  set.label = "candidate set " + std::to_string(n) + " (" + std::to_string(count) +
              (count == 1 ? " directory)" : " directories)");
  set.topic = "conformance.topic-" + std::to_string(n);
  SetProfile profile{n % 6, (n / 6) % 4, n % 5, 0, 0};
  profile.equal_total = (1 + rng.below(4096)) * kGiB;
  profile.equal_count = static_cast<uint32_t>(rng.below(500));
  for (uint32_t i = 0; i < count; ++i) {
    set.paths.push_back("/conformance/set" + std::to_string(n) + "/dir" + std::to_string(i));
    set.dirs.push_back(make_dir(rng, profile));
  }
  draw_request(rng, n, profile, set.request);
  return set;
}

}  // namespace

std::vector<CandidateSet> make_battery() {
  BatteryRandom rng(kBatterySeed);
  std::vector<uint32_t> counts = {1,  2,  3,  4,  5,  6,  7,  8,  9,  10, 12,
                                  15, 16, 17, 24, 31, 32, 33, 47, 48, 63, 64};
  while (counts.size() < kBatterySize) counts.push_back(static_cast<uint32_t>(1 + rng.below(64)));

  std::vector<CandidateSet> battery;
  battery.reserve(counts.size());
  for (size_t n = 0; n < counts.size(); ++n) {
    battery.push_back(make_candidate_set(rng, n, counts[n]));
  }
  return battery;
}

CandidateSet empty_candidate_set() {
  CandidateSet set;
  set.label = "an empty candidate list";
  set.topic = "conformance.empty";
  set.request.struct_size = sizeof(lds_request);
  return set;
}

}  // namespace lds::conformance_detail
