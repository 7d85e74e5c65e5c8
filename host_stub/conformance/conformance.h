// conformance.h: checks that a strategy shared object keeps the C ABI contract of
// logdir_strategy.h.
//
// Used by the contract test suite and by `lds-host check-plugin`. The checks load the plugin with
// dlopen only (no host library, no logging library), call it the way a host does, and judge every
// answer against the rules written in abi/logdir_strategy.h.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace lds {

// One named check and its outcome. `detail` is empty on success; on failure it is one sentence
// naming the file and the fault, or "skipped: ..." when an earlier failure made the check
// impossible.
struct ConformanceCheck {
  std::string name;
  bool passed = false;
  std::string detail;
};

// Every check of one plugin file, in the order of conformance_check_names().
struct ConformanceReport {
  std::string file;
  std::vector<ConformanceCheck> checks;

  // True when there is at least one check and every check passed.
  bool all_passed() const;
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
//   create_rejects_unknown_key  an unknown key fails with LDS_ERR_INVALID_ARGUMENT, the message
//                               names the key, and *instance is untouched.
//   create_error_truncation     that error stays NUL-terminated within error_cap 8 and 1, and
//                               nothing is written with error_cap 0.
//   rank_empty_no_eligible_dir  no candidates gives LDS_ERR_NO_ELIGIBLE_DIR with a message.
//   rank_error_truncation       the same for that error.
//   rank_valid_orders           every ranking over a generated battery of candidate sets (1 to 64
//                               directories, cordoned and space-unknown flags, random sizes, fixed
//                               seed) is distinct in-range indices, order_len in 1..dir_count, and
//                               writes nothing outside order, order_len and error.
//   rank_reserved_flags_ignored setting flag bits the ABI reserves does not change a ranking.
//                               (This and the next two compare against the battery's answers,
//                               leaving out any answer rank_valid_orders found broken.)
//   rank_larger_host_dir        a host lds_dir with extra trailing fields (larger dir_stride)
//                               gives the same rankings as the plain struct.
//   rank_concurrent             8 threads ranking at once on one instance get the answers of one.
//   destroy                     destroy of the created instance returns, and destroy(NULL) too.
//   unloads                     dlclose succeeds and the library is really unmapped.
const std::vector<std::string>& conformance_check_names();

// Runs every check against `plugin_file`. Never throws for a faulty plugin; a plugin that crashes
// or hangs takes the calling process with it, as it would take a host (run_conformance_isolated in
// isolated_run.h does not).
ConformanceReport run_conformance(const std::filesystem::path& plugin_file);

// Called with each check as soon as its verdict is final, in the order of the check names.
using ConformanceObserver = std::function<void(const ConformanceCheck&)>;

// run_conformance, handing each check to `on_check` as it completes, so that whoever watches knows
// how far the checks got if the plugin ends the process.
ConformanceReport run_conformance(const std::filesystem::path& plugin_file,
                                  const ConformanceObserver& on_check);

// The report for people: a header line, one "PASS  name" or "FAIL  name: detail" line per check,
// and a closing "Result: PASS" or "Result: FAIL" line.
std::string format_report(const ConformanceReport& report);

}  // namespace lds
