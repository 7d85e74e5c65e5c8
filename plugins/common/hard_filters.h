// Hard filters: named rules a directory must pass to be ranked at all. They run first; the soft
// orders of dir_ranking.h then sort only what is left.
#pragma once

#include <cstdint>

#include "dir_ranking.h"
#include <lds/logdir_strategy.h>

namespace lds::plugin {

// KIP-1066: a cordoned directory keeps its replicas but takes no new ones.
inline auto uncordoned() {
  return [](const lds_dir& dir, const Candidate& /*candidate*/) {
    return (dir.flags & LDS_DIR_CORDONED) == 0;
  };
}

// The directory still has keep_free_bytes free once the partition's expected bytes are placed
// (keep.free.bytes), counting reservations. Growth over a horizon only ranks; it never excludes.
inline auto keeps_free_bytes(uint64_t keep_free_bytes) {
  return [keep_free_bytes](const lds_dir& /*dir*/, const Candidate& candidate) {
    return candidate.free_after_placement >= keep_free_bytes;
  };
}

// Adds to candidates, in log.dirs order, every directory of args that passes all hard_filters,
// its keys projected horizon_seconds ahead at the directory's and the request's rates (0: today).
template <typename... HardFilters>
void add_candidates_at_horizon(const lds_rank_args& args, uint64_t horizon_seconds,
                               CandidateList& candidates, const HardFilters&... hard_filters) {
  const uint64_t expected_bytes = args.request->expected_bytes;
  const uint64_t rate = horizon_seconds > 0 ? request_rate(*args.request) : 0;
  for (uint32_t i = 0; i < args.dir_count; ++i) {
    const lds_dir& dir = dir_at(args, i);
    const Candidate candidate =
        make_candidate(dir, i, expected_bytes, horizon_growth(dir, rate, horizon_seconds));
    if ((hard_filters(dir, candidate) && ...)) candidates.add(candidate);
  }
}

// Adds to candidates, in log.dirs order, every directory of args that passes all hard_filters.
template <typename... HardFilters>
void add_candidates_passing(const lds_rank_args& args, CandidateList& candidates,
                            const HardFilters&... hard_filters) {
  add_candidates_at_horizon(args, 0, candidates, hard_filters...);
}

}  // namespace lds::plugin
