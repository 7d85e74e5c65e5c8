#!/usr/bin/env bash
# plugin_exports_test.sh: every shipped plugin (as cmake --install lays them out) exports only
# lds_strategy_get, and exactly the three strategies ship.
#
# Usage: plugin_exports_test.sh <source dir> <build dir> <cmake> <cpack>
source "$(dirname "$0")/common.sh"

prefix=$WORK/prefix
install_prefix "$prefix"
shipped=$(cd "$prefix/lib/lds/plugins" && ls)
[ "$shipped" = "$(printf 'liblds_cordon.so\nliblds_partition.so\nliblds_size.so')" ] ||
  fail "lib/lds/plugins holds: $(echo "$shipped" | tr '\n' ' ')"
for so in "$prefix"/lib/lds/plugins/*.so; do
  printf '%s: ' "$(basename "$so")"
  nm -D --defined-only "$so" | awk '{print $NF}' | tr '\n' ' '
  echo
  only_entry_point "$so"
done
echo "PASS"
