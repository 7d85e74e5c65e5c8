// conformance.h: checks that a strategy shared object keeps the C ABI contract of
// logdir_strategy.h.
//
// Used by the contract test suite and by `lds-host check-plugin`. The checks load the plugin with
// dlopen only (no host library, no logging library), call it the way a host does, and judge every
// answer against the rules written in abi/logdir_strategy.h.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <lds/logdir_strategy.h>

namespace lds {

// One named check and its outcome:
//   passed                the check holds; `detail` is empty, or when it held trivially (nothing
//                         was promised, say no LDS_CAP_HONORS_CORDON) the sentence saying so;
//   failed                `detail` is one sentence naming the file and the fault;
//   skipped, not passed   an earlier failure made it impossible; `detail` says which;
//   skipped and passed    it does not apply to this plugin or this host (a host of ABI 1.1 passes
//                         no scores); `detail` says why. It does not make the report fail.
struct ConformanceCheck {
  std::string name;
  bool passed = false;
  std::string detail;
  bool skipped = false;
};

// The host a run plays: by default one of this build's ABI (1.2). The major is always 1.
//   1.0 (host_abi_minor 0)  lds_strategy_get gets minor 0, and rank gets 1.0-sized lds_dir entries
//                           (dir_stride 48) and lds_request, each allocated on the heap at exactly
//                           that size, so that reading a 1.1 field without LDS_HAS_FIELD reads
//                           past the allocation, which AddressSanitizer and Valgrind report.
//   1.0 and 1.1             lds_rank_args is a heap block of exactly the 64 bytes of ABI 1.1:
//                           reading `scores` reads past it, and the four bytes where `purpose` now
//                           lies (that struct's tail padding) hold 0xA5A5A5A5, so a plugin that
//                           reads purpose without LDS_RANK_ARGS_HAVE_PURPOSE sees what such a host
//                           leaves there. The descriptor is read up to its 1.1 size, and placed is
//                           never called.
//   1.2                     rank gets `purpose` and `scores` (dir_count NaN entries); placed is
//                           called after each placement, as below.
// On a 1.2 host every rank call of the battery (rank_valid_orders to rank_concurrent) is a
// placement, as a host makes one: LDS_RANK_PLACE, then, for a valid answer, placed with the first
// ranked directory that is not cordoned, its partition counts raised by one. The empty list is
// asked with LDS_RANK_PLACE, rank_error_truncation's calls with VALIDATE, PREVIEW and MOVE (one
// per cap), and rank_scores and rank_honors_cordon ask the battery with each of the four purposes.
struct ConformanceOptions {
  uint32_t host_abi_minor = LDS_ABI_MINOR;  // 0, 1 or 2
  // The options (key, value) the rank checks' instance is created with (check-plugin --option).
  std::vector<std::pair<std::string, std::string>> plugin_options;
};

// Every check of one plugin file, in the order of conformance_check_names().
struct ConformanceReport {
  std::string file;
  std::vector<ConformanceCheck> checks;
  std::string
      plugin_abi;        // "1.1": the ABI the plugin's descriptor says it was built for; "" unknown
  std::string host_abi;  // "1.0", "1.1" or "1.2": the ABI the checker played the host of

