// conformance.cpp: the plugin conformance checks: loads a strategy .so and judges it against the C
// ABI.
#include "conformance/conformance.h"

#include <dlfcn.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <exception>
#include <latch>
#include <thread>
#include <utility>

#include "conformance/battery.h"
#include "conformance/check_list.h"
#include "conformance/host_log.h"
#include "conformance/plugin_text.h"
#include "conformance/rank_call.h"
#include "core/abi_rules.h"
#include "core/splitmix.h"
#include <lds/logdir_strategy.h>

namespace lds {
namespace conformance_detail {
namespace {

namespace fs = std::filesystem;

constexpr const char* kUnknownKey = "lds.conformance.unknown.key";
constexpr uint32_t kReservedFlagBits = ~(LDS_DIR_CORDONED | LDS_DIR_SPACE_UNKNOWN);
constexpr unsigned kConcurrentThreads = 8;
constexpr unsigned kConcurrentRounds = 6;

std::string absolute_path(const fs::path& file) {
  std::error_code error;
  const fs::path absolute = fs::absolute(file, error);
  return error ? file.string() : absolute.string();
}

class ConformanceRun {
 public:
  // dlopen gets an absolute path: a bare file name would make it search the library path instead.
  explicit ConformanceRun(const fs::path& file)
      : path_(absolute_path(file)), file_name_(file.filename().string()) {
    report_.file = file.string();
    for (const char* name : kCheckNames) report_.checks.push_back({name, false, "not run"});
    host_api_.struct_size = sizeof(lds_host_api);
    host_api_.context = &log_;
    host_api_.log = &host_log;
    host_api_.log_enabled = &host_log_enabled;
  }

  ~ConformanceRun() {
    // Only reached with work left over when a check threw (for example out of memory).
    if (created_ && descriptor_.destroy != nullptr) descriptor_.destroy(instance_);
    if (handle_ != nullptr) dlclose(handle_);
  }
  ConformanceRun(const ConformanceRun&) = delete;
  ConformanceRun& operator=(const ConformanceRun&) = delete;

  ConformanceReport run(const ConformanceObserver& on_check) {
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
        &ConformanceRun::create_rejects_unknown_key,
        &ConformanceRun::create_error_truncation,
        &ConformanceRun::rank_empty,
        &ConformanceRun::rank_error_truncation,
        &ConformanceRun::rank_valid_orders,
        &ConformanceRun::rank_reserved_flags_ignored,
        &ConformanceRun::rank_larger_host_dir,
        &ConformanceRun::rank_concurrent,
        &ConformanceRun::destroy,
        &ConformanceRun::unload,
    };
    for (size_t check = 0; check < kCheckCount; ++check) {
      (this->*kSteps[check])();
      if (on_check) on_check(report_.checks[check]);
    }
    return std::move(report_);
  }

 private:
  void pass(Check check) {
    report_.checks[check].passed = true;
    report_.checks[check].detail.clear();
  }
  void fail(Check check, const std::string& fault) {
    report_.checks[check].passed = false;
    report_.checks[check].detail = file_name_ + ": " + fault + ".";
  }
  void skip(Check check, const std::string& reason) {
    report_.checks[check].passed = false;
    report_.checks[check].detail = "skipped: " + reason + ".";
  }
  void verdict(Check check, const std::string& fault) {
    if (fault.empty()) {
      pass(check);
    } else {
      fail(check, fault);
    }
  }

  // Whether create and rank may be called, else why not (as a skip reason).
  std::string cannot_call() const {
    if (handle_ == nullptr) return "the library did not load";
    if (entry_ == nullptr) return std::string(LDS_ENTRY_POINT_NAME) + " is not exported";
    if (!have_descriptor_) return "there is no descriptor for ABI 1.0";
    if (!descriptor_usable_) return "the descriptor is unusable (see descriptor_fields)";
    return "";
  }
  std::string cannot_rank() const {
    std::string reason = cannot_call();
    if (reason.empty() && !created_) reason = "create without options failed";
    return reason;
  }

