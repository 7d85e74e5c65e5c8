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
  if (args == nullptr || args->struct_size < sizeof(lds_rank_args)) return LDS_ERR_INVALID_ARGUMENT;
  args->order_len = 0;
  auto fail = [&](const char* what) {
    write_error(args->error, args->error_cap, "strategy %s: invalid rank call: %s", strategy, what);
    return LDS_ERR_INVALID_ARGUMENT;
  };
  if (instance == nullptr) return fail("the instance is NULL");
  if (args->request == nullptr) return fail("request is NULL");
  if (args->request->struct_size < sizeof(lds_request)) {
    return fail("request struct_size is smaller than version 1 of lds_request");
  }
  if (args->dir_count == 0) return LDS_OK;
  if (args->dirs == nullptr) return fail("dirs is NULL but dir_count is not 0");
  if (args->order == nullptr) return fail("order is NULL but dir_count is not 0");
  if (args->dir_stride < sizeof(lds_dir)) {
    return fail("dir_stride is smaller than version 1 of lds_dir");
  }
  if (args->dir_stride % alignof(lds_dir) != 0) {
    return fail("dir_stride is not a multiple of the alignment of lds_dir");
  }
  for (uint32_t i = 0; i < args->dir_count; ++i) {
    if (dir_at(*args, i).struct_size < sizeof(lds_dir)) {
      write_error(args->error, args->error_cap,
                  "strategy %s: invalid rank call: dirs[%u] struct_size %u is smaller than version "
                  "1 of lds_dir (%zu bytes)",
                  strategy, i, dir_at(*args, i).struct_size, sizeof(lds_dir));
      return LDS_ERR_INVALID_ARGUMENT;
    }
  }
  return LDS_OK;
}

Candidate make_candidate(const lds_dir& dir, uint32_t index, uint64_t expected_bytes) noexcept {
  Candidate c{};
  c.index = index;
  c.partition_count = dir.partition_count;
  c.topic_partition_count = dir.topic_partition_count;
  c.projected_free = saturating_subtract(saturating_subtract(dir.usable_bytes, dir.reserved_bytes),
                                         expected_bytes);
  c.total = dir.total_bytes;
  if (dir.total_bytes > 0) {
    // A host reporting usable > total is treated as an empty disk rather than wrapping around.
    const Uint128 used = saturating_subtract(dir.total_bytes, dir.usable_bytes);
    const Uint128 projected_used = used + dir.reserved_bytes + expected_bytes;
    c.fill_whole = projected_used / dir.total_bytes;
    c.fill_remainder = static_cast<uint64_t>(projected_used % dir.total_bytes);
  }
  return c;
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

lds_status reject_no_candidates(lds_rank_args* args, const char* strategy) noexcept {
  args->order_len = 0;
  write_error(args->error, args->error_cap,
              "no candidate log directories were given to strategy %s", strategy);
  return LDS_ERR_NO_ELIGIBLE_DIR;
}

}  // namespace lds::plugin
