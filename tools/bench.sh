#!/usr/bin/env bash
# bench.sh: builds the benchmarks (Release, ./build-bench) and prints one table of their figures.
#
# Runs, in one go so that every ratio compares figures of the same run on the same machine:
#   placement_bench  the placement decision through the host and a loaded plugin, against the same
#                    ranking called directly and a port of Kafka's nextLogDirs, for D = 4, 12, 64
#                    log directories and P = 1k, 10k, 100k, 1M hosted partitions;
#   creation_bench   10,000 partitions created on real directories, against a bare loop of the
#                    same mkdir/create/fsync calls ($LDS_BENCH_DIR, default the temp folder);
#   memory_bench     heap bytes of host bookkeeping per partition at 1M partitions;
#   startup_bench    a start over 50,000 partitions after a clean shutdown and after a kill -9,
#                    against `find | xargs stat` of the same tree ($LDS_BENCH_DIR, default the temp
#                    folder; about 250 MiB, removed afterwards);
#   fetch_bench      a Fetch at random offsets of a 1 GiB segment of small batches, through its
#                    offset index, against a Fetch at the read hint ($LDS_BENCH_DIR, default the
#                    temp folder; 1 GiB, removed afterwards), and the index's rebuild;
#   hot_swap_bench   swap time, and placement latency while strategies are swapped;
#   move_bench.py    an unthrottled replica move of a 2 GiB partition by `lds-host serve`, against
#                    `cp -r` plus `sync` of the same partition on the same disk ($LDS_BENCH_DIR,
#                    default the temp folder; 4 GiB written in all, removed afterwards).
#   rss_bench.py     the resident memory of `lds-host serve` at 50,000 partitions after a clean
#                    restart and after a DescribeLogDirs of them all, against the same partitions
#                    created live ($LDS_BENCH_DIR, default the temp folder; removed afterwards).
#   fetch_cpu_bench.py  the CPU `lds-host serve` spends per MB that kcat fetches from a 512 MiB
#                    partition over the Kafka listener, against the CPU of `cat` of its segments
#                    ($LDS_BENCH_DIR, default the temp folder; removed afterwards). Needs kcat.
#   produce_cpu_bench.py  the CPU `lds-host serve` spends per MB that kcat produces to it in 1 KiB
#                    records (256 MiB), and the throughput against `dd` of the same bytes into the
#                    same dir ($LDS_BENCH_DIR, default the temp folder; removed afterwards). Not
#                    part of --smoke.
#   kafka_throughput_bench.py  Kafka's ProducerPerformance writing 1 KiB records, and kcat reading
#                    them back, against `lds-host serve` and against a one-node Apache Kafka 4.4.0,
#                    one after the other ($LDS_BENCH_DIR, default the temp folder; 256 MiB per run,
#                    two runs a side, removed afterwards). Needs Kafka's jars (tools/install-deps.sh)
#                    and kcat. Not part of --smoke.
#   balance_plan_bench  planning one balance round at 100k partitions on 12 dirs (bound: 10 ms).
# Takes about five minutes on 2 cores. Not part of the test suite. Needs python3.
#
# Usage: bench.sh [--smoke]. --smoke builds the same way, runs every benchmark for a moment (tiny
# sizes, one repetition, about 50 MiB written) and prints the same table without verdicts: it checks
# that each benchmark runs and that the table is produced, in well under a minute after the build.
# The build folder is $LDS_BENCH_BUILD_DIR, default ./build-bench; the build runs
# $CMAKE_BUILD_PARALLEL_LEVEL jobs, default one per core.
set -euo pipefail

smoke=0
if (($# > 1)); then
  printf 'bench.sh: takes at most one argument, --smoke; got %d.\n' $# >&2
  exit 2
fi
case "${1:-}" in
  "") ;;
  --smoke) smoke=1 ;;
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  *)
    printf 'bench.sh: unknown argument "%s"; the only option is --smoke.\n' "$1" >&2
    exit 2
    ;;
esac

repo=$(cd "$(dirname "$0")/.." && pwd)
build="${LDS_BENCH_BUILD_DIR:-$repo/build-bench}"
jobs=${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}

note() { printf '%s\n' "$*" >&2; }

out=$(mktemp -d "${TMPDIR:-/tmp}/lds-bench-XXXXXX")
trap 'rm -rf "$out"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Runs one step; on failure says which one and exits non-zero.
step() {
  local name=$1 rc=0
  shift
  "$@" || rc=$?
  if ((rc != 0)); then
    note "bench.sh: $name failed (exit code $rc)."
    exit 1
  fi
}

# The build's output is kept apart and shown only when the build fails.
quiet() {
  "$@" >"$out/build.log" 2>&1 || {
    local rc=$?
    tail -n 40 "$out/build.log" >&2
    return $rc
  }
}

configure=(cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLDS_BUILD_BENCHMARKS=ON)
if [[ ! -f $build/CMakeCache.txt ]] && command -v ninja >/dev/null; then
  configure+=(-G Ninja)
fi
if command -v ccache >/dev/null; then
  configure+=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_C_COMPILER_LAUNCHER=ccache)
