// isolated_run.h: runs the conformance checks in a child process, so that a plugin which exits,
// crashes or hangs fails its check instead of ending or stalling the checker.
//
// `lds-host check-plugin` uses this: a CI gate must never pass a plugin it could not check. The
// child runs run_conformance and reports each check to the parent as it completes; the parent
// gives every check a time limit and turns an early end of the child into a failed check.
#pragma once

#include <chrono>
#include <filesystem>

#include "conformance/conformance.h"

namespace lds {

// How long one check may take in the child before the checker gives up on it.
inline constexpr std::chrono::milliseconds kDefaultCheckTimeout{10'000};

// Runs every check against `plugin_file` in a forked child process and returns the same report as
// run_conformance, with these differences when the plugin ends or stalls the child:
//   - the check that was running fails, naming how the child ended: exit(status), a signal (number
//     and name), or running past `per_check_timeout` (the child is then killed with SIGKILL); a
//     SIGSEGV on the guard page after an error buffer is named as the plugin writing past the end
//     of its error buffer, with that buffer's error_cap;
//   - every later check is skipped, with the reason;
//   - the plugin's ABI is still named when the child read the descriptor before it ended.
// The report passes only when the child reported every check and said it was done. The child is
// always reaped before this returns. `per_check_timeout` is taken as at least 1 ms and at most a
// year. Throws std::system_error only when the pipe or the process cannot be created.
//
// Fork copies only the calling thread: call this from a process with no other thread that may hold
// a lock the checks need (the allocator's and the dynamic loader's are safe with glibc).
ConformanceReport run_conformance_isolated(
    const std::filesystem::path& plugin_file,
    std::chrono::milliseconds per_check_timeout = kDefaultCheckTimeout,
    const ConformanceOptions& options = {});

}  // namespace lds