  // True when there is at least one check and every check passed (or does not apply).
  bool all_passed() const;
  // How many checks passed, failed and were skipped (a check that does not apply counts as
  // skipped); the three add up to checks.size().
  size_t passed_count() const;
  size_t failed_count() const;
  size_t skipped_count() const;
  // The check called `name`, or nullptr.
  const ConformanceCheck* find(std::string_view name) const;
};

// The names of the checks run_conformance performs, in order. Every report lists exactly these:
//   loads                       dlopen(RTLD_NOW | RTLD_LOCAL) succeeds.
//   exports_entry_point         lds_strategy_get is exported.
//   version_handshake           a descriptor for the host ABI played, NULL for host major 2.
//   descriptor_fields           struct_size >= the 1.0 size (>= the 1.2 size, 80, when abi_minor
//                               is 2 or more), abi_major 1, no NULL string or function but the
//                               optional placed and score_name, name matches [a-z0-9_]+.
//   name_matches_file           the descriptor's name is the <name> of liblds_<name>.so.
//   create_without_options      create with no options returns LDS_OK.
//   create_with_given_options   with plugin_options: create with them returns LDS_OK, and the
//                               rank checks below use that instance. Passes without any.
//   create_rejects_unknown_key  an unknown key fails with LDS_ERR_INVALID_ARGUMENT, the message
//                               names the key, and *instance is untouched.
//   create_error_truncation     that error stays NUL-terminated within error_cap 8 and 1, and
//                               nothing is written with error_cap 0.
//   rank_empty_no_eligible_dir  no candidates gives LDS_ERR_NO_ELIGIBLE_DIR with a message.
//   rank_error_truncation       the same for that error.
//   placed                      on a 1.2 host, for a plugin with placed: placed(instance, request,
//                               dir) for 8 created partitions (the dir's counts raised by one,
//                               every other one a later host's larger lds_dir) returns and writes
//                               nothing. Passes, saying so, when placed is NULL; does not apply
//                               on a 1.0 or 1.1 host, which never calls it.
//   rank_valid_orders           every ranking over a generated battery of candidate sets (1 to 64
//                               directories, cordoned, space- and rate-unknown flags, random sizes
//                               and rates, fixed seed) is distinct in-range indices, order_len in
//                               1..dir_count, and writes nothing outside order, order_len, error
//                               and (1.2) scores[0..dir_count).
//   rank_deterministic          for a plugin that declares LDS_CAP_DETERMINISTIC: the battery
//                               asked again gets the same answers ("rank gave different answers
//                               to identical inputs" otherwise). Passes for any other plugin.
//   rank_reserved_flags_ignored setting flag bits the ABI reserves gives a valid ranking, and for
//                               a deterministic plugin the same one.
//                               (This and the next two compare against the battery's answers,
//                               leaving out any answer rank_valid_orders found broken, and only for
//                               a plugin whose determinism held; for the others every answer must
//                               be valid.)
//   rank_larger_host_dir        a host lds_dir with extra trailing fields (larger dir_stride)
//                               gives valid rankings, the same as the plain struct.
//   rank_concurrent             8 threads ranking at once on one instance get valid answers, the
//                               answers of one.
//   rank_scores                 on a 1.2 host: after every valid LDS_OK answer to the battery,
//                               asked with each purpose, every scores entry is finite or NaN
//                               ("rank wrote +inf into scores[0] on ..."), and a plugin that
//                               writes any score has a score_name that is not NULL, not empty,
//                               at most 64 bytes and free of control characters. A score_name
//                               without scores is fine. Does not apply on a 1.0 or 1.1 host.
//   rank_honors_cordon          for a plugin that declares LDS_CAP_HONORS_CORDON: no valid LDS_OK
//                               answer to a battery set with cordoned directories, asked with each
//                               purpose, ranks one; the failure names the directory and the call.
//                               Passes, saying so, for any other plugin; runs on every host.
//   rank_purpose_keeps_state    on a 1.2 host, for a plugin built for 1.2 or later: 12 placements
//                               (LDS_RANK_PLACE then placed, on battery sets of 5 or more
//                               directories) on each of two new instances; if their answers
//                               differ, the plugin chooses on its own (at random) and the check
//                               does not apply. Otherwise the same placements on a third new
//                               instance, each after 3 calls of one other purpose (in turn
//                               VALIDATE, PREVIEW, MOVE and a reserved value, on that set and two
//                               others), get the same answers; the failure names the first
//                               placement whose answer changed and the purpose that came before
//                               it. Every call must also give a valid answer. Does not apply to a
//                               1.0 or 1.1 plugin, which cannot see purpose, nor on such a host.
//   destroy                     destroy of the created instance returns, and destroy(NULL) too.
//   unloads                     dlclose succeeds and the library is really unmapped.
const std::vector<std::string>& conformance_check_names();

// Runs every check against `plugin_file`. Never throws for a faulty plugin; a plugin that crashes
// or hangs takes the calling process with it, as it would take a host, and so does one that writes
// past an error buffer, each of which ends at a guard page (run_conformance_isolated in
// isolated_run.h reports each as the failure of the check it was in).
ConformanceReport run_conformance(const std::filesystem::path& plugin_file);

// Called with each check as soon as its verdict is final, in the order of the check names, and
// the report so far: its plugin_abi is set once version_handshake has read the descriptor, before
// any of the plugin's other functions is called.
using ConformanceObserver =
    std::function<void(const ConformanceCheck& check, const ConformanceReport& so_far)>;

// run_conformance, handing each check to `on_check` as it completes, so that whoever watches knows
// how far the checks got, and the plugin's ABI, if the plugin ends the process.
ConformanceReport run_conformance(const std::filesystem::path& plugin_file,
                                  const ConformanceObserver& on_check);

// run_conformance as the host `options` describes.
ConformanceReport run_conformance(const std::filesystem::path& plugin_file,
                                  const ConformanceOptions& options,
                                  const ConformanceObserver& on_check);

// The report for people: a header line counting the checks that passed, failed and were skipped
// ("Conformance of <file>: 4 passed, 1 failed, 13 skipped"), a line naming the ABI the plugin was
// built for and the one it was tested against, one "PASS  name", "FAIL  name: detail" or
// "SKIP  name: reason" line per check, and a closing "Result: PASS" or "Result: FAIL" line.
std::string format_report(const ConformanceReport& report);

}  // namespace lds
