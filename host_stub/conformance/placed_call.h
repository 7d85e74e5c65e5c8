// placed_call.h: one placed call made the way a host of ABI 1.2 makes it once a partition was
// created, and the verdict on it.
#pragma once

#include <cstdint>
#include <string>

#include "conformance/battery.h"
#include "conformance/host_blocks.h"
#include <lds/logdir_strategy.h>

namespace lds::conformance_detail {

// Tells `instance` that the partition of set.request was created in candidate `index` of `set`:
// the request and that one directory, as the host sees it just after the creation (its
// partition_count and topic_partition_count count the new partition), each one heap block of
// exactly a 1.2 host's size (kWide: a later host's larger lds_dir). Returns what placed did wrong,
// or "" (also when the descriptor has no placed).
std::string call_placed(const lds_strategy& strategy, void* instance, const CandidateSet& set,
                        uint32_t index, DirLayout layout);

}  // namespace lds::conformance_detail
