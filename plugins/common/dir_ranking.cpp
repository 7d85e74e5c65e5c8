// Candidate keys and the orders the strategies rank by, with exact integer arithmetic.
#include "dir_ranking.h"

#include <algorithm>
#include <cstddef>

#include "error_text.h"

namespace lds::plugin {
namespace {

uint64_t saturating_subtract(uint64_t a, uint64_t b) { return a > b ? a - b : 0; }

// The final key of every order: log.dirs order.
bool input_order_less(const Candidate& a, const Candidate& b) { return a.index < b.index; }

bool fewer_partitions_less(const Candidate& a, const Candidate& b) {
  if (a.partition_count != b.partition_count) return a.partition_count < b.partition_count;
  return input_order_less(a, b);
}

// whole_a + rem_a / total_a < whole_b + rem_b / total_b, exactly. Both remainders are below their
// totals, so the whole parts decide unless equal, and each cross product fits in 128 bits.
bool fill_fraction_less(const Candidate& a, const Candidate& b) {
  if (a.fill_whole != b.fill_whole) return a.fill_whole < b.fill_whole;
  return static_cast<Uint128>(a.fill_remainder) * b.total <
         static_cast<Uint128>(b.fill_remainder) * a.total;
}

bool fill_fraction_equal(const Candidate& a, const Candidate& b) {
  return a.fill_whole == b.fill_whole && static_cast<Uint128>(a.fill_remainder) * b.total ==
                                             static_cast<Uint128>(b.fill_remainder) * a.total;
}

}  // namespace

CandidateList::CandidateList(size_t capacity) {
  if (capacity > kInlineCapacity) {
    heap_.resize(capacity);
    data_ = heap_.data();
  } else {
    data_ = inline_.data();
  }
}

lds_status validate_rank_args(const void* instance, lds_rank_args* args,
                              const char* strategy) noexcept {
  if (args == nullptr || args->struct_size < kRankArgsV10Size) return LDS_ERR_INVALID_ARGUMENT;
  args->order_len = 0;
  auto fail = [&](const char* what) {
    write_error(args->error, args->error_cap, "strategy %s: invalid rank call: %s", strategy, what);
    return LDS_ERR_INVALID_ARGUMENT;
  };
  if (instance == nullptr) return fail("the instance is NULL");
  if (args->request == nullptr) return fail("request is NULL");
  if (args->request->struct_size < kRequestV10Size) {
    return fail("request struct_size is smaller than version 1.0 of lds_request");
  }
  if (args->dir_count == 0) return LDS_OK;
  if (args->dirs == nullptr) return fail("dirs is NULL but dir_count is not 0");
  if (args->order == nullptr) return fail("order is NULL but dir_count is not 0");
  if (args->dir_stride < kDirV10Size) {
    return fail("dir_stride is smaller than version 1.0 of lds_dir");
  }
  if (args->dir_stride % alignof(lds_dir) != 0) {
    return fail("dir_stride is not a multiple of the alignment of lds_dir");
  }
  for (uint32_t i = 0; i < args->dir_count; ++i) {
    const uint32_t size = dir_at(*args, i).struct_size;
    if (size < kDirV10Size || size > args->dir_stride) {
      write_error(args->error, args->error_cap,
                  "strategy %s: invalid rank call: dirs[%u] struct_size %u is %s (%zu bytes)",
                  strategy, i, size,
                  size < kDirV10Size ? "smaller than version 1.0 of lds_dir" : "above dir_stride",
                  size < kDirV10Size ? kDirV10Size : static_cast<size_t>(args->dir_stride));
      return LDS_ERR_INVALID_ARGUMENT;
    }
  }
  return LDS_OK;
}

Candidate make_candidate(const lds_dir& dir, uint32_t index, uint64_t expected_bytes,
                         uint64_t growth_bytes) noexcept {
  Candidate c{};
  c.index = index;
  c.partition_count = dir.partition_count;
  c.topic_partition_count = dir.topic_partition_count;
  c.free_after_placement = saturating_subtract(
      saturating_subtract(dir.usable_bytes, dir.reserved_bytes), expected_bytes);
  c.projected_free = saturating_subtract(c.free_after_placement, growth_bytes);
  c.total = dir.total_bytes;
  if (dir.total_bytes > 0) {
    // A host reporting usable > total is treated as an empty disk rather than wrapping around.
    const Uint128 used = saturating_subtract(dir.total_bytes, dir.usable_bytes);
    const Uint128 projected_used =
        used + dir.reserved_bytes + static_cast<Uint128>(expected_bytes) + growth_bytes;
    c.fill_whole = projected_used / dir.total_bytes;
    c.fill_remainder = static_cast<uint64_t>(projected_used % dir.total_bytes);
  }
  return c;
}

bool rates_known(const lds_rank_args& args) noexcept {
  for (uint32_t i = 0; i < args.dir_count; ++i) {
    const lds_dir* dir = LDS_DIR_AT(&args, i);
    if (!LDS_HAS_FIELD(dir, lds_dir, bytes_in_per_sec)) return false;
    if ((dir->flags & LDS_DIR_RATE_UNKNOWN) != 0) return false;
  }
  return true;
}

uint64_t request_rate(const lds_request& request) noexcept {
  if (!LDS_HAS_FIELD(&request, lds_request, expected_bytes_in_per_sec)) return 0;
  return request.expected_bytes_in_per_sec;
}

uint64_t horizon_growth(const lds_dir& dir, uint64_t request_rate,
                        uint64_t horizon_seconds) noexcept {
  if (horizon_seconds == 0) return 0;
  if (!LDS_HAS_FIELD(&dir, lds_dir, bytes_in_per_sec)) return 0;
  if ((dir.flags & LDS_DIR_RATE_UNKNOWN) != 0) return 0;
  const Uint128 rate = static_cast<Uint128>(dir.bytes_in_per_sec) + request_rate;
  const Uint128 growth = rate * horizon_seconds;
  return growth > UINT64_MAX ? UINT64_MAX : static_cast<uint64_t>(growth);
}

bool space_known(const lds_dir& dir) noexcept {
  return (dir.flags & LDS_DIR_SPACE_UNKNOWN) == 0 && dir.total_bytes > 0;
}

void sort_by_partition_count(CandidateList& candidates) {
  std::sort(candidates.begin(), candidates.end(), fewer_partitions_less);
}

void sort_by_topic_then_partition_count(CandidateList& candidates) {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.topic_partition_count != b.topic_partition_count) {
      return a.topic_partition_count < b.topic_partition_count;
    }
    return fewer_partitions_less(a, b);
  });
}

