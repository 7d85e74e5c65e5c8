#!/usr/bin/env bash
# run-fuzzers.sh <fuzz build>: runs the four libFuzzer targets (config loader, admin request
# parser, Kafka frame and request parser, Kafka's validation of a produced record batch) side by
# side for LDS_FUZZ_SECONDS (30) each, from their seed corpora. Any crash, sanitizer report, timeout or out-of-memory fails it, and the input that
# triggers it is copied to <fuzz build>/artifacts/. Called by run-tests.sh.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
fuzz_build=$1
fuzz_seconds="${LDS_FUZZ_SECONDS:-30}"
work=$(mktemp -d)
pids=()
clean_up() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap clean_up EXIT

targets=(config admin_request kafka_request record_batch)
for target in "${targets[@]}"; do
  seeds="$repo/tests/fuzz/corpus/${target%_request}"
  mkdir -p "$work/$target"
  # New inputs go to a scratch corpus; the checked-in seeds are read only.
  ASAN_OPTIONS="detect_leaks=1:halt_on_error=1" UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1" \
    "$fuzz_build/tests/fuzz/lds_fuzz_$target" "$work/$target" "$seeds" \
    -max_total_time="$fuzz_seconds" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -seed="${LDS_FUZZ_SEED:-1}" -print_final_stats=1 \
    -artifact_prefix="$work/$target-" >"$work/$target.log" 2>&1 &
  pids+=($!)
done
failed=0
for i in "${!targets[@]}"; do
  target=${targets[$i]}
  if ! wait "${pids[$i]}"; then
    tail -n 60 "$work/$target.log"
    echo "lds_fuzz_$target found a problem; the input that triggers it:"
    ls -l "$work/$target-"* 2>/dev/null || true
    mkdir -p "$fuzz_build/artifacts" && cp "$work/$target-"* "$fuzz_build/artifacts/" 2>/dev/null || true
    echo "copied to $fuzz_build/artifacts/ (reproduce: $fuzz_build/tests/fuzz/lds_fuzz_$target <file>)"
    failed=1
    continue
  fi
  echo "lds_fuzz_$target:"
  grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' "$work/$target.log"
done
pids=()
exit "$failed"
