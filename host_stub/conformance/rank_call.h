// rank_call.h: one rank call made the way a host makes it, with canaries around what the plugin
// may write, and the verdict on what came back.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "conformance/battery.h"
#include "conformance/error_buffer.h"
#include "conformance/plugin_text.h"
#include <lds/logdir_strategy.h>

namespace lds::conformance_detail {

// A host built against a later minor: its lds_dir carries fields this header does not know.
struct WideDir {
  lds_dir dir;
  uint64_t later_a;
  uint32_t later_b;
  char later_c[20];
};

enum class DirLayout { kPlain, kWide };

// What one rank call returned, and what it did wrong (empty fault when it kept to the contract).
struct RankCall {
  int32_t status = LDS_OK;
  std::vector<uint32_t> order;  // the first order_len entries when the status is LDS_OK
  std::string error;
  std::string fault;

  bool same_answer(const RankCall& other) const {
    if (status != other.status) return false;
    return status != LDS_OK || order == other.order;
  }
};

// The answer for a detail: "order [..]" or the status and its quoted error.
std::string describe(const RankCall& outcome);

// Calls rank the way a host of ABI 1.<host_minor> does and checks everything the plugin wrote.
// The candidates and the request are each one heap block of exactly the size that host passes:
// with host_minor 0, 1.0-sized lds_dir entries (dir_stride 48, the 1.1 rate flag cleared) and a
// 1.0-sized lds_request, so a read of a 1.1 field past them is a read past the block. kWide
// entries are a later host's: this header's lds_dir plus trailing fields (for host_minor 0, with
// the rates marked unknown, which is what a 1.0 host's answer was based on).
RankCall call_rank(const lds_strategy& strategy, void* instance, const CandidateSet& set,
                   DirLayout layout, uint32_t host_minor, uint32_t error_cap = kErrorCap);

}  // namespace lds::conformance_detail
