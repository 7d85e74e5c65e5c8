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
#      any ThreadSanitizer report fails them;
#   5. the whole suite again in a -fsanitize=address,undefined build (./build-asan), except what
#      cannot run there (Valgrind) or is not about memory (packaging): any report fails it;
#   6. the style gate, tools/check-style.sh: clang-format and clang-tidy, any finding fails it (it
#      runs beside stages 1 to 5, on one job, and is read here);
#   7. the libFuzzer targets (config loader, admin request parser, Kafka frame and request parser)
#      built with clang in ./build-fuzz and run side by side for LDS_FUZZ_SECONDS (60) each from
#      their seed corpora: any crash, sanitizer report, timeout or out-of-memory fails it.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build="${LDS_BUILD_DIR:-$repo/build}"
jobs=$(nproc)

stage() { printf '\n=== %s\n' "$*"; }

# The builds here carry line tables only (-g1): Valgrind, the sanitizers and backtraces still name
# every function, file and line, and each build compiles about a third faster than with -g.
release_flags=(-DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG"
               -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG")
debug_flags=(-DCMAKE_C_FLAGS_DEBUG="-g1" -DCMAKE_CXX_FLAGS_DEBUG="-g1")

# Every ctest run goes through run_ctest, which adds its counts to the closing line.
passed=0
failed=0
run_ctest() {
  local log rc line total failures
  log=$(mktemp)
  set +e
  ctest "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  line=$(grep -E '[0-9]+ tests failed out of [0-9]+' "$log" | tail -n 1)
  rm -f "$log"
  if [ -n "$line" ]; then
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
    failures=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$line")
    passed=$((passed + total - failures))
    failed=$((failed + failures))
  fi
  if [ "$rc" != 0 ]; then
    echo "tests: $passed passed, $((failed > 0 ? failed : 1)) failed"
    exit "$rc"
  fi
}

stage "Build ($build)"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${release_flags[@]}" >/dev/null
cmake --build "$build" -j"$jobs"

# What the script starts in the background, and its scratch files, go on every way out.
background=()
scratch=()
clean_up() {
  for pid in "${background[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
  for pid in "${background[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ ${#scratch[@]} -gt 0 ]; then rm -rf "${scratch[@]}"; fi
}
trap clean_up EXIT

# The style gate runs beside the suites, on one job: clang-tidy is CPU-bound, and the suites spend
# much of their time waiting (servers, moves, timeouts). Its verdict is read at the Style stage.
style_log=$(mktemp)
scratch+=("$style_log")
set -m  # its own process group, so clean_up stops clang-tidy's children too
LDS_TIDY_JOBS=1 nice -n 10 "$repo/tools/check-style.sh" "$build-tidy" >"$style_log" 2>&1 &
style_pid=$!
set +m
background+=("$style_pid")

stage "Test suites"
run_ctest --test-dir "$build" --output-on-failure -j"$jobs" -LE valgrind

stage "Valgrind memcheck (label memcheck)"
run_ctest --test-dir "$build" -T memcheck -L memcheck --output-on-failure -j"$jobs"

stage "lds-host serve under Valgrind (label valgrind)"
run_ctest --test-dir "$build" -L valgrind --output-on-failure

stage "ThreadSanitizer build ($build-tsan), label concurrency"
cmake -S "$repo" -B "$build-tsan" -DCMAKE_BUILD_TYPE=RelWithDebInfo "${release_flags[@]}" \
  -DLDS_SANITIZE=thread >/dev/null
tsan_targets=$(ctest --test-dir "$build" -L concurrency -N | sed -n 's/^ *Test *#[0-9]*: \([A-Za-z0-9_]*\)$/\1/p')
# shellcheck disable=SC2086 # one word per target
cmake --build "$build-tsan" -j"$jobs" --target $tsan_targets
TSAN_OPTIONS="halt_on_error=1 exitcode=66" run_ctest --test-dir "$build-tsan" -L concurrency --output-on-failure

asan_build="${LDS_ASAN_BUILD_DIR:-$build-asan}"
stage "AddressSanitizer + UndefinedBehaviorSanitizer build ($asan_build), whole suite ($SECONDS s so far)"
# -O0 (Debug): the sanitizers find the same bugs, and it compiles about five times faster than -O2.
cmake -S "$repo" -B "$asan_build" -DCMAKE_BUILD_TYPE=Debug "${debug_flags[@]}" \
  -DLDS_SANITIZE=address,undefined >/dev/null
cmake --build "$asan_build" -j"$jobs"
ASAN_OPTIONS="detect_leaks=1:halt_on_error=1" \
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
  run_ctest --test-dir "$asan_build" --output-on-failure -j"$jobs" -LE 'valgrind|packaging|torture'

stage "Style: clang-format and clang-tidy, started beside the test suites ($SECONDS s so far)"
style_ok=1
wait "$style_pid" || style_ok=0
background=()
cat "$style_log"
if [ "$style_ok" = 0 ]; then
  echo "tests: $passed passed, 1 failed (style)"
  exit 1
fi

fuzz_build="${LDS_FUZZ_BUILD_DIR:-$build-fuzz}"
fuzz_seconds="${LDS_FUZZ_SECONDS:-60}"
stage "libFuzzer targets ($fuzz_build), ${fuzz_seconds} s each ($SECONDS s so far)"
CC=clang CXX=clang++ cmake -S "$repo" -B "$fuzz_build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  "${release_flags[@]}" -DLDS_BUILD_FUZZERS=ON >/dev/null
cmake --build "$fuzz_build" -j"$jobs" --target lds_fuzzers
fuzz_work=$(mktemp -d)
scratch+=("$fuzz_work")
# The three run side by side, each for the whole time.
fuzz_targets=(config admin_request kafka_request)
fuzz_pids=()
for target in "${fuzz_targets[@]}"; do
  seeds="$repo/tests/fuzz/corpus/${target%_request}"
  mkdir -p "$fuzz_work/$target"
  # New inputs go to a scratch corpus; the checked-in seeds are read only.
  ASAN_OPTIONS="detect_leaks=1:halt_on_error=1" UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    "$fuzz_build/tests/fuzz/lds_fuzz_$target" "$fuzz_work/$target" "$seeds" \
    -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -seed="${LDS_FUZZ_SEED:-1}" -print_final_stats=1 \
    -artifact_prefix="$fuzz_work/$target-" >"$fuzz_work/$target.log" 2>&1 &
  fuzz_pids+=($!)
  background+=($!)
done
fuzz_failed=0
for i in "${!fuzz_targets[@]}"; do
  target=${fuzz_targets[$i]}
  if ! wait "${fuzz_pids[$i]}"; then
    tail -n 60 "$fuzz_work/$target.log"
    echo "lds_fuzz_$target found a problem; the input that triggers it:"
    ls -l "$fuzz_work/$target-"* 2>/dev/null || true
    mkdir -p "$fuzz_build/artifacts" && cp "$fuzz_work/$target-"* "$fuzz_build/artifacts/" 2>/dev/null || true
    echo "copied to $fuzz_build/artifacts/ (reproduce: $fuzz_build/tests/fuzz/lds_fuzz_$target <file>)"
    fuzz_failed=1
    continue
  fi
  echo "lds_fuzz_$target:"
  grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$fuzz_work/$target.log"
done
background=()
if [ "$fuzz_failed" = 1 ]; then
  echo "tests: $passed passed, 1 failed (fuzzing)"
  exit 1
fi
stage "All stages passed in $SECONDS s"
echo "tests: $passed passed, $failed failed"
