// rank_call.h: one rank call made the way a host makes it, with canaries around what the plugin
// may write, and the verdict on what came back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conformance/battery.h"
#include "conformance/error_buffer.h"
#include "conformance/host_blocks.h"
#include "conformance/plugin_text.h"
#include <lds/logdir_strategy.h>

namespace lds::conformance_detail {

// What a host of ABI 1.0 or 1.1 leaves in the four bytes where lds_rank_args.purpose now lies (its
// tail padding, which it never writes): a value no purpose has, so a plugin that reads purpose
// without LDS_RANK_ARGS_HAVE_PURPOSE sees garbage, as it would on such a host.
inline constexpr uint32_t kPurposePoison = 0xA5A5A5A5u;

// What one rank call returned, and what it did wrong (empty fault when it kept to the contract).
struct RankCall {
  int32_t status = LDS_OK;
  std::vector<uint32_t> order;  // the first order_len entries when the status is LDS_OK
  std::string error;
  std::string fault;
  // For a valid LDS_OK answer from a host of ABI 1.2: scores[0..dir_count), NaN where the plugin
  // wrote none.
  std::vector<double> scores;

  bool same_answer(const RankCall& other) const {
    if (status != other.status) return false;
    return status != LDS_OK || order == other.order;
  }
};

// The answer for a detail: "order [..]" or the status and its quoted error.
std::string describe(const RankCall& outcome);

// "LDS_RANK_PREVIEW", or "the reserved purpose 4 (read as LDS_RANK_VALIDATE)" for a value this
// header does not define.
std::string purpose_name(uint32_t purpose);

// Calls rank the way a host of ABI 1.<host_minor> does and checks everything the plugin wrote.
// The candidates and the request are laid out by host_blocks.h. lds_rank_args is itself one heap
// block of exactly the host's size: for host_minor 0 and 1 the 64 bytes of ABI 1.1, with
// kPurposePoison where purpose now lies and nothing where scores would be, so `purpose` is not
// passed; for 1.2 the whole struct, with `purpose` and `scores` (dir_count NaN entries, followed by
// canaries that catch a write past the last).
RankCall call_rank(const lds_strategy& strategy, void* instance, const CandidateSet& set,
                   DirLayout layout, uint32_t host_minor, uint32_t purpose,
                   uint32_t error_cap = kErrorCap);

}  // namespace lds::conformance_detail
