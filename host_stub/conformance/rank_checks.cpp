// rank_checks.cpp: the checks that call rank: the empty list, error truncation, the battery's
// orders, reserved flag bits, a larger host lds_dir, and concurrent calls. On a 1.2 host every
// battery call is a placement (place_as_host): LDS_RANK_PLACE, then placed.
#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <latch>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "conformance/conformance_run.h"
#include "strategy/abi_rules.h"

namespace lds::conformance_detail {
namespace {

// The flag bits a host of each minor reserves: 1.1 defined LDS_DIR_RATE_UNKNOWN.
constexpr uint32_t kReservedFlagBits10 = ~(LDS_DIR_CORDONED | LDS_DIR_SPACE_UNKNOWN);
constexpr uint32_t kReservedFlagBits11 = kReservedFlagBits10 & ~LDS_DIR_RATE_UNKNOWN;
// How many times rank_deterministic asks the battery again.
constexpr unsigned kDeterminismRounds = 2;
constexpr unsigned kConcurrentThreads = 8;
constexpr unsigned kConcurrentRounds = 6;
// The purpose of each of rank_error_truncation's calls, one per cap of kTinyErrorCaps: the calls
// that are not placements, so their error paths are exercised too.
constexpr std::array<uint32_t, kTinyErrorCaps.size()> kTruncationPurposes = {
    LDS_RANK_VALIDATE, LDS_RANK_PREVIEW, LDS_RANK_MOVE};

}  // namespace

void ConformanceRun::rank_empty() {
  if (const std::string reason = cannot_rank(); !reason.empty()) {
    return skip(kRankEmptyNoEligibleDir, reason);
  }
  const CandidateSet empty = empty_candidate_set();
  const RankCall outcome = rank_as_host(instance_, empty, DirLayout::kPlain, LDS_RANK_PLACE);
  std::string fault = outcome.fault.empty() ? "" : outcome.fault + " on an empty candidate list";
  if (fault.empty() && outcome.status != LDS_ERR_NO_ELIGIBLE_DIR) {
    fault = "rank with no candidates returned " + describe(outcome) +
            ", not LDS_ERR_NO_ELIGIBLE_DIR (2)";
  }
  if (fault.empty() && outcome.error.empty()) {
    fault = "rank with no candidates returned LDS_ERR_NO_ELIGIBLE_DIR without a message";
  }
  verdict(kRankEmptyNoEligibleDir, fault);
}

void ConformanceRun::rank_error_truncation() {
  if (const std::string reason = cannot_rank(); !reason.empty()) {
    return skip(kRankErrorTruncation, reason);
  }
  const CandidateSet empty = empty_candidate_set();
  std::string fault;
  for (size_t n = 0; n < kTinyErrorCaps.size() && fault.empty(); ++n) {
    const uint32_t cap = kTinyErrorCaps[n];
    const uint32_t purpose = kTruncationPurposes[n];
    const RankCall outcome = rank_as_host(instance_, empty, DirLayout::kPlain, purpose, cap);
    if (!outcome.fault.empty()) {
      fault = outcome.fault + " on an empty candidate list" + with_purpose(purpose);
    } else if (outcome.status != LDS_ERR_NO_ELIGIBLE_DIR) {
      fault = "rank with no candidates and error_cap " + std::to_string(cap) +
              with_purpose(purpose) + " returned " + describe(outcome);
    }
  }
  verdict(kRankErrorTruncation, fault);
}

void ConformanceRun::rank_valid_orders() {
  if (const std::string reason = cannot_rank(); !reason.empty()) {
    return skip(kRankValidOrders, reason);
  }
  std::string fault;
  for (const CandidateSet& set : battery()) {
    RankCall outcome = place_as_host(instance_, set);
    if (fault.empty() && !outcome.fault.empty()) fault = outcome.fault + " on " + set.label;
    reference_.push_back(std::move(outcome));
  }
  // Later checks compare against these answers; a set whose answer broke the contract is left
  // out of the comparisons, so one bad answer does not hide every other finding.
  have_reference_ = std::any_of(reference_.begin(), reference_.end(),
                                [](const RankCall& outcome) { return outcome.fault.empty(); });
  verdict(kRankValidOrders, fault);
}

void ConformanceRun::rank_deterministic() {
  if (const std::string reason = cannot_compare(); !reason.empty()) {
    return skip(kRankDeterministic, reason);
  }
  if (!deterministic_) return pass(kRankDeterministic);  // nothing promised, nothing to compare
  std::string fault;
  for (unsigned round = 0; round < kDeterminismRounds && fault.empty(); ++round) {
    for (size_t n = 0; n < battery_.size() && fault.empty(); ++n) {
      if (!reference_[n].fault.empty()) continue;
      const RankCall outcome = place_as_host(instance_, battery_[n]);
      if (!outcome.fault.empty()) {
        fault = outcome.fault + " on " + battery_[n].label + ", asked a second time";
      } else if (!outcome.same_answer(reference_[n])) {
        fault = "rank gave different answers to identical inputs: on " + battery_[n].label +
                " it answered " + describe(reference_[n]) + ", then " + describe(outcome) +
                "; the plugin declares LDS_CAP_DETERMINISTIC, so its answer must be a function "
                "of its inputs (a stateful strategy must not declare it)";
      }
    }
  }
  // Later checks would blame the flags, the stride or the threads for what is this; they only
  // check that answers are valid from here on.
  determinism_broken_ = !fault.empty();
  verdict(kRankDeterministic, fault);
}

void ConformanceRun::rank_reserved_flags_ignored() {
  if (const std::string reason = cannot_compare(); !reason.empty()) {
    return skip(kRankReservedFlagsIgnored, reason);
  }
  std::string fault;
  for (size_t n = 0; n < battery_.size() && fault.empty(); ++n) {
    if (!reference_[n].fault.empty()) continue;
    CandidateSet flagged = battery_[n];
    const uint32_t reserved = host_minor_ == 0 ? kReservedFlagBits10 : kReservedFlagBits11;
    for (lds_dir& dir : flagged.dirs) dir.flags |= reserved;
    const RankCall outcome = place_as_host(instance_, flagged);
    if (!outcome.fault.empty()) {
      fault = outcome.fault + " on " + flagged.label + " with reserved flag bits set";
    } else if (compares_answers() && !outcome.same_answer(reference_[n])) {
      fault = "setting the reserved lds_dir flag bits changed the answer on " + flagged.label +
              " from " + describe(reference_[n]) + " to " + describe(outcome);
    }
  }
  verdict(kRankReservedFlagsIgnored, fault);
}

void ConformanceRun::rank_larger_host_dir() {
  if (const std::string reason = cannot_compare(); !reason.empty()) {
    return skip(kRankLargerHostDir, reason);
  }
  const size_t plain_stride = host_minor_ == 0 ? abi_rules::kDirV10Size : sizeof(lds_dir);
  std::string fault;
  for (size_t n = 0; n < battery_.size() && fault.empty(); ++n) {
    if (!reference_[n].fault.empty()) continue;
    const RankCall outcome = place_as_host(instance_, battery_[n], DirLayout::kWide);
    if (!outcome.fault.empty()) {
      fault = outcome.fault + " on " + battery_[n].label + " with dir_stride " +
              std::to_string(sizeof(WideDir));
    } else if (compares_answers() && !outcome.same_answer(reference_[n])) {
      fault = "with dir_stride " + std::to_string(sizeof(WideDir)) + " instead of " +
              std::to_string(plain_stride) + " the answer on " + battery_[n].label +
              " changed from " + describe(reference_[n]) + " to " + describe(outcome) +
              " (read entries with LDS_DIR_AT)";
    }
  }
  verdict(kRankLargerHostDir, fault);
}

void ConformanceRun::rank_concurrent() {
  if (const std::string reason = cannot_compare(); !reason.empty()) {
    return skip(kRankConcurrent, reason);
  }
  std::vector<std::string> faults(kConcurrentThreads);
  std::latch start(kConcurrentThreads);
  std::vector<std::thread> threads;
  for (unsigned t = 0; t < kConcurrentThreads; ++t) {
    threads.emplace_back([this, t, &faults, &start] {
      start.arrive_and_wait();
      for (unsigned round = 0; round < kConcurrentRounds && faults[t].empty(); ++round) {
        for (size_t k = 0; k < battery_.size() && faults[t].empty(); ++k) {
          // Each thread walks the battery from a different place, so calls overlap on
          // different candidate sets as well as on the same ones.
          const size_t n = (k + t * battery_.size() / kConcurrentThreads) % battery_.size();
          if (!reference_[n].fault.empty()) continue;
          const RankCall outcome = place_as_host(instance_, battery_[n]);
          const std::string at_once =
              " with " + std::to_string(kConcurrentThreads) + " threads ranking at once";
          if (!outcome.fault.empty()) {
            faults[t] = outcome.fault + " on " + battery_[n].label + at_once;
          } else if (compares_answers() && !outcome.same_answer(reference_[n])) {
            faults[t] = "rank answered " + describe(outcome) + " on " + battery_[n].label +
                        at_once + ", where one thread alone got " + describe(reference_[n]);
          }
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  std::string fault;
  for (const std::string& f : faults) {
    if (fault.empty()) fault = f;
  }
  verdict(kRankConcurrent, fault);
}

}  // namespace lds::conformance_detail