void sort_by_fill(CandidateList& candidates) {
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (!fill_fraction_equal(a, b)) return fill_fraction_less(a, b);
    return fewer_partitions_less(a, b);
  });
}

void sort_by_free_buckets(CandidateList& candidates, uint64_t tie_bytes) {
  uint64_t best = 0;
  for (const Candidate& c : candidates) best = std::max(best, c.projected_free);
  const Uint128 bucket_width = static_cast<Uint128>(tie_bytes) + 1;
  for (Candidate& c : candidates) {
    c.free_bucket = static_cast<uint64_t>((best - c.projected_free) / bucket_width);
  }
  std::sort(candidates.begin(), candidates.end(), [](const Candidate& a, const Candidate& b) {
    if (a.free_bucket != b.free_bucket) return a.free_bucket < b.free_bucket;
    return fewer_partitions_less(a, b);
  });
}

lds_status write_order(const CandidateList& candidates, lds_rank_args* args) noexcept {
  uint32_t written = 0;
  for (const Candidate& c : candidates) args->order[written++] = c.index;
  args->order_len = written;
  return LDS_OK;
}

void write_fill_scores(const CandidateList& candidates, lds_rank_args* args) noexcept {
  if (!LDS_RANK_ARGS_HAVE_PURPOSE(args) || args->scores == nullptr) return;
  for (const Candidate& c : candidates) {
    if (c.total == 0) continue;
    const double fraction = static_cast<double>(c.fill_whole) +
                            static_cast<double>(c.fill_remainder) / static_cast<double>(c.total);
    args->scores[c.index] = 100.0 * fraction;
  }
}

lds_status reject_no_candidates(lds_rank_args* args, const char* strategy) noexcept {
  args->order_len = 0;
  write_error(args->error, args->error_cap,
              "no candidate log directories were given to strategy %s", strategy);
  return LDS_ERR_NO_ELIGIBLE_DIR;
}

}  // namespace lds::plugin
