// conformance_run.h: ConformanceRun, one plugin file taken through every check in order; its steps
// are defined in conformance.cpp (the sequence), lifecycle_checks.cpp, rank_checks.cpp,
// score_checks.cpp (scores and cordons) and purpose_checks.cpp (placed and the purposes).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "conformance/battery.h"
#include "conformance/check_list.h"
#include "conformance/conformance.h"
#include "conformance/error_buffer.h"
#include "conformance/host_log.h"
#include "conformance/plugin_text.h"
#include "conformance/rank_call.h"
#include <lds/logdir_strategy.h>

namespace lds::conformance_detail {

class ConformanceRun {
 public:
  ConformanceRun(const std::filesystem::path& file, const ConformanceOptions& options);
  ~ConformanceRun();
  ConformanceRun(const ConformanceRun&) = delete;
  ConformanceRun& operator=(const ConformanceRun&) = delete;

  ConformanceReport run(const ConformanceObserver& on_check);

 private:
  // Recording a check's outcome (conformance.cpp). A pass with a note held trivially (nothing was
  // promised); a check that does not apply to this plugin or host is skipped without failing.
  void pass(Check check);
  void pass(Check check, const std::string& note);
  void fail(Check check, const std::string& fault);
  void skip(Check check, const std::string& reason);
  void not_applicable(Check check, const std::string& reason);
  void verdict(Check check, const std::string& fault);

  // Whether create and rank may be called, else why not (as a skip reason).
  std::string cannot_call() const;
  std::string cannot_rank() const;
  // Skip reason for checks that compare against the battery's answers.
  std::string cannot_compare() const;
  // Whether later checks compare answers: the plugin declares LDS_CAP_DETERMINISTIC and kept it.
  bool compares_answers() const { return deterministic_ && !determinism_broken_; }
  // "1.0", "1.1" or "1.2": the host this run plays.
  std::string host_abi() const;
  // Whether this run's host passes purpose and scores and calls placed (ABI 1.2 and later).
  bool host_has_purpose() const { return host_minor_ >= 2; }
  // The purposes the checks that ask every purpose use: all four on a 1.2 host; on an older one
  // just LDS_RANK_PLACE, which it does not pass.
  std::vector<uint32_t> host_purposes() const;
  // " with purpose LDS_RANK_MOVE" for a detail, "" on a host that does not pass purpose.
  std::string with_purpose(uint32_t purpose) const;
  // A rank call as this run's host makes it.
  RankCall rank_as_host(void* instance, const CandidateSet& set, DirLayout layout, uint32_t purpose,
                        uint32_t error_cap = kErrorCap) const;
  // A placement as this run's host makes it: rank with LDS_RANK_PLACE, then, on a 1.2 host and for
  // a valid answer, placed with the first ranked directory that is not cordoned (the host drops
  // cordoned ones). A fault of placed is the outcome's fault.
  RankCall place_as_host(void* instance, const CandidateSet& set,
                         DirLayout layout = DirLayout::kPlain) const;
  // rank_as_host, or place_as_host for LDS_RANK_PLACE.
  RankCall ask_as_host(void* instance, const CandidateSet& set, uint32_t purpose) const;
  // The battery, made on first use.
  const std::vector<CandidateSet>& battery();

  // Loading, the descriptor, create, destroy and unloading (lifecycle_checks.cpp).
  void load();
  void find_entry_point();
  void handshake();
  void check_descriptor();
  void check_name_matches_file();
  // Calls create; an exception escaping the plugin becomes LDS_ERR_INTERNAL plus a fault.
  int32_t call_create(const lds_config_entry* config, uint32_t config_count, void** instance,
                      ErrorBuffer& error, std::string& fault);
  void create_without_options();
  void create_with_given_options();
  // create with one unknown key and an error buffer of `cap` bytes: the fault, or "".
  std::string create_with_unknown_key(uint32_t cap, bool require_key_in_message);
  void create_rejects_unknown_key();
  void create_error_truncation();
  void destroy();
  void unload();

  // The rank checks (rank_checks.cpp).
  void rank_empty();
  void rank_error_truncation();
  void rank_valid_orders();
  void rank_deterministic();
  void rank_reserved_flags_ignored();
  void rank_larger_host_dir();
  void rank_concurrent();

  // Scores and cordons (score_checks.cpp).
  void rank_scores();
  void rank_honors_cordon();

  // placed, and what the purposes must leave alone (purpose_checks.cpp).
  void check_placed();
  void rank_purpose_keeps_state();
  // Runs `body` on a new instance created with the given options, then destroys it: body's fault,
  // or create's.
  std::string with_fresh_instance(const std::function<std::string(void* instance)>& body);
  // The PLACE calls of rank_purpose_keeps_state on `instance`, each after a few calls of another
  // purpose when `interleave`; their answers in `answers`. Returns the first fault.
  std::string place_sequence(void* instance, bool interleave, std::vector<RankCall>& answers);

  std::string path_;
  std::string file_name_;
  uint32_t host_minor_ = LDS_ABI_MINOR;
  std::vector<std::pair<std::string, std::string>> plugin_options_;
  bool given_options_used_ = false;  // instance_ was created with plugin_options_
  bool deterministic_ = false;
  bool determinism_broken_ = false;
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

}  // namespace lds::conformance_detail
