#!/usr/bin/env bash
# run-tests.sh: builds everything and runs the whole test suite, then the Valgrind memcheck runs.
#
# Stages (each fails the script on the first failing test):
#   1. build in ./build (RelWithDebInfo) and run every CTest suite except the Valgrind ones;
#   2. `ctest -T memcheck -L memcheck`: unit, conformance and config suites under Valgrind memcheck
#      (--error-exitcode=1 --leak-check=full --keep-debuginfo=yes; 0 errors, 0 definite leaks);
#   3. the `valgrind` label: a real `lds-host serve` under Valgrind, driven over its socket, and
#      1,000 strategy swap cycles;
#   4. the concurrency suites (label `concurrency`) again in a -fsanitize=thread build (./build-tsan):
#      any ThreadSanitizer report fails them.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build="${LDS_BUILD_DIR:-$repo/build}"
jobs=$(nproc)

stage() { printf '\n=== %s\n' "$*"; }

stage "Build ($build)"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"$jobs"

stage "Test suites"
ctest --test-dir "$build" --output-on-failure -j"$jobs" -LE valgrind

stage "Valgrind memcheck (label memcheck)"
ctest --test-dir "$build" -T memcheck -L memcheck --output-on-failure -j"$jobs"

stage "lds-host serve under Valgrind (label valgrind)"
ctest --test-dir "$build" -L valgrind --output-on-failure

stage "ThreadSanitizer build ($build-tsan), label concurrency"
cmake -S "$repo" -B "$build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DLDS_SANITIZE=thread >/dev/null
tsan_targets=$(ctest --test-dir "$build" -L concurrency -N | sed -n 's/^ *Test *#[0-9]*: \([A-Za-z0-9_]*\)$/\1/p')
for t in $tsan_targets; do cmake --build "$build-tsan" -j"$jobs" --target "$t"; done
TSAN_OPTIONS="halt_on_error=1 exitcode=66" ctest --test-dir "$build-tsan" -L concurrency --output-on-failure
