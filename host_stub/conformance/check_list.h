// check_list.h: the conformance checks as an enum and their reported names, in the order they run.
#pragma once

#include <array>
#include <cstddef>

namespace lds::conformance_detail {

// The checks, in the order they run and are reported.
enum Check : size_t {
  kLoads,
  kExportsEntryPoint,
  kVersionHandshake,
  kDescriptorFields,
  kNameMatchesFile,
  kCreateWithoutOptions,
  kCreateWithGivenOptions,
  kCreateRejectsUnknownKey,
  kCreateErrorTruncation,
  kRankEmptyNoEligibleDir,
  kRankErrorTruncation,
  kPlaced,
  kRankValidOrders,
  kRankDeterministic,
  kRankReservedFlagsIgnored,
  kRankLargerHostDir,
  kRankConcurrent,
  kRankScores,
  kRankHonorsCordon,
  kRankPurposeKeepsState,
  kDestroy,
  kUnloads,
  kCheckCount,
};

// Indexed by Check; conformance.h documents what each check asserts.
inline constexpr std::array<const char*, kCheckCount> kCheckNames = {
    "loads",
    "exports_entry_point",
    "version_handshake",
    "descriptor_fields",
    "name_matches_file",
    "create_without_options",
    "create_with_given_options",
    "create_rejects_unknown_key",
    "create_error_truncation",
    "rank_empty_no_eligible_dir",
    "rank_error_truncation",
    "placed",
    "rank_valid_orders",
    "rank_deterministic",
    "rank_reserved_flags_ignored",
    "rank_larger_host_dir",
    "rank_concurrent",
    "rank_scores",
    "rank_honors_cordon",
    "rank_purpose_keeps_state",
    "destroy",
    "unloads",
};

}  // namespace lds::conformance_detail
