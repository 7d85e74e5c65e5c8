#!/usr/bin/env bash
# run-tests.sh: builds everything and runs the whole test suite (README command 2, what CI runs).
#
#   tools/run-tests.sh           every stage below; the closing line counts the tests
#   tools/run-tests.sh --quick   the edit-test loop: an incremental build in ./build-quick (ccache
#                                where installed) and the unit, contract and strategy suites
#
# The stages, each failing the script on its first failing test. Builds are unity builds
# (LDS_UNITY_BUILD) with line tables only (-g1): Valgrind, the sanitizers and backtraces still name
# every function, file and line. Stages that mostly wait run beside the builds, which use the CPU.
#   1. the Release build (./build, -O3): lds-host, the plugins, the benchmarks, and what stage 2
#      runs;
#   2. beside stage 3, on that build: README command 1's demo (label demo), the docs' links, the
#      packaging suites (the .deb, the SDK alone, a plugin built out of tree), the torture test,
#      the suites that only compute (label optimized: the simulator's long runs),
#      Valgrind memcheck where it sees what the sanitizers cannot (plugins loaded and unloaded,
#      label memcheck; `lds-host serve` and 1,000 swap cycles, label valgrind), and the benchmark
#      smoke run (tools/bench.sh --smoke);
#   3. the AddressSanitizer + UndefinedBehaviorSanitizer build (./build-asan, clang, -O0), with the
#      libFuzzer targets: every other suite, all of it under the sanitizers; any report fails it.
#      clang, not GCC: its -O0 compiles take about half the time, and the fuzzers need it; GCC
#      builds the Release and ThreadSanitizer stages, so both compilers' -Werror hold;
#   4. the ThreadSanitizer build (./build-tsan, GCC -O2, so -O2 builds clean too), built beside the
#      stage 3 suite: the concurrency suites; any report fails them;
#   5. the style gate, tools/check-style.sh (clang-format, clang-tidy), from the start on one job;
#   6. the libFuzzer targets of stage 3's build, side by side for LDS_FUZZ_SECONDS (30) each;
#   7. on the Release build, after the rest: Apache Kafka with lds-kafka-agent.jar (label
#      real-kafka), real KRaft clusters of JVMs, in two lanes: the cluster balancer's suite, which
#      mostly waits through a two-minute soak, beside the others one at a time. Kafka 4.4.0's
#      class-data archive is made beside stages 2 and 3.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
jobs=$(nproc)
quick=0
case "${1:-}" in
  --quick) quick=1 ;;
  "") ;;
  *) echo "run-tests.sh: unknown option $1 (use --quick, or nothing for every stage)" >&2; exit 2 ;;
esac

stage() { printf '\n=== %s (%d s so far)\n' "$*" "$SECONDS"; }
timeline=()
timed() { timeline+=("$(printf '%-14s ended at %5d s' "$1" "$SECONDS")"); }
# measured <name> <command...>: runs the command in a subshell and notes the CPU seconds (user +
# system) it and its children used in $cpu_log, one "name seconds" line.
cpu_log=$(mktemp)
trap 'rm -f "$cpu_log"' EXIT
measured() {
  local name=$1
  shift
  (
    set +e
    "$@"
    rc=$?
    # times, a builtin, counts this subshell's children only when it runs in it: no pipe.
    times >"$cpu_log.$BASHPID"
    awk -v name="$name" 'NR == 2 {
      split($1, u, /[ms]/); split($2, s, /[ms]/)
      printf "%s %.0f\n", name, u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$cpu_log.$BASHPID" >>"$cpu_log"
    rm -f "$cpu_log.$BASHPID"
    exit "$rc"
  )
}