  void load() {
    if (std::string problem = abi_rules::truncated_elf_problem(path_); !problem.empty()) {
      fail(kLoads, "does not load as a shared object: " + problem);
      return;
    }
    dlerror();
    handle_ = dlopen(path_.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (handle_ == nullptr) {
      const char* why = dlerror();
      fail(kLoads,
           std::string("does not load as a shared object: ") + (why ? why : "unknown error"));
      return;
    }
    pass(kLoads);
  }

  void find_entry_point() {
    if (handle_ == nullptr) return skip(kExportsEntryPoint, "the library did not load");
    dlerror();
    void* symbol = dlsym(handle_, LDS_ENTRY_POINT_NAME);
    if (symbol == nullptr) {
      return fail(kExportsEntryPoint,
                  std::string("does not export ") + LDS_ENTRY_POINT_NAME +
                      " (declare it with LDS_EXPORT and build with lds_add_strategy_plugin)");
    }
    entry_ = reinterpret_cast<lds_strategy_get_fn>(symbol);
    pass(kExportsEntryPoint);
  }

  void handshake() {
    if (entry_ == nullptr) {
      return skip(kVersionHandshake,
                  handle_ == nullptr ? "the library did not load" : "the entry point is missing");
    }
    const lds_strategy* current = nullptr;
    const lds_strategy* next_major = nullptr;
    try {
      current = entry_(LDS_ABI_MAJOR, LDS_ABI_MINOR);
      next_major = entry_(LDS_ABI_MAJOR + 1, 0);
    } catch (...) {
      return fail(kVersionHandshake, "lds_strategy_get let a C++ exception escape");
    }
    if (current != nullptr) {
      // Read only what the plugin declares; fields it does not have stay zero.
      const size_t size = std::min<size_t>(current->struct_size, sizeof descriptor_);
      std::memcpy(&descriptor_, current, size);
      have_descriptor_ = true;
    }
    std::string fault;
    if (current == nullptr) {
      fault = "lds_strategy_get(" + std::to_string(LDS_ABI_MAJOR) + ", " +
              std::to_string(LDS_ABI_MINOR) + ") returned NULL for a host of its own ABI";
    } else if (next_major != nullptr) {
      fault = "lds_strategy_get(" + std::to_string(LDS_ABI_MAJOR + 1) +
              ", 0) returned a descriptor; a plugin must return NULL for a host of another major";
    }
    verdict(kVersionHandshake, fault);
  }

  void check_descriptor() {
    if (!have_descriptor_) {
      return skip(kDescriptorFields, cannot_call());
    }
    const lds_strategy& d = descriptor_;
    std::vector<std::string> faults = abi_rules::descriptor_faults(d);
    if (d.name != nullptr && !abi_rules::valid_strategy_name(d.name)) {
      for (std::string& f : faults) {
        if (f == "name does not match [a-z0-9_]+")
          f = "name " + quote(d.name) + " does not match [a-z0-9_]+";
      }
    }
    descriptor_usable_ = abi_rules::descriptor_callable(d);
    std::string fault;
    for (const std::string& f : faults) fault += (fault.empty() ? "descriptor " : "; ") + f;
    verdict(kDescriptorFields, fault);
  }

  void check_name_matches_file() {
    if (!have_descriptor_) return skip(kNameMatchesFile, "there is no descriptor for ABI 1.0");
    if (descriptor_.name == nullptr) return skip(kNameMatchesFile, "the descriptor has no name");
    const std::string name = descriptor_.name;
    constexpr std::string_view kPrefix = "liblds_";
    constexpr std::string_view kSuffix = ".so";
    const std::string_view file = file_name_;
    if (file.size() <= kPrefix.size() + kSuffix.size() || !file.starts_with(kPrefix) ||
        !file.ends_with(kSuffix)) {
      return fail(kNameMatchesFile, "the file name is not liblds_<name>.so");
    }
    const std::string_view stem =
        file.substr(kPrefix.size(), file.size() - kPrefix.size() - kSuffix.size());
    if (stem != name) {
      return fail(kNameMatchesFile, "the descriptor names the strategy " + quote(name) +
                                        " but the file is liblds_" + std::string(stem) + ".so");
    }
    pass(kNameMatchesFile);
  }

  // Calls create; an exception escaping the plugin becomes LDS_ERR_INTERNAL plus a fault.
  int32_t call_create(const lds_config_entry* config, uint32_t config_count, void** instance,
                      ErrorBuffer& error, std::string& fault) {
    try {
      return descriptor_.create(&host_api_, config, config_count, instance, error.data(),
                                error.cap());
    } catch (...) {
      fault = "create let a C++ exception escape across the C ABI";
      return LDS_ERR_INTERNAL;
    }
  }

  void create_without_options() {
    if (const std::string reason = cannot_call(); !reason.empty()) {
      return skip(kCreateWithoutOptions, reason);
    }
    ErrorBuffer error(kErrorCap);
    void* instance = nullptr;
    std::string fault;
    const int32_t status = call_create(nullptr, 0, &instance, error, fault);
    if (!fault.empty()) return fail(kCreateWithoutOptions, fault);
    if (status != LDS_OK) {
      return fail(kCreateWithoutOptions, "create without options returned status " +
                                             std::to_string(status) + " with error " +
                                             quote(error.text()));
    }
    instance_ = instance;
    created_ = true;
    verdict(kCreateWithoutOptions,
            error.fault(false).empty() ? "" : "create without options " + error.fault(false));
  }

  // create with one unknown key and an error buffer of `cap` bytes: the fault, or "".
  std::string create_with_unknown_key(uint32_t cap, bool require_key_in_message) {
    const lds_config_entry entry{kUnknownKey, "1"};
    ErrorBuffer error(cap);
    void* const sentinel = &log_;  // any recognisable non-NULL value
    void* instance = sentinel;
    std::string fault;
    const int32_t status = call_create(&entry, 1, &instance, error, fault);
    if (!fault.empty()) return fault;
    if (status == LDS_OK) {
      try {
        descriptor_.destroy(instance);
      } catch (...) {
      }
      return std::string("create accepted the unknown key ") + kUnknownKey +
             "; unknown keys must fail with LDS_ERR_INVALID_ARGUMENT";
    }
    const std::string cap_text = " with error_cap " + std::to_string(cap);
    if (status != LDS_ERR_INVALID_ARGUMENT) {
      return std::string("create with the unknown key ") + kUnknownKey + " returned status " +
             std::to_string(status) + ", not LDS_ERR_INVALID_ARGUMENT (1)" +
             (require_key_in_message ? "" : cap_text);
    }
    if (const std::string buffer_fault = error.fault(true); !buffer_fault.empty()) {
      return "create with an unknown key " + buffer_fault;
    }
    if (instance != sentinel) return "create failed but still wrote *instance";
    if (require_key_in_message && error.text().find(kUnknownKey) == std::string::npos) {
      return "create's error " + quote(error.text()) + " does not name the unknown key " +
             kUnknownKey;
    }
    return "";
  }

  void create_rejects_unknown_key() {
    if (const std::string reason = cannot_call(); !reason.empty()) {
      return skip(kCreateRejectsUnknownKey, reason);
    }
    verdict(kCreateRejectsUnknownKey, create_with_unknown_key(kErrorCap, true));
  }

  void create_error_truncation() {
    if (const std::string reason = cannot_call(); !reason.empty()) {
      return skip(kCreateErrorTruncation, reason);
    }
    std::string fault;
    for (const uint32_t cap : kTinyErrorCaps) {
      if (fault.empty()) fault = create_with_unknown_key(cap, false);
    }
    verdict(kCreateErrorTruncation, fault);
  }

  void rank_empty() {
    if (const std::string reason = cannot_rank(); !reason.empty()) {
      return skip(kRankEmptyNoEligibleDir, reason);
    }
    const CandidateSet empty = empty_candidate_set();
    const RankCall outcome = call_rank(descriptor_, instance_, empty, DirLayout::kPlain);
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

  void rank_error_truncation() {
    if (const std::string reason = cannot_rank(); !reason.empty()) {
      return skip(kRankErrorTruncation, reason);
    }
    const CandidateSet empty = empty_candidate_set();
    std::string fault;
    for (const uint32_t cap : kTinyErrorCaps) {
      if (!fault.empty()) break;
      const RankCall outcome = call_rank(descriptor_, instance_, empty, DirLayout::kPlain, cap);
      if (!outcome.fault.empty()) {
        fault = outcome.fault + " on an empty candidate list";
      } else if (outcome.status != LDS_ERR_NO_ELIGIBLE_DIR) {
        fault = "rank with no candidates and error_cap " + std::to_string(cap) + " returned " +
                describe(outcome);
      }
    }
    verdict(kRankErrorTruncation, fault);
  }

  void rank_valid_orders() {
    if (const std::string reason = cannot_rank(); !reason.empty()) {
      return skip(kRankValidOrders, reason);
    }
    battery_ = make_battery();
    std::string fault;
    for (const CandidateSet& set : battery_) {
      RankCall outcome = call_rank(descriptor_, instance_, set, DirLayout::kPlain);
      if (fault.empty() && !outcome.fault.empty()) fault = outcome.fault + " on " + set.label;
      reference_.push_back(std::move(outcome));
    }
    // Later checks compare against these answers; a set whose answer broke the contract is left
    // out of the comparisons, so one bad answer does not hide every other finding.
    have_reference_ = std::any_of(reference_.begin(), reference_.end(),
                                  [](const RankCall& outcome) { return outcome.fault.empty(); });
    verdict(kRankValidOrders, fault);
  }

  // Skip reason for checks that compare against the battery's answers.
  std::string cannot_compare() const {
    std::string reason = cannot_rank();
    if (reason.empty() && !have_reference_) reason = "rank_valid_orders found no valid answer";
    return reason;
  }

  void rank_reserved_flags_ignored() {
    if (const std::string reason = cannot_compare(); !reason.empty()) {
      return skip(kRankReservedFlagsIgnored, reason);
    }
    std::string fault;
    for (size_t n = 0; n < battery_.size() && fault.empty(); ++n) {
      if (!reference_[n].fault.empty()) continue;
      CandidateSet flagged = battery_[n];
      for (lds_dir& dir : flagged.dirs) dir.flags |= kReservedFlagBits;
      const RankCall outcome = call_rank(descriptor_, instance_, flagged, DirLayout::kPlain);
      if (!outcome.fault.empty()) {
        fault = outcome.fault + " on " + flagged.label + " with reserved flag bits set";
      } else if (!outcome.same_answer(reference_[n])) {
        fault = "setting the reserved lds_dir flag bits changed the answer on " + flagged.label +
                " from " + describe(reference_[n]) + " to " + describe(outcome);
      }
    }
    verdict(kRankReservedFlagsIgnored, fault);
  }

  void rank_larger_host_dir() {
    if (const std::string reason = cannot_compare(); !reason.empty()) {
      return skip(kRankLargerHostDir, reason);
    }
    std::string fault;
    for (size_t n = 0; n < battery_.size() && fault.empty(); ++n) {
      if (!reference_[n].fault.empty()) continue;
      const RankCall outcome = call_rank(descriptor_, instance_, battery_[n], DirLayout::kWide);
      if (!outcome.fault.empty()) {
        fault = outcome.fault + " on " + battery_[n].label + " with dir_stride " +
                std::to_string(sizeof(WideDir));
      } else if (!outcome.same_answer(reference_[n])) {
        fault = "with dir_stride " + std::to_string(sizeof(WideDir)) + " instead of " +
                std::to_string(sizeof(lds_dir)) + " the answer on " + battery_[n].label +
                " changed from " + describe(reference_[n]) + " to " + describe(outcome) +
                " (read entries with LDS_DIR_AT)";
      }
    }
    verdict(kRankLargerHostDir, fault);
  }

  void rank_concurrent() {
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
            const RankCall outcome =
                call_rank(descriptor_, instance_, battery_[n], DirLayout::kPlain);
            const std::string at_once =
                " with " + std::to_string(kConcurrentThreads) + " threads ranking at once";
            if (!outcome.fault.empty()) {
              faults[t] = outcome.fault + " on " + battery_[n].label + at_once;
            } else if (!outcome.same_answer(reference_[n])) {
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

  void destroy() {
    if (const std::string reason = cannot_call(); !reason.empty()) return skip(kDestroy, reason);
    try {
      if (created_) descriptor_.destroy(instance_);
      created_ = false;
      descriptor_.destroy(nullptr);
    } catch (...) {
      return fail(kDestroy, "destroy let a C++ exception escape across the C ABI");
    }
    pass(kDestroy);
  }

  void unload() {
    if (handle_ == nullptr) return skip(kUnloads, "the library did not load");
    void* handle = std::exchange(handle_, nullptr);
    dlerror();
    if (dlclose(handle) != 0) {
      const char* why = dlerror();
      return fail(kUnloads, std::string("dlclose failed: ") + (why ? why : "unknown error"));
    }
    if (void* again = dlopen(path_.c_str(), RTLD_NOW | RTLD_NOLOAD); again != nullptr) {
      dlclose(again);
      return fail(kUnloads,
                  "stays mapped after dlclose, so a rebuilt plugin could not replace it (a "
                  "STB_GNU_UNIQUE symbol or a thread_local with a destructor pins it; build with "
                  "-fno-gnu-unique)");
    }
    pass(kUnloads);
  }

  std::string path_;
  std::string file_name_;
  ConformanceReport report_;
  HostLog log_;
  lds_host_api host_api_{};
  void* handle_ = nullptr;
  lds_strategy_get_fn entry_ = nullptr;
  lds_strategy descriptor_{};
  bool have_descriptor_ = false;
  bool descriptor_usable_ = false;
  void* instance_ = nullptr;
  bool created_ = false;
  std::vector<CandidateSet> battery_;
  std::vector<RankCall> reference_;
  bool have_reference_ = false;
};

}  // namespace
}  // namespace conformance_detail

ConformanceReport run_conformance(const std::filesystem::path& plugin_file) {
  return conformance_detail::ConformanceRun(plugin_file).run(nullptr);
}

ConformanceReport run_conformance(const std::filesystem::path& plugin_file,
                                  const ConformanceObserver& on_check) {
  return conformance_detail::ConformanceRun(plugin_file).run(on_check);
}

}  // namespace lds
