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
#   hot_swap_bench   swap time, and placement latency while strategies are swapped;
#   move_bench.py    an unthrottled replica move of a 2 GiB partition by `lds-host serve`, against
#                    `cp -r` plus `sync` of the same partition on the same disk ($LDS_BENCH_DIR,
#                    default the temp folder; 4 GiB written in all, removed afterwards).
#   balance_plan_bench  planning one balance round at 100k partitions on 12 dirs (bound: 10 ms).
# Takes about five minutes on 2 cores. Not part of the test suite. Needs python3.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
build="${LDS_BENCH_BUILD_DIR:-$repo/build-bench}"
jobs=$(nproc)

note() { printf '%s\n' "$*" >&2; }

note "Building the benchmarks in $build (Release)"
cmake -S "$repo" -B "$build" -DCMAKE_BUILD_TYPE=Release -DLDS_BUILD_BENCHMARKS=ON >/dev/null
cmake --build "$build" -j"$jobs" --target placement_bench creation_bench memory_bench \
  hot_swap_bench balance_plan_bench lds-host lds_partition lds_size lds_cordon >/dev/null

export LDS_PLUGIN_DIR="$build/plugins"
out=$(mktemp -d "${TMPDIR:-/tmp}/lds-bench-XXXXXX")
trap 'rm -rf "$out"' EXIT

note "placement_bench (3 repetitions of every case; the longest part)"
"$build/tests/bench/placement_bench" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.2 \
  --benchmark_out="$out/placement.json" --benchmark_out_format=json >/dev/null
note "creation_bench (10,000 partitions on real directories, twice each way)"
"$build/tests/bench/creation_bench" 10000 2 >"$out/creation.json"
note "memory_bench (1,000,000 partitions)"
"$build/tests/bench/memory_bench" 1000000 >"$out/memory.json"
note "hot_swap_bench"
"$build/tests/bench/hot_swap_bench" >"$out/hot_swap.txt"
note "move_bench (a 2 GiB partition moved, and copied with cp -r + sync)"
python3 "$repo/tools/move_bench.py" "$build/host_stub/lds-host" "$build/plugins" "$out/move.json" \
  >/dev/null

note "balance_plan_bench (one balance round planned at 100k partitions, 12 dirs)"
"$build/tests/bench/balance_plan_bench" --benchmark_repetitions=3 \
  --benchmark_report_aggregates_only=true --benchmark_min_time=0.5 \
  --benchmark_out="$out/balance.json" --benchmark_out_format=json >/dev/null

python3 "$repo/tests/bench/bench_table.py" "$out"
python3 - "$out/balance.json" <<'PY'
import json, sys
for b in json.load(open(sys.argv[1]))["benchmarks"]:
    if b.get("aggregate_name") != "median":
        continue
    name = b["run_name"]
    line = f"{name}: {b['cpu_time']:.2f} {b['time_unit']} CPU (median of 3)"
    if name.startswith("plan/12/100000"):
        line += f", {int(b.get('moves', 0))} moves planned; bound 10 ms: " + ("met" if b["cpu_time"] <= 10 else "MISSED")
    print("Balance " + line)
PY
