#!/usr/bin/env bash
# demo.sh: a guided tour of lds-host on three log directories: placement, cordons, draining a disk
# with a reassignment file, a live strategy swap, and kcat producing and consuming through the
# Kafka listener; then Apache Kafka 4.4.0 itself placing partitions with the same strategy, through
# lds-kafka-agent.jar (when the agent was built and the Maven repository holds Kafka).
#
# Expects a build in ./build (README command 1 makes it). As root it mounts three tmpfs "disks" of
# 64, 128 and 256 MiB so that free space really differs; otherwise it uses plain folders and says so.
# Everything it creates (/tmp/lds-demo, and the dynamic overrides conf/broker.toml.dynamic) is
# removed at the end, also on Ctrl-C.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
host="$repo/build/host_stub/lds-host"
config="$repo/conf/broker.toml"
data=/tmp/lds-demo  # conf/broker.toml names this folder
sizes=(64 128 256)
mounted=()
server_pid=""
kafka_pid=""

if [ ! -x "$host" ]; then
  echo "demo: $host is missing; build first (README command 1)." >&2
  exit 2
fi

cleanup() {
  for pid in "$server_pid" "$kafka_pid"; do
    if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; then
      kill -TERM "$pid" 2>/dev/null || true
      wait "$pid" 2>/dev/null || true
    fi
  done
  for m in "${mounted[@]}"; do umount "$m" 2>/dev/null || umount -l "$m" 2>/dev/null || true; done
  rm -rf "$data" "$config.dynamic"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
say() { printf '%s\n' "$*" | fold -s -w 100; }
run() { printf '\033[2m$ lds-host %s\033[0m\n' "$*"; "$host" "$@" --config "$config"; }
shell() { printf '\033[2m$ %s\033[0m\n' "$1"; bash -c "$1"; }

# A demo killed outright (kill -9) leaves its Kafka broker running: stop it before starting over.
pkill -f "kafka.Kafka $data/kafka/server.properties" 2>/dev/null && sleep 2
rm -rf "$data" "$config.dynamic"  # start from the file's own settings
mkdir -p "$data"
step "Three log directories"
for i in 1 2 3; do
  mkdir -p "$data/disk$i"
  if [ "$(id -u)" = 0 ] && mount -t tmpfs -o "size=${sizes[$((i - 1))]}m" "lds-demo-disk$i" "$data/disk$i" 2>/dev/null; then
    mounted+=("$data/disk$i")
  fi
done
if [ ${#mounted[@]} = 3 ]; then
  say "/tmp/lds-demo/disk1, disk2 and disk3 are tmpfs disks of 64, 128 and 256 MiB, like three unequal drives in a JBOD broker."
else
  say "Not root (or mount is not allowed here): the three directories share one filesystem, so they all report the same free space and the size strategy cannot tell them apart. Run as root to see it follow free space."
fi

step "Start the broker (conf/broker.toml, strategy = partition, Kafka's default rule)"
"$host" serve --config "$config" >"$data/server.log" 2>&1 &
server_pid=$!
for _ in $(seq 1 100); do
  "$host" describe --config "$config" >/dev/null 2>&1 && break
  kill -0 "$server_pid" 2>/dev/null || { cat "$data/server.log"; exit 1; }
  sleep 0.1
done
say "The server listens on /tmp/lds-demo/lds-admin.sock; every command below is a client call to it."
run describe

step "Create topic 'clicks' with 6 partitions: the partition strategy spreads them by count, 2 per disk"
run create --topic clicks --partitions 6

step "Write 6 MiB into each partition of 'clicks'"
for p in 0 1 2 3 4 5; do "$host" produce --config "$config" --topic clicks --partition $p --bytes 6MiB >/dev/null; done
run describe
say "Every disk holds 12 MiB, but that is 19% of the 64 MiB disk and under 5% of the 256 MiB one: counting partitions ignores disk size."

step "Cordon disk3 (KIP-1066) while the partition strategy is active"
run configs --alter --add-config "cordoned.log.dirs=$data/disk3"
say "The server notes that this strategy does not honour cordons itself; the broker keeps them:"
grep -m1 "does not honour cordons" "$data/server.log" | sed 's/^/  /' | fold -s -w 100
step "Switch to the cordon strategy, live: new partitions now avoid disk3"
run configs --alter --add-config log.directory.select.strategy=cordon
run create --topic audit --partitions 4

step "Drain disk3 with a Kafka reassignment file (KIP-113 moves)"
say "conf/reassign-drain-disk3.json moves clicks-2 to disk1 and clicks-5 to disk2. Each replica is copied into a -future directory while it stays writable, then swapped in; the bar shows the copy."
run configs --alter --add-config replica.alter.log.dirs.io.max.bytes.per.second=25165824 >/dev/null
"$host" produce --config "$config" --topic clicks --partition 2 --bytes 2MiB >/dev/null
printf '\033[2m$ lds-host reassign --reassignment-json-file conf/reassign-drain-disk3.json --wait\033[0m\n'
"$host" reassign --config "$config" --reassignment-json-file "$repo/conf/reassign-drain-disk3.json" --wait
run describe

step "Lift the cordon and switch to the size strategy (KIP-178, fill mode with reservations)"
run configs --alter --delete-config cordoned.log.dirs --add-config log.directory.select.strategy=size
say "Now create topic 'events' with 8 partitions, each expected to grow to 8 MiB. Each placement reserves 8 MiB on its disk until the data arrives, so the burst spreads instead of piling onto one disk."
run create --topic events --partitions 8 --expected-bytes 8MiB
run describe
say "The size strategy put most of 'events' on the drained 256 MiB disk: it ranks disks by how full they would be after the placement, (used + reserved + expected) / total."

step "A Kafka client sees the same broker (the listener of conf/broker.toml)"
if command -v kcat >/dev/null 2>&1; then
  printf '\033[2m$ kcat -L -b 127.0.0.1:9092\033[0m\n'
  kcat -L -b 127.0.0.1:9092 -m 5 | sed 's/^/  /' | head -20
  say "kcat produces three keyed messages into a new topic 'greetings' and reads them back: real v2 record batches in its segment."
  run create --topic greetings --partitions 1
  shell "printf 'alice:hello\\nbob:bonjour\\ncarol:hallo\\n' | kcat -P -b 127.0.0.1:9092 -t greetings -p 0 -K: -H origin=demo -X acks=all"
  shell "kcat -C -b 127.0.0.1:9092 -t greetings -p 0 -o beginning -e -q -f 'offset %o: %k = %s (%h)\\n'"
else
  say "kcat is not installed (tools/install-deps.sh installs it); skipped."
fi

step "What the broker reports about its configuration"
run configs --describe --all | grep -E 'configs for broker|strategy|cordoned|expected'

step "Stop the broker"
kill -TERM "$server_pid"
wait "$server_pid"
server_pid=""
say "Stopped cleanly. Server log: $(grep -c . "$data/server.log") lines; the demo removes /tmp/lds-demo now."

step "Apache Kafka 4.4.0 places partitions with the same strategy (lds-kafka-agent.jar)"
agent="$repo/build/adapters/kafka/lds-kafka-agent.jar"
kafka="$data/kafka"
port_taken() { command -v ss >/dev/null 2>&1 && ss -Hltn "sport = :$1" | grep -q .; }
mkdir -p "$kafka"
if [ ! -f "$agent" ]; then
  say "The agent was not built (it needs Maven and a JDK: tools/install-deps.sh installs them); skipped."
elif ! mvn --offline --batch-mode --quiet -f "$repo/adapters/kafka/runtime/pom.xml" \
  dependency:build-classpath -Dmdep.outputFile="$kafka/classpath" >/dev/null 2>&1; then
  say "Kafka 4.4.0 is not in the Maven repository (tools/install-deps.sh fetches it); skipped."
elif port_taken 9192 || port_taken 9193; then
  say "Port 9192 or 9193 is taken by another process; skipped."
else
  export cp
  cp=$(cat "$kafka/classpath")
  for i in 1 2 3; do mkdir -p "$data/disk$i/kafka"; done
  {
    echo "process.roles=broker,controller"
    echo "node.id=1"
    echo "controller.quorum.voters=1@127.0.0.1:9193"
    echo "listeners=PLAINTEXT://127.0.0.1:9192,CONTROLLER://127.0.0.1:9193"
    echo "controller.listener.names=CONTROLLER"
    echo "log.dirs=$data/disk1/kafka,$data/disk2/kafka,$data/disk3/kafka"
    echo "metadata.log.dir=$kafka/metadata"
    echo "offsets.topic.replication.factor=1"
    echo "log.index.size.max.bytes=1048576"
    echo "# The agent's keys: the strategy and where its .so lives; dynamic through kafka-configs.sh."
    echo "log.directory.select.strategy=size"
    echo "log.directory.select.plugin.dir=$repo/build/plugins"
  } >"$kafka/server.properties"
  printf '%s\n' "rootLogger.level=INFO" "rootLogger.appenderRef.f.ref=F" "appender.f.type=File" \
    "appender.f.name=F" "appender.f.fileName=$kafka/server.log" "appender.f.layout.type=PatternLayout" \
    "appender.f.layout.pattern=[%d] %p %m (%c)%n" >"$kafka/log4j2.properties"
  java=(java -XX:TieredStopAtLevel=1 -XX:-UsePerfData -cp "$cp")
  "${java[@]}" kafka.tools.StorageTool format --config "$kafka/server.properties" \
    --cluster-id "$("${java[@]}" kafka.tools.StorageTool random-uuid)" >/dev/null
  say "A one-node KRaft Kafka 4.4.0 (broker and controller) on the same three disks, with the agent attached as an operator attaches it (KAFKA_OPTS=\"-javaagent:build/adapters/kafka/lds-kafka-agent.jar\") and log.directory.select.strategy=size in its server.properties."
  java -Xmx512m -XX:-UsePerfData -javaagent:"$agent" -Dlog4j2.configurationFile="$kafka/log4j2.properties" \
    -cp "$cp" kafka.Kafka "$kafka/server.properties" >"$kafka/stdout.log" 2>&1 &
  kafka_pid=$!
  for _ in $(seq 240); do
    grep -q 'Kafka Server started' "$kafka/server.log" 2>/dev/null && break
    kill -0 "$kafka_pid" 2>/dev/null || { cat "$kafka/stdout.log" "$kafka/server.log"; exit 1; }
    sleep 0.5
  done
  shell 'java -XX:TieredStopAtLevel=1 -cp "$cp" org.apache.kafka.tools.TopicCommand --bootstrap-server 127.0.0.1:9192 --create --topic orders --partitions 4 --replication-factor 1 2>/dev/null'
  for _ in $(seq 60); do
    [ "$(grep -c 'Placed orders-' "$kafka/server.log")" = 4 ] && break
    sleep 0.5
  done
  say "The agent's lines in Kafka's server log:"
  grep -E 'lds-kafka-agent: Kafka|strategy size .* now places|Placed orders-' "$kafka/server.log" |
    sed -E 's/^\[[^]]*\] [A-Z]+ //; s/ \(org\.logdirstrategy[^)]*\)$//; s/^/  /'
  kill -TERM "$kafka_pid"
  wait "$kafka_pid" || true
  kafka_pid=""
  say "Kafka stopped. docs/kafka-agent.md has the keys, the live swap with kafka-configs.sh and the MBean."
fi
