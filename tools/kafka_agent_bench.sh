#!/usr/bin/env bash
# kafka_agent_bench.sh: times LogManager.nextLogDirs() on a real Apache Kafka 4.4 LogManager holding
# 10,000 partitions (100 topics x 100) on 12 log dirs, and prints one table of the figures:
#   Kafka's own         the method as Kafka ships it, in a JVM without the agent;
#   advised, size       the method lds-kafka-agent.jar advises, strategy size loaded, for a new
#                       partition of a hosted topic (in a JVM started with -javaagent);
#   advised, partition  the same with strategy partition;
# each with its ratio to Kafka's own, against the goal: advised <= 1.5 x Kafka's own. Every variant
# runs in a JVM of its own (JMH, average time per call, plus the JVM's CPU time per call); the
# variants take turns over $LDS_KAFKA_BENCH_ROUNDS rounds (default 3), so that the load of a shared
# machine weighs on all of them alike, and the table gives medians over the rounds.
#
# Usage: kafka_agent_bench.sh [--smoke] [BUILD_DIR] (default ./build). --smoke runs each variant
# for a moment on 1,200 partitions and prints the same table without the verdict, in about half a
# minute: it checks that the benchmark runs, not how fast. Needs, in BUILD_DIR, the agent, its
# bridge and the plugins (ninja -C BUILD_DIR lds_kafka_agent lds_kafka_bridge plugins), and the
# Maven repository filled by tools/install-deps.sh: the benchmark jar is built offline into
# BUILD_DIR/adapters/kafka/bench. The log dirs go under /dev/shm (else the temp folder), or under
# $LDS_BENCH_DIR, and are removed afterwards (a few MiB; 10,000 open files). $LDS_KAFKA_BENCH_JMH
# replaces the JMH settings of each run (default "-f 1 -wi 3 -w 2s -i 5 -r 2s"; add e.g.
# "-prof stack" to profile). Takes about five minutes on 2 cores, a third of it creating the
# 10,000 logs in each JVM. Not part of the test suite; the exit code says whether the benchmark
# ran, not whether the goal was met.
set -euo pipefail

smoke=0
if [[ ${1:-} == --smoke ]]; then
  smoke=1
  shift
fi
if (($# > 1)); then
  printf 'kafka_agent_bench.sh: takes --smoke and the build folder; got %d other arguments.\n' $# >&2
  exit 2
fi
case "${1:-}" in
  -h | --help)
    sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'
    exit 0
    ;;
  -*)
    printf 'kafka_agent_bench.sh: unknown option "%s"; usage: kafka_agent_bench.sh [--smoke] [BUILD_DIR].\n' "$1" >&2
    exit 2
    ;;
esac

repo=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$repo/build}
if [[ ! -d $build ]]; then
  printf 'kafka_agent_bench.sh: no build folder %s.\n' "$build" >&2
  exit 2
fi
build=$(cd "$build" && pwd)
agent=$build/adapters/kafka/lds-kafka-agent.jar
bridge=$build/adapters/kafka/liblds_kafka_bridge.so
plugins=$build/plugins
bench_dir=$build/adapters/kafka/bench
bench_jar=$bench_dir/lds-kafka-agent-bench.jar
if ((smoke)); then
  jmh=(-f 1 -wi 1 -w 200ms -i 1 -r 200ms -p partitions=1200 -p topics=12)
  rounds=1 goal=0
else
  read -r -a jmh <<<"${LDS_KAFKA_BENCH_JMH:--f 1 -wi 3 -w 2s -i 5 -r 2s}"
  rounds=${LDS_KAFKA_BENCH_ROUNDS:-3} goal=1.5
fi
if [[ ! $rounds =~ ^[1-9][0-9]*$ ]]; then
  printf 'kafka_agent_bench.sh: LDS_KAFKA_BENCH_ROUNDS must be a positive number; got "%s".\n' "$rounds" >&2
  exit 2
fi

note() { printf '%s\n' "$*" >&2; }

for f in "$agent" "$bridge" "$plugins/liblds_size.so" "$plugins/liblds_partition.so"; do
  if [[ ! -f $f ]]; then
    note "kafka_agent_bench.sh: $f is missing; build it first:"
    note "  ninja -C $build lds_kafka_agent lds_kafka_bridge plugins"
    exit 2
  fi
done
for tool in mvn java; do
  if ! command -v $tool >/dev/null; then
    note "kafka_agent_bench.sh: needs $tool (tools/install-deps.sh installs it)."
    exit 2
  fi
done

# Each log holds a file open: 10,000 logs need more descriptors than the usual soft limit of 1024.
need_files=$((smoke ? 2000 : 12000))
enough_files() { [[ $(ulimit -n) == unlimited ]] || (($(ulimit -n) >= need_files)); }
if ! enough_files; then
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  if ! enough_files; then
    note "kafka_agent_bench.sh: the open logs need 'ulimit -n' of $need_files or more (hard limit: $(ulimit -Hn))."
    exit 2
  fi
fi

out=$(mktemp -d "${TMPDIR:-/tmp}/lds-kafka-bench-XXXXXX")
# The forks' log dirs go in a folder of their own, removed even when a fork dies half-way.
if [[ -n ${LDS_BENCH_DIR:-} ]]; then
  scratch_base=$LDS_BENCH_DIR
elif [[ -d /dev/shm && -w /dev/shm ]]; then
  scratch_base=/dev/shm
else
  scratch_base=${TMPDIR:-/tmp}
fi
scratch=$(mktemp -d "$scratch_base/lds-kafka-bench-XXXXXX")
trap 'rm -rf "$out" "$scratch"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

note "Building the benchmark jar in $bench_dir (Maven, offline)"
if ! mvn -o -q -B -f "$repo/adapters/kafka/bench/pom.xml" package \
  -Dlds.build.dir="$bench_dir" >"$out/build.log" 2>&1; then
  tail -n 40 "$out/build.log" >&2
  note "kafka_agent_bench.sh: building the benchmark jar failed (offline: has tools/install-deps.sh filled ~/.m2?)."
  exit 1
fi

note "Measuring nextLogDirs() in $rounds round(s): Kafka's own, advised with size, advised with partition (JMH ${jmh[*]})"
rc=0
java -cp "$bench_jar" org.logdirstrategy.kafka.bench.AgentBench \
  --agent "$agent" --plugin-dir "$plugins" --strategies size,partition --rounds "$rounds" --goal "$goal" \
  --table "$out/table.txt" "${jmh[@]}" -p scratchDir="$scratch" >"$out/jmh.log" || rc=$?
if ((rc != 0)) || [[ ! -s $out/table.txt ]]; then
  tail -n 60 "$out/jmh.log" >&2
  note "kafka_agent_bench.sh: the benchmark failed (exit code $rc); the end of JMH's output is above."
  exit 1
fi
if ((smoke)); then
  echo "smoke run: each variant ran for a moment; the figures below check that it runs, not how fast"
fi
cat "$out/table.txt"
