// purpose_checks.cpp: the checks of ABI 1.2's placements: placed itself, and that rank calls of
// any purpose but LDS_RANK_PLACE leave a stateful strategy's next placement where it was.
#include <cstddef>
#include <string>
#include <vector>

#include "conformance/conformance_run.h"
#include "conformance/placed_call.h"

namespace lds::conformance_detail {
namespace {

// check_placed: this many created partitions, from the first candidate sets of the battery.
constexpr size_t kPlacedCalls = 8;
// rank_purpose_keeps_state: this many PLACE calls, each on a candidate set of at least
// kMinPlaceDirs directories (so that an answer that moves on by one directory per call shows),
// and before each of them in the interleaved run kCallsBetween calls of one other purpose.
constexpr size_t kPlaceCalls = 12;
constexpr size_t kMinPlaceDirs = 5;
constexpr size_t kCallsBetween = 3;
// A value this header reserves: a later host may send it, and a plugin treats it as VALIDATE.
constexpr uint32_t kReservedPurpose = LDS_RANK_MOVE + 1;

// The battery indices of the PLACE calls: sets of kMinPlaceDirs or more directories whose answer
// rank_valid_orders found valid.
std::vector<size_t> place_call_sets(const std::vector<CandidateSet>& battery,
                                    const std::vector<RankCall>& reference) {
  std::vector<size_t> picked;
  for (size_t n = 0; n < battery.size() && n < reference.size() && picked.size() < kPlaceCalls;
       ++n) {
    if (battery[n].dirs.size() >= kMinPlaceDirs && reference[n].fault.empty()) picked.push_back(n);
  }
  return picked;
}

// The purposes of the calls interleaved before the PLACE calls, in turn. The reserved value only
// for a plugin of this header's minor or older, for which it is reserved.
std::vector<uint32_t> interleaved_purposes(uint16_t plugin_abi_minor) {
  std::vector<uint32_t> purposes = {LDS_RANK_VALIDATE, LDS_RANK_PREVIEW, LDS_RANK_MOVE};
  if (plugin_abi_minor <= LDS_ABI_MINOR) purposes.push_back(kReservedPurpose);
  return purposes;
}

// The battery indices of the calls before PLACE call k (on set `place`): that set and two others.
std::vector<size_t> calls_between_sets(size_t k, size_t place, size_t battery_size) {
  return {place, (place * 13 + k + 1) % battery_size, (place * 29 + 2 * k + 3) % battery_size};
}

}  // namespace

void ConformanceRun::check_placed() {
  if (const std::string reason = cannot_rank(); !reason.empty()) return skip(kPlaced, reason);
  if (!host_has_purpose()) {
    return not_applicable(kPlaced, "a host of ABI " + host_abi() + " never calls placed");
  }
  if (descriptor_.placed == nullptr) {
    return pass(kPlaced,
                descriptor_.abi_minor < 2
                    ? "the plugin is built for ABI " + report_.plugin_abi + ", which has no placed"
                    : std::string("the descriptor's placed is NULL, so there is nothing "
                                  "to call"));
  }
  const std::vector<CandidateSet>& sets = battery();
  std::string fault;
  for (size_t n = 0; n < kPlacedCalls && n < sets.size() && fault.empty(); ++n) {
    const CandidateSet& set = sets[n];
    const auto index = static_cast<uint32_t>((n * 7) % set.dirs.size());
    // Every other one from a host of a later minor, with a larger lds_dir.
    const DirLayout layout = n % 2 == 0 ? DirLayout::kPlain : DirLayout::kWide;
    if (const std::string problem = call_placed(descriptor_, instance_, set, index, layout);
        !problem.empty()) {
      fault = problem + " for a partition created in directory " + std::to_string(index) + " of " +
              set.label;
    }
  }
  verdict(kPlaced, fault);
}

std::string ConformanceRun::with_fresh_instance(
    const std::function<std::string(void* instance)>& body) {
  std::vector<lds_config_entry> entries;
  if (given_options_used_) {
    for (const auto& [key, value] : plugin_options_)
      entries.push_back({key.c_str(), value.c_str()});
  }
  ErrorBuffer error(kErrorCap);
  void* instance = nullptr;
  std::string fault;
  const int32_t status =
      call_create(entries.empty() ? nullptr : entries.data(), static_cast<uint32_t>(entries.size()),
                  &instance, error, fault);
  if (!fault.empty()) return fault;
  if (status != LDS_OK) {
    return "create of a new instance returned status " + std::to_string(status) + " with error " +
           quote(error.text());
  }
  fault = body(instance);
  try {
    descriptor_.destroy(instance);
  } catch (...) {
    if (fault.empty()) fault = "destroy let a C++ exception escape across the C ABI";
  }
  return fault;
}

std::string ConformanceRun::place_sequence(void* instance, bool interleave,
                                           std::vector<RankCall>& answers) {
  const std::vector<uint32_t> others = interleaved_purposes(descriptor_.abi_minor);
  const std::vector<size_t> places = place_call_sets(battery_, reference_);
  for (size_t k = 0; k < places.size(); ++k) {
    const uint32_t purpose = others[k % others.size()];
    for (const size_t n : calls_between_sets(k, places[k], battery_.size())) {
      if (!interleave) break;
      const RankCall outcome = rank_as_host(instance, battery_[n], DirLayout::kPlain, purpose);
      // A set whose placement rank_valid_orders found broken is left out, as in the other checks.
      if (!outcome.fault.empty() && reference_[n].fault.empty()) {
        return outcome.fault + " on " + battery_[n].label + with_purpose(purpose);
      }
    }
    const CandidateSet& set = battery_[places[k]];
    RankCall outcome = place_as_host(instance, set);
    if (!outcome.fault.empty()) return outcome.fault + " on " + set.label + " (a placement)";
    answers.push_back(std::move(outcome));
  }
  return "";
}

void ConformanceRun::rank_purpose_keeps_state() {
  if (const std::string reason = cannot_compare(); !reason.empty()) {
    return skip(kRankPurposeKeepsState, reason);
  }
  if (!host_has_purpose()) {
    return not_applicable(kRankPurposeKeepsState,
                          "a host of ABI " + host_abi() + " does not say why it ranks");
  }
  if (descriptor_.abi_minor < 2) {
    return not_applicable(kRankPurposeKeepsState,
                          "the plugin is built for ABI " + report_.plugin_abi +
                              ", and a 1.0 or 1.1 plugin cannot see purpose");
  }
  const std::vector<size_t> places = place_call_sets(battery_, reference_);
  if (places.empty()) {
    return not_applicable(kRankPurposeKeepsState,
                          "no candidate set of " + std::to_string(kMinPlaceDirs) +
                              " or more directories got a valid answer in rank_valid_orders");
  }
  // The same placements on two new instances: a plugin whose answers differ there chooses at
  // random (or by something outside the instance), and no comparison can blame the purposes.
  std::vector<RankCall> first;
  std::vector<RankCall> second;
  std::vector<RankCall> interleaved;
  std::string fault =
      with_fresh_instance([&](void* instance) { return place_sequence(instance, false, first); });
  if (fault.empty()) {
    fault = with_fresh_instance(
        [&](void* instance) { return place_sequence(instance, false, second); });
  }
  if (!fault.empty()) return fail(kRankPurposeKeepsState, fault);
  const auto call_name = [&](size_t k) {
    return "LDS_RANK_PLACE call " + std::to_string(k + 1) + " of " + std::to_string(places.size()) +
           ", on " + battery_[places[k]].label + ",";
  };
  for (size_t k = 0; k < places.size(); ++k) {
    if (!first[k].same_answer(second[k])) {
      return not_applicable(kRankPurposeKeepsState,
                            "the plugin's placements vary on their own: two new instances "
                            "answered " +
                                call_name(k) + " with " + describe(first[k]) + " and " +
                                describe(second[k]) +
                                ", so whether the other purposes change them cannot be told");
    }
  }
  fault = with_fresh_instance(
      [&](void* instance) { return place_sequence(instance, true, interleaved); });
  if (!fault.empty()) return fail(kRankPurposeKeepsState, fault);
  const std::vector<uint32_t> others = interleaved_purposes(descriptor_.abi_minor);
  for (size_t k = 0; k < places.size(); ++k) {
    if (first[k].same_answer(interleaved[k])) continue;
    return fail(kRankPurposeKeepsState,
                "the answer to " + call_name(k) + " changed from " + describe(first[k]) + " to " +
                    describe(interleaved[k]) + " when calls" +
                    with_purpose(others[k % others.size()]) +
                    " came before it; a strategy changes its state only on LDS_RANK_PLACE or in "
                    "placed");
  }
  pass(kRankPurposeKeepsState);
}

}  // namespace lds::conformance_detail
