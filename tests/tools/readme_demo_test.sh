#!/usr/bin/env bash
# readme_demo_test.sh: runs tools/demo.sh, README command 1's last step, and checks that it exits 0
# and that each step shows what the README promises a newcomer.
set -uo pipefail

repo=$1
out=$(mktemp)
trap 'rm -f "$out"' EXIT

if [ -e /tmp/lds-demo ]; then
  echo "readme_demo: /tmp/lds-demo already exists (another demo running, or one killed before its clean-up); remove it and run again."
  exit 1
fi
if command -v ss >/dev/null 2>&1 && ss -Hltn 'sport = :9092' | grep -q .; then
  echo "readme_demo: SKIP: port 9092, the listener of conf/broker.toml, is taken by another process."
  exit 77
fi

"$repo/tools/demo.sh" >"$out" 2>&1
rc=$?
# The demo's colours are for people; the checks read plain text.
text=$(sed 's/\x1b\[[0-9;]*m//g' "$out")
problems=0
expect() {
  if ! grep -qF -- "$1" <<<"$text"; then
    echo "readme_demo: the demo's output lacks: $1"
    problems=$((problems + 1))
  fi
}
expect_line() {
  if ! grep -qE -- "$1" <<<"$text"; then
    echo "readme_demo: no line of the demo's output matches: $1"
    problems=$((problems + 1))
  fi
}

# Placement by count: six partitions of clicks, two per disk, in log.dirs order.
for p in 0 3; do expect "clicks-$p -> /tmp/lds-demo/disk1 (strategy partition)"; done
for p in 2 5; do expect "clicks-$p -> /tmp/lds-demo/disk3 (strategy partition)"; done
# A cordon, then the cordon strategy: audit avoids disk3.
expect "log.directory.select.strategy: partition → cordon"
expect_line '^audit-[0-3] -> /tmp/lds-demo/disk[12] \(strategy cordon\)$'
if grep -qE '^audit-[0-3] -> /tmp/lds-demo/disk3' <<<"$text"; then
  echo "readme_demo: a partition of audit landed on the cordoned disk3"
  problems=$((problems + 1))
fi
# The drain through a Kafka reassignment file, and the throttle it clears.
expect "Reassignment of replica clicks-2-0 completed successfully."
expect "Reassignment of replica clicks-5-0 completed successfully."
expect "Clearing broker-level throttles on broker 0"
# The live swap to size.
expect "log.directory.select.strategy: cordon → size"
expect_line '^events-[0-7] -> /tmp/lds-demo/disk[123] \(strategy size\)$'
# kcat through the Kafka listener, when it is installed.
if command -v kcat >/dev/null 2>&1; then
  expect "offset 0: alice = hello (origin=demo)"
  expect "offset 2: carol = hallo (origin=demo)"
fi
expect "Stopped cleanly."
# Apache Kafka with the agent, where the build made it: one placement by the size strategy.
if [ -f "$repo/build/adapters/kafka/lds-kafka-agent.jar" ]; then
  expect_line '^  Placed orders-0 -> /tmp/lds-demo/disk[123]/kafka \(strategy size, generation 1\)\.$'
  expect "Kafka stopped."
fi

if [ "$rc" != 0 ] || [ "$problems" != 0 ]; then
  echo "readme_demo: tools/demo.sh exited $rc with $problems problem(s); its output:"
  echo "$text"
  exit 1
fi
if [ -e /tmp/lds-demo ] || [ -e "$repo/conf/broker.toml.dynamic" ]; then
  echo "readme_demo: the demo left /tmp/lds-demo or conf/broker.toml.dynamic behind"
  exit 1
fi
if pgrep -f "kafka.Kafka /tmp/lds-demo/" >/dev/null; then
  echo "readme_demo: the demo left its Kafka broker running"
  exit 1
fi
echo "readme_demo: the demo ran every step and cleaned up after itself"
