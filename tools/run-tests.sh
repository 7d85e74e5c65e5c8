#!/usr/bin/env bash
# run-tests.sh: builds everything and runs the whole test suite, then the Valgrind memcheck runs.
#
# Stages (each fails the script on the first failing test):
#   1. build in ./build (RelWithDebInfo) and run every CTest suite except the Valgrind ones;
#   2. `ctest -T memcheck -L memcheck`: unit, conformance and config suites under Valgrind memcheck
#      (--error-exitcode=1 --leak-check=full --keep-debuginfo=yes; 0 errors, 0 definite leaks);
#   3. the `valgrind` label: a real `lds-host serve` under Valgrind, driven over its socket.
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
