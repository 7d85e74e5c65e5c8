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

namespace lds {

// One named check and its outcome: passed, failed, or skipped because an earlier failure made it
// impossible (a skipped check has not passed either). `detail` is empty on success; on failure it
// is one sentence naming the file and the fault; when skipped, the sentence saying why.
struct ConformanceCheck {
  std::string name;
  bool passed = false;
  std::string detail;
  bool skipped = false;
};

// The host a run plays. By default the checker is a host of this build's ABI; with
// host_abi_minor 0 it is a host of ABI 1.0: lds_strategy_get gets minor 0, and rank gets 1.0-sized
// lds_dir entries (dir_stride 48) and lds_request, each allocated on the heap at exactly that size,
// so that reading a 1.1 field without LDS_HAS_FIELD reads past the allocation, which
// AddressSanitizer and Valgrind report.
struct ConformanceOptions {
  uint32_t host_abi_minor = 1;  // 0 or 1 (LDS_ABI_MINOR); the major is always 1
  // The options (key, value) the rank checks' instance is created with (check-plugin --option).
  std::vector<std::pair<std::string, std::string>> plugin_options;
};

// Every check of one plugin file, in the order of conformance_check_names().
struct ConformanceReport {
  std::string file;
  std::vector<ConformanceCheck> checks;
  std::string
      plugin_abi;        // "1.1": the ABI the plugin's descriptor says it was built for; "" unknown
  std::string host_abi;  // "1.0" or "1.1": the ABI the checker played the host of

  // True when there is at least one check and every check passed.
  bool all_passed() const;
  // How many checks passed, failed and were skipped; the three add up to checks.size().
  size_t passed_count() const;
  size_t failed_count() const;
  size_t skipped_count() const;
  // The check called `name`, or nullptr.
  const ConformanceCheck* find(std::string_view name) const;
};

// The names of the checks run_conformance performs, in order. Every report lists exactly these:
//   loads                       dlopen(RTLD_NOW | RTLD_LOCAL) succeeds.
//   exports_entry_point         lds_strategy_get is exported.
//   version_handshake           a descriptor for host ABI 1.0, NULL for host major 2.
//   descriptor_fields           struct_size >= the 1.0 size, abi_major 1, no NULL string or
//                               function, name matches [a-z0-9_]+.
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
//   rank_valid_orders           every ranking over a generated battery of candidate sets (1 to 64
//                               directories, cordoned, space- and rate-unknown flags, random sizes
//                               and rates, fixed seed) is distinct in-range indices, order_len in
//                               1..dir_count, and writes nothing outside order, order_len and
//                               error.
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
