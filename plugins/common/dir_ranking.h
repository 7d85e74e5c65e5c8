// Ranking rules shared by the strategies: rank argument checks, candidate keys, the
// partition-count, fill and free orders, and writing the result into lds_rank_args.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include <lds/logdir_strategy.h>

namespace lds::plugin {

// The sizes of ABI 1.0's lds_dir and lds_request: the smallest a host may pass. Fields past them
// are read only through LDS_HAS_FIELD.
inline constexpr size_t kDirV10Size = offsetof(lds_dir, topic_partition_count) + sizeof(uint32_t);
inline constexpr size_t kRequestV10Size = offsetof(lds_request, expected_bytes) + sizeof(uint64_t);
// The fields of ABI 1.0's lds_rank_args (1.2 appended purpose and scores, read only through
// LDS_RANK_ARGS_HAVE_PURPOSE).
inline constexpr size_t kRankArgsV10Size = offsetof(lds_rank_args, error_cap) + sizeof(uint32_t);

// Exact 128-bit arithmetic for the fill fraction; __extension__ keeps -Wpedantic quiet.
__extension__ typedef unsigned __int128 Uint128;

// One eligible directory and the keys the rules sort on. Built by MakeCandidate.
struct Candidate {
  uint32_t index;                  // position in lds_rank_args.dirs (log.dirs order)
  uint32_t partition_count;        // lds_dir.partition_count
  uint32_t topic_partition_count;  // lds_dir.topic_partition_count
  uint64_t projected_free;         // usable - reserved - expected - growth, saturating at 0
  uint64_t free_after_placement;   // usable - reserved - expected, saturating at 0 (no growth)
  uint64_t total;                  // total_bytes; the fill keys are meaningful only when > 0
  Uint128 fill_whole;              // (total - usable + reserved + expected + growth) / total
  uint64_t fill_remainder;         // (total - usable + reserved + expected + growth) % total
  uint64_t free_bucket;            // set by SortByFreeBuckets
};

// Candidates of one rank call. Up to kInlineCapacity directories live in the object itself, so the
// common case does not touch the heap; more fall back to a vector.
class CandidateList {
 public:
  static constexpr size_t kInlineCapacity = 64;

  // Room for capacity candidates. Throws std::bad_alloc if a larger list cannot be allocated.
  explicit CandidateList(size_t capacity);
  CandidateList(const CandidateList&) = delete;
  CandidateList& operator=(const CandidateList&) = delete;

  void add(const Candidate& candidate) { data_[size_++] = candidate; }
  size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  Candidate* begin() { return data_; }
  Candidate* end() { return data_ + size_; }
  const Candidate* begin() const { return data_; }
  const Candidate* end() const { return data_ + size_; }

 private:
  std::array<Candidate, kInlineCapacity> inline_;
  std::vector<Candidate> heap_;
  Candidate* data_;
  size_t size_ = 0;
};

// Checks a rank call: instance and args non-NULL, args and request large enough for version 1.0,
// and, when dir_count > 0, dirs and order non-NULL, dir_stride at least the 1.0 lds_dir and a
// multiple of its alignment, and every entry's struct_size at least version 1.0 and at most
// dir_stride. Sets order_len to
// 0 when it can. Returns LDS_OK or LDS_ERR_INVALID_ARGUMENT with a sentence in args->error
// (nothing is written when args itself is unusable).
lds_status validate_rank_args(const void* instance, lds_rank_args* args,
                              const char* strategy) noexcept;

// Entry i of args->dirs, read by stride.
inline const lds_dir& dir_at(const lds_rank_args& args, uint32_t i) {
  return *LDS_DIR_AT(&args, i);
}

// The keys of dir at index for a partition of expected_bytes, projected growth_bytes ahead.
Candidate make_candidate(const lds_dir& dir, uint32_t index, uint64_t expected_bytes,
                         uint64_t growth_bytes = 0) noexcept;

// Whether every candidate of args carries a known append rate: the host sent bytes_in_per_sec
// (ABI 1.1) and did not flag it LDS_DIR_RATE_UNKNOWN.
bool rates_known(const lds_rank_args& args) noexcept;
// The request's expected_bytes_in_per_sec, 0 when the host sent none (ABI 1.0).
uint64_t request_rate(const lds_request& request) noexcept;
// What the directory and the new partition will add within horizon_seconds at their current
// rates: horizon_seconds * (bytes_in_per_sec + request_rate), saturating. 0 for a directory
// without a known rate.
uint64_t horizon_growth(const lds_dir& dir, uint64_t request_rate,
                        uint64_t horizon_seconds) noexcept;

// False when the host could not read the directory's space (LDS_DIR_SPACE_UNKNOWN) or reports a
// total of 0: the fill and free rules cannot rank it.
bool space_known(const lds_dir& dir) noexcept;

// Orders; every one ends with log.dirs order, so a tie keeps the input order and the result is a
// strict, deterministic order.
// partition_count ascending.
void sort_by_partition_count(CandidateList& candidates);
// topic_partition_count ascending, then partition_count ascending.
void sort_by_topic_then_partition_count(CandidateList& candidates);
// Projected fill fraction ascending, compared exactly; equal fractions go to fewer partitions.
void sort_by_fill(CandidateList& candidates);
// Projected free bytes descending, bucketed by (best - free) / (tie_bytes + 1); a bucket ranks as
// one value and its members go to fewer partitions.
void sort_by_free_buckets(CandidateList& candidates, uint64_t tie_bytes);

// Writes the candidates' indices into args->order, best first, sets order_len, returns LDS_OK.
lds_status write_order(const CandidateList& candidates, lds_rank_args* args) noexcept;

// The score name of the fill rule, and the score itself: the projected fill in percent, the key
// sort_by_fill compares. Written into args->scores for each candidate with a known total when the
// host passed scores (ABI 1.2); a no-op for an older host.
inline constexpr const char* kProjectedFillScore = "projected fill %";
void write_fill_scores(const CandidateList& candidates, lds_rank_args* args) noexcept;

// Returns LDS_ERR_NO_ELIGIBLE_DIR with "no candidate log directories were given to strategy s".
lds_status reject_no_candidates(lds_rank_args* args, const char* strategy) noexcept;

}  // namespace lds::plugin