fi
note "Building the benchmarks in $build (Release)"
step "configuring $build" quiet "${configure[@]}"
step "building the benchmarks in $build" quiet cmake --build "$build" -j"$jobs" \
  --target placement_bench creation_bench memory_bench startup_bench fetch_bench hot_swap_bench \
  balance_plan_bench lds-host \
  lds_partition lds_size lds_cordon

export LDS_PLUGIN_DIR="$build/plugins"
# The benchmarks' own scratch folders (when $LDS_BENCH_DIR is not set) go under $out, on the same
# filesystem as the temp folder, so that an interrupted run leaves nothing behind.
mkdir "$out/tmp"
export TMPDIR="$out/tmp"

if ((smoke)); then
  min_time=0.001 reps=1 partitions=200 rounds=1 memory=20000 swaps=30 restarted=500
  fetch_mib=16 fetch_reads=50
  export LDS_MOVE_BENCH_MIB=16 LDS_FETCH_CPU_BENCH_MIB=16 LDS_RSS_PARTITIONS=500
else
  export LDS_RSS_PARTITIONS=${LDS_RSS_PARTITIONS:-50000}
  min_time=0.2 reps=3 partitions=10000 rounds=2 memory=1000000 swaps=600 restarted=50000
  fetch_mib=1024 fetch_reads=2000
fi
move_text="a ${LDS_MOVE_BENCH_MIB:-2048} MiB partition"

note "placement_bench ($reps repetition(s) of every case; the longest part)"
step placement_bench "$build/tests/bench/placement_bench" --benchmark_repetitions=$reps \
  --benchmark_report_aggregates_only=true --benchmark_min_time=$min_time \
  --benchmark_out="$out/placement.json" --benchmark_out_format=json >/dev/null
note "creation_bench ($partitions partitions on real directories, $rounds round(s) each way)"
step creation_bench "$build/tests/bench/creation_bench" $partitions $rounds >"$out/creation.json"
note "memory_bench ($memory partitions)"
step memory_bench "$build/tests/bench/memory_bench" $memory >"$out/memory.json"
note "startup_bench ($restarted partitions started $((rounds + 1)) time(s) each way, and stat'ed)"
step startup_bench "$build/tests/bench/startup_bench" $restarted $((rounds + 1)) >"$out/startup.json"
note "fetch_bench ($fetch_reads Fetches at random offsets of a $fetch_mib MiB segment, and at the hint)"
step fetch_bench "$build/tests/bench/fetch_bench" $fetch_mib $fetch_reads >"$out/fetch.json"
note "hot_swap_bench ($swaps swaps)"
step hot_swap_bench "$build/tests/bench/hot_swap_bench" $swaps >"$out/hot_swap.txt"
note "move_bench ($move_text moved, and copied with cp -r + sync)"
step move_bench.py python3 "$repo/tools/move_bench.py" "$build/host_stub/lds-host" \
  "$build/plugins" "$out/move.json" >/dev/null

note "rss_bench.py (${LDS_RSS_PARTITIONS} partitions created live, then restarted and described)"
step rss_bench.py python3 "$repo/tools/rss_bench.py" "$build/host_stub/lds-host" \
  "$build/plugins" "$out/rss.json" >/dev/null

note "fetch_cpu_bench.py (kcat reading a ${LDS_FETCH_CPU_BENCH_MIB:-512} MiB partition; the broker's CPU, and cat's)"
step fetch_cpu_bench.py python3 "$repo/tools/fetch_cpu_bench.py" "$build/host_stub/lds-host" \
  "$build/plugins" "$out/fetch_cpu.json" >/dev/null

# Not in the smoke run, which CI runs beside the sanitizer suite: each keeps both cores busy for a
# minute or more.
if ((!smoke)); then
  note "produce_cpu_bench.py (kcat writing ${LDS_PRODUCE_CPU_BENCH_MIB:-256} MiB of 1 KiB records; the broker's CPU, and dd)"
  step produce_cpu_bench.py python3 "$repo/tools/produce_cpu_bench.py" "$build/host_stub/lds-host" \
    "$build/plugins" "$out/produce_cpu.json" >/dev/null
  note "kafka_throughput_bench.py (ProducerPerformance and kcat against lds-host and Apache Kafka 4.4.0, ${LDS_KAFKA_BENCH_MIB:-256} MiB a run)"
  step kafka_throughput_bench.py python3 "$repo/tools/kafka_throughput_bench.py" \
    "$build/host_stub/lds-host" "$build/plugins" "$out/kafka_throughput.json" >/dev/null
fi

note "balance_plan_bench (one balance round planned at 100k partitions, 12 dirs)"
step balance_plan_bench "$build/tests/bench/balance_plan_bench" \
  --benchmark_repetitions=$reps --benchmark_report_aggregates_only=true \
  --benchmark_min_time=$min_time \
  --benchmark_out="$out/balance.json" --benchmark_out_format=json >/dev/null

table=(python3 "$repo/tests/bench/bench_table.py")
if ((smoke)); then
  echo "smoke run: each benchmark ran for a moment; the figures below check that it runs, not how fast"
  table+=(--smoke)
fi
step bench_table.py "${table[@]}" "$out"
