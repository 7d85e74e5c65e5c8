// battery.h: the candidate sets the rank checks call rank with: a fixed-seed generated battery and
// the empty list.
#pragma once

#include <string>
#include <vector>

#include <lds/logdir_strategy.h>

namespace lds::conformance_detail {

// One generated rank call: candidates (paths bound at call time) and a request.
struct CandidateSet {
  std::string label;
  std::vector<std::string> paths;
  std::vector<lds_dir> dirs;  // path left NULL here; filled in per call
  std::string topic;
  lds_request request{};
};

// The battery of rank_valid_orders: 1 to 64 directories with every flag and size profile. The seed
// is fixed and the generator platform-independent, so every run and every host asks the same.
std::vector<CandidateSet> make_battery();

// No candidates at all: the call that must fail with LDS_ERR_NO_ELIGIBLE_DIR.
CandidateSet empty_candidate_set();

}  // namespace lds::conformance_detail
