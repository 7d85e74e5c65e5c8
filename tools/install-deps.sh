#!/usr/bin/env bash
# Installs the Debian 12 packages the build, tests and demo need, skipping what is already present,
# then fills the Maven repository (~/.m2) once with what the Kafka agent's build, its benchmark and
# the real Kafka brokers of the tests need, so that no build or test downloads anything later.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  # lld links the test executables about four times faster than GNU ld (CMakeLists.txt, LDS_LINKER).
  lld
  libboost-dev libspdlog-dev libfmt-dev libtomlplusplus-dev nlohmann-json3-dev libcli11-dev
  # The codecs of compressed record batches (gzip, snappy, lz4, zstd), read by the Kafka listener.
  zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev
  libgtest-dev libgmock-dev libbenchmark-dev valgrind
  # The Prometheus endpoint (prometheus-cpp's pull exposer), and promtool, which checks what it
  # serves and conf/alerts.yml.
  prometheus-cpp-dev prometheus
  clang libclang-rt-14-dev clang-format clang-tidy
  python3 util-linux procps
  dpkg-dev file
  # Test dependencies: unmodified Kafka clients that drive the Kafka listener. Debian's Python
  # modules import only under /usr/bin/python3 (not a venv's or another installed python3).
  kcat python3-kafka python3-confluent-kafka
  # The Kafka agent (adapters/kafka): a Maven build on Java 17, which Kafka 4.x brokers run on.
  maven openjdk-17-jdk-headless
)
if [ "${LDS_WITH_PLOTS:-0}" = 1 ]; then packages+=(gnuplot-nox); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The Maven repository: the agent's build and its benchmark (each built once into a scratch folder,
# which also fetches Maven's own plugins), and the class path of the real Kafka brokers and tools
# the real-kafka suites start, for each version they run. Offline afterwards: every later mvn call
# runs with --offline.
repo=$(cd "$(dirname "$0")/.." && pwd)
poms=("$repo/adapters/kafka/pom.xml" "$repo/adapters/kafka/runtime/pom.xml")
if [ -f "$repo/adapters/kafka/bench/pom.xml" ]; then poms+=("$repo/adapters/kafka/bench/pom.xml"); fi
# A stamp named after the poms' contents, listing the jars Kafka's brokers and tools run from: once
# they have been fetched for and every listed jar is still there, the check costs a few stat calls.
# A pom edited by hand names another stamp; a jar deleted from ~/.m2 fails the check; a fill
# killed half way never wrote its stamp (it is renamed into place last).
# The Prometheus JMX exporter kafka_agent_test attaches to a broker (the version
# tests/adapters/kafka/CMakeLists.txt names).
exporter=io.prometheus.jmx:jmx_prometheus_javaagent:1.0.1
exporter_jar="$HOME/.m2/repository/io/prometheus/jmx/jmx_prometheus_javaagent/1.0.1/jmx_prometheus_javaagent-1.0.1.jar"
stamp="$HOME/.m2/repository/.lds-filled-$( (cat "${poms[@]}"; echo "$exporter") | sha256sum | cut -c1-16)"
filled() {
  [ -s "$stamp" ] || return 1
  local jar
  while IFS= read -r jar; do [ -f "$jar" ] || return 1; done <"$stamp"
}
if filled; then exit 0; fi
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mvn_quiet() { mvn --batch-mode --quiet "$@" >"$scratch/mvn.log" 2>&1 || { cat "$scratch/mvn.log"; exit 1; }; }
if ! mvn --offline --batch-mode --quiet -f "$repo/adapters/kafka/pom.xml" package \
     -Dlds.build.dir="$scratch/agent" >/dev/null 2>&1; then
  echo "install-deps: filling the Maven repository for the Kafka agent"
  mvn_quiet -f "$repo/adapters/kafka/pom.xml" package -Dlds.build.dir="$scratch/agent"
fi
if [ -f "$repo/adapters/kafka/bench/pom.xml" ] &&
   ! mvn --offline --batch-mode --quiet -f "$repo/adapters/kafka/bench/pom.xml" package \
     -Dlds.build.dir="$scratch/bench" >/dev/null 2>&1; then
  echo "install-deps: filling the Maven repository for the Kafka agent's benchmark"
  mvn_quiet -f "$repo/adapters/kafka/bench/pom.xml" package -Dlds.build.dir="$scratch/bench"
fi
for version in 4.4.0 4.3.2; do
  if ! mvn --offline --batch-mode --quiet -f "$repo/adapters/kafka/runtime/pom.xml" \
       dependency:build-classpath -Dkafka.version="$version" \
       -Dmdep.outputFile="$scratch/cp-$version" >/dev/null 2>&1; then
    echo "install-deps: fetching Apache Kafka $version (broker and tools) into the Maven repository"
    mvn_quiet -f "$repo/adapters/kafka/runtime/pom.xml" dependency:build-classpath \
      -Dkafka.version="$version" -Dmdep.outputFile="$scratch/cp-$version"
  fi
done
if [ ! -f "$exporter_jar" ]; then
  echo "install-deps: fetching the Prometheus JMX exporter ($exporter)"
  mvn_quiet dependency:get -Dartifact="$exporter" -Dtransitive=false
fi
cat "$scratch/cp-4.4.0" <(echo :) "$scratch/cp-4.3.2" <(echo :"$exporter_jar") | tr ':' '\n' |
  grep . >"$scratch/stamp"
mv "$scratch/stamp" "$stamp"