launcher=()
if command -v ccache >/dev/null 2>&1; then
  launcher=(-DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
fi

# Every ctest run goes through run_ctest, which adds its counts to the closing line.
passed=0
failed=0
count_ctest() {  # count_ctest <log>: adds the counts of every ctest run in a log
  local line total failures
  while read -r line; do
    total=$(sed -E 's/.* out of ([0-9]+).*/\1/' <<<"$line")
    failures=$(sed -E 's/.* ([0-9]+) tests failed.*/\1/' <<<"$line")
    passed=$((passed + total - failures))
    failed=$((failed + failures))
  done < <(grep -E '[0-9]+ tests failed out of [0-9]+' "$1")
}
give_up() {  # give_up <exit code> <what failed>
  echo "tests: $passed passed, $((failed > 0 ? failed : 1)) failed ($2)"
  exit "$1"
}
run_ctest() {  # run_ctest <name> <ctest arguments...>
  local ctest_name=$1 log rc
  shift
  log=$(mktemp)
  set +e
  measured "$ctest_name" ctest "$@" 2>&1 | tee "$log"
  rc=${PIPESTATUS[0]}
  set -e
  count_ctest "$log"
  rm -f "$log"
  if [ "$rc" != 0 ]; then give_up "$rc" "ctest $*"; fi
}
if [ "$quick" = 1 ]; then
  build="$repo/build-quick"
  stage "Quick: incremental build ($build) and the unit, contract and strategy suites"
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g1 -DNDEBUG" \
    "${launcher[@]}" >/dev/null
  measured quick_build cmake --build "$build" -j"$jobs"
  run_ctest quick_suites --test-dir "$build" --output-on-failure -j"$jobs" -L 'unit|contract|strategies|docs'
  stage "Quick tier passed"
  echo "tests: $passed passed, $failed failed"
  exit 0
fi

build="$repo/build"
asan_build="${LDS_ASAN_BUILD_DIR:-$repo/build-asan}"
tsan_build="$repo/build-tsan"

# What the script starts in the background, and its scratch files, go on every way out.
background=()
scratch=()
clean_up() {
  for pid in "${background[@]}"; do kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true; done
  for pid in "${background[@]}"; do wait "$pid" 2>/dev/null || true; done
  if [ ${#scratch[@]} -gt 0 ]; then rm -rf "${scratch[@]}"; fi
  rm -f "$cpu_log"
}
trap clean_up EXIT
work=$(mktemp -d)
scratch+=("$work")
start_background() {  # start_background <log> <command or function...>: its own process group
  local log=$1
  shift
  set -m
  ("$@") >"$log" 2>&1 &
  set +m
  background+=($!)
  last_pid=$!
}

# The style gate runs from the start, on one job: clang-tidy is CPU-bound, and it has the whole run
# to finish. Its verdict is read at the Style stage.
start_background "$work/style.log" measured style nice -n 10 env LDS_TIDY_JOBS=1 "$repo/tools/check-style.sh" "$build-tidy"
style_pid=$last_pid

stage "1. Release build ($build, -O3)"
cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_C_FLAGS_RELEASE="-O3 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELEASE="-O3 -g1 -DNDEBUG" \
  -DLDS_UNITY_BUILD=ON -DLDS_BUILD_BENCHMARKS=ON "${launcher[@]}" >/dev/null
measured release_build cmake --build "$build" -j"$jobs" --target lds-host lds_strategies lds_benchmarks lds_suite_torture \
  lds_suite_real-kafka lds_suite_memcheck lds_suite_valgrind lds_suite_optimized lds_bad_plugin_files
timed release_build

# Kafka 4.4.0's class path and class-data archive, which every suite of stage 7 starts with, are
# made beside stages 2 and 3 (tests/support/real_kafka.py warm-up: a one-node cluster on plain
# folders), not by the first suites of stage 7 at once. Kafka 4.3.2's, each used by one one-node
# test, are left to those tests. A warm-up that fails leaves its work to the suites.
warm_kafka() {
  LDS_KAFKA_CACHE_DIR="$build/kafka-runtime-cache" \
    /usr/bin/python3 "$repo/tests/support/real_kafka.py" warm-up 4.4.0 || true
}
start_background "$work/warm-kafka.log" measured kafka_warm_up warm_kafka
warm_kafka_pid=$last_pid

# Stage 2 runs beside stage 3: its suites mostly wait (servers, moves, Valgrind's one thread), so
# they keep the normal priority and the stage 3 build yields to them.
plain_stage() {
  set -e
  echo "--- suites of the Release build (labels demo, docs, packaging, torture, optimized)"
  # One job more than the cores: the two torture halves take two for minutes, mostly waiting.
  ctest --test-dir "$build" --output-on-failure -j$((jobs + 1)) -L 'demo|docs|packaging|torture|optimized'
  echo "--- Valgrind memcheck: plugins loaded and unloaded (label memcheck)"
  ctest --test-dir "$build" -T memcheck -L memcheck --output-on-failure -j"$jobs"
  echo "--- lds-host serve and 1,000 swap cycles under Valgrind (label valgrind)"
  ctest --test-dir "$build" -L valgrind --output-on-failure
  echo "--- the benchmark smoke run (tools/bench.sh --smoke, on this build)"
  LDS_BENCH_BUILD_DIR="$build" "$repo/tools/bench.sh" --smoke
}
start_background "$work/plain.log" measured plain_suites plain_stage
plain_pid=$last_pid

stage "3. AddressSanitizer + UndefinedBehaviorSanitizer build ($asan_build, clang -O0), every other suite"
CC=clang CXX=clang++ cmake -S "$repo" -B "$asan_build" -G Ninja -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-g1" -DCMAKE_CXX_FLAGS_DEBUG="-g1" -DLDS_UNITY_BUILD=ON \
  -DLDS_SANITIZE=address,undefined -DLDS_BUILD_FUZZERS=ON "${launcher[@]}" >/dev/null
measured asan_build nice -n 5 cmake --build "$asan_build" -j"$jobs"
timed asan_build

# The ThreadSanitizer build runs beside the AddressSanitizer suite, which mostly waits.
build_tsan() {
  set -e
  echo "--- ThreadSanitizer build ($tsan_build, -O2)"
  cmake -S "$repo" -B "$tsan_build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" \
    -DLDS_UNITY_BUILD=ON -DLDS_SANITIZE=thread "${launcher[@]}" >/dev/null
  measured tsan_build nice -n 5 cmake --build "$tsan_build" -j"$jobs" --target lds_suite_concurrency
}
start_background "$work/tsan.log" build_tsan
tsan_pid=$last_pid

# One job more than the cores: most of these suites wait on a broker, a move or a kill -9.
ASAN_OPTIONS="detect_leaks=1:halt_on_error=1" \
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
  run_ctest asan_suite --test-dir "$asan_build" --output-on-failure -j$((jobs + 1)) \
    -LE 'demo|docs|packaging|torture|valgrind|optimized'
timed asan_suite

stage "2. The Release build's suites, Valgrind and the benchmark smoke run (beside stage 3)"
plain_ok=1
wait "$plain_pid" || plain_ok=0
timed plain_suites
cat "$work/plain.log"
count_ctest "$work/plain.log"
if [ "$plain_ok" = 0 ]; then give_up 1 "the Release build's suites, Valgrind or the benchmark smoke"; fi

stage "4. ThreadSanitizer ($tsan_build, -O2), label concurrency; its build ran beside stage 3"
tsan_ok=1
wait "$tsan_pid" || tsan_ok=0
timed tsan_build
cat "$work/tsan.log"
if [ "$tsan_ok" = 0 ]; then give_up 1 "the ThreadSanitizer build"; fi
TSAN_OPTIONS="halt_on_error=1 exitcode=66" \
  run_ctest tsan_suite --test-dir "$tsan_build" -L concurrency --output-on-failure
timed tsan_suite

stage "6. libFuzzer targets ($asan_build), ${LDS_FUZZ_SECONDS:-30} s each, side by side"
fuzz_ok=1
measured fuzzers "$repo/tools/run-fuzzers.sh" "$asan_build" >"$work/fuzz.log" 2>&1 || fuzz_ok=0
cat "$work/fuzz.log"
if [ "$fuzz_ok" = 0 ]; then give_up 1 "fuzzing"; fi
# One test per fuzzer that ran clean.
passed=$((passed + $(grep -cE '^lds_fuzz_[a-z_]+:$' "$work/fuzz.log")))
timed fuzzers

stage "7. Apache Kafka with the agent ($build), label real-kafka, in two lanes"
wait "$warm_kafka_pid" || true
cat "$work/warm-kafka.log"
run_ctest real_kafka --test-dir "$build" -L real-kafka --output-on-failure -j2
timed real_kafka

stage "5. Style: clang-format and clang-tidy (started with the run)"
style_ok=1
wait "$style_pid" || style_ok=0
timed style
cat "$work/style.log"
if [ "$style_ok" = 0 ]; then give_up 1 "style"; fi
background=()

stage "All stages passed in $SECONDS s"
# When each part ended, in seconds from the start (stages overlap: see the header).
printf '%s\n' "${timeline[@]}"
# The CPU seconds (user + system) of each part, which the wall-clock time divides by the cores.
awk '{ printf "%-14s %5d CPU-s\n", $1, $2; total += $2 } END { printf "%-14s %5d CPU-s\n", "all parts", total }' "$cpu_log"
echo "tests: $passed passed, $failed failed"
