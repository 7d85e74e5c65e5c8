// conformance.cpp: the sequence of conformance checks: runs them in order against one plugin file
// and records each verdict.
#include "conformance/conformance.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <system_error>
#include <utility>

#include "conformance/conformance_run.h"
#include "conformance/placed_call.h"

namespace lds {
namespace conformance_detail {
namespace {

namespace fs = std::filesystem;

std::string absolute_path(const fs::path& file) {
  std::error_code error;
  const fs::path absolute = fs::absolute(file, error);
  return error ? file.string() : absolute.string();
}

}  // namespace

// dlopen gets an absolute path: a bare file name would make it search the library path instead.
ConformanceRun::ConformanceRun(const fs::path& file, const ConformanceOptions& options)
    : path_(absolute_path(file)),
      file_name_(file.filename().string()),
      host_minor_(std::min<uint32_t>(options.host_abi_minor, LDS_ABI_MINOR)),
      plugin_options_(options.plugin_options) {
  report_.file = file.string();
  report_.host_abi = host_abi();
  for (const char* name : kCheckNames) report_.checks.push_back({name, false, "not run"});
  host_api_.struct_size = sizeof(lds_host_api);
  host_api_.context = &log_;
  host_api_.log = &host_log;
  host_api_.log_enabled = &host_log_enabled;
}

ConformanceRun::~ConformanceRun() {
  // Only reached with work left over when a check threw (for example out of memory).
  if (created_ && descriptor_.destroy != nullptr) descriptor_.destroy(instance_);
  if (handle_ != nullptr) dlclose(handle_);
}

ConformanceReport ConformanceRun::run(const ConformanceObserver& on_check) {
  // One step per check, in the order of Check: step i decides check i and nothing else, so a
  // check is final once its step returns.
  using Step = void (ConformanceRun::*)();
  static constexpr std::array<Step, kCheckCount> kSteps = {
      &ConformanceRun::load,
      &ConformanceRun::find_entry_point,
      &ConformanceRun::handshake,
      &ConformanceRun::check_descriptor,
      &ConformanceRun::check_name_matches_file,
      &ConformanceRun::create_without_options,
      &ConformanceRun::create_with_given_options,
      &ConformanceRun::create_rejects_unknown_key,
      &ConformanceRun::create_error_truncation,
      &ConformanceRun::rank_empty,
      &ConformanceRun::rank_error_truncation,
      &ConformanceRun::check_placed,
      &ConformanceRun::rank_valid_orders,
      &ConformanceRun::rank_deterministic,
      &ConformanceRun::rank_reserved_flags_ignored,
      &ConformanceRun::rank_larger_host_dir,
      &ConformanceRun::rank_concurrent,
      &ConformanceRun::rank_scores,
      &ConformanceRun::rank_honors_cordon,
      &ConformanceRun::rank_purpose_keeps_state,
      &ConformanceRun::destroy,
      &ConformanceRun::unload,
  };
  for (size_t check = 0; check < kCheckCount; ++check) {
    (this->*kSteps[check])();
    if (on_check) on_check(report_.checks[check], report_);
  }
  return std::move(report_);
}

void ConformanceRun::pass(Check check) {
  report_.checks[check].passed = true;
  report_.checks[check].skipped = false;
  report_.checks[check].detail.clear();
}

void ConformanceRun::pass(Check check, const std::string& note) {
  pass(check);
  report_.checks[check].detail = note + ".";
}

void ConformanceRun::fail(Check check, const std::string& fault) {
  report_.checks[check].passed = false;
  report_.checks[check].skipped = false;
  report_.checks[check].detail = file_name_ + ": " + fault + ".";
}

void ConformanceRun::skip(Check check, const std::string& reason) {
  report_.checks[check].passed = false;
  report_.checks[check].skipped = true;
  report_.checks[check].detail = reason + ".";
}

void ConformanceRun::not_applicable(Check check, const std::string& reason) {
  report_.checks[check].passed = true;
  report_.checks[check].skipped = true;
  report_.checks[check].detail = reason + ".";
}

void ConformanceRun::verdict(Check check, const std::string& fault) {
  if (fault.empty()) {
    pass(check);
  } else {
    fail(check, fault);
  }
}

std::string ConformanceRun::cannot_call() const {
  if (handle_ == nullptr) return "the library did not load";
  if (entry_ == nullptr) return std::string(LDS_ENTRY_POINT_NAME) + " is not exported";
  if (!have_descriptor_) return "there is no descriptor for ABI " + host_abi();
  if (!descriptor_usable_) return "the descriptor is unusable (see descriptor_fields)";
  return "";
}

std::string ConformanceRun::host_abi() const {
  return std::to_string(LDS_ABI_MAJOR) + "." + std::to_string(host_minor_);
}

std::vector<uint32_t> ConformanceRun::host_purposes() const {
  if (!host_has_purpose()) return {LDS_RANK_PLACE};
  return {LDS_RANK_PLACE, LDS_RANK_VALIDATE, LDS_RANK_PREVIEW, LDS_RANK_MOVE};
}

std::string ConformanceRun::with_purpose(uint32_t purpose) const {
  if (!host_has_purpose()) return "";
  const std::string name = purpose_name(purpose);
  return name.starts_with("LDS_") ? " with purpose " + name : " with " + name;
}

RankCall ConformanceRun::rank_as_host(void* instance, const CandidateSet& set, DirLayout layout,
                                      uint32_t purpose, uint32_t error_cap) const {
  return call_rank(descriptor_, instance, set, layout, host_minor_, purpose, error_cap);
}

RankCall ConformanceRun::place_as_host(void* instance, const CandidateSet& set,
                                       DirLayout layout) const {
  RankCall outcome = rank_as_host(instance, set, layout, LDS_RANK_PLACE);
  if (!host_has_purpose() || outcome.status != LDS_OK || !outcome.fault.empty()) return outcome;
  const auto taken = std::find_if(outcome.order.begin(), outcome.order.end(), [&](uint32_t i) {
    return (set.dirs[i].flags & LDS_DIR_CORDONED) == 0;
  });
  if (taken != outcome.order.end()) {
    outcome.fault = call_placed(descriptor_, instance, set, *taken, layout);
  }
  return outcome;
}

RankCall ConformanceRun::ask_as_host(void* instance, const CandidateSet& set,
                                     uint32_t purpose) const {
  if (purpose == LDS_RANK_PLACE) return place_as_host(instance, set);
  return rank_as_host(instance, set, DirLayout::kPlain, purpose);
}

const std::vector<CandidateSet>& ConformanceRun::battery() {
  if (battery_.empty()) battery_ = make_battery();
  return battery_;
}

std::string ConformanceRun::cannot_rank() const {
  std::string reason = cannot_call();
  if (reason.empty() && !created_) reason = "create without options failed";
  return reason;
}

std::string ConformanceRun::cannot_compare() const {
  std::string reason = cannot_rank();
  if (reason.empty() && !have_reference_) reason = "rank_valid_orders found no valid answer";
  return reason;
}

}  // namespace conformance_detail

ConformanceReport run_conformance(const std::filesystem::path& plugin_file) {
  return conformance_detail::ConformanceRun(plugin_file, {}).run(nullptr);
}

ConformanceReport run_conformance(const std::filesystem::path& plugin_file,
                                  const ConformanceObserver& on_check) {
  return conformance_detail::ConformanceRun(plugin_file, {}).run(on_check);
}

ConformanceReport run_conformance(const std::filesystem::path& plugin_file,
                                  const ConformanceOptions& options,
                                  const ConformanceObserver& on_check) {
  return conformance_detail::ConformanceRun(plugin_file, options).run(on_check);
}

}  // namespace lds
