#!/usr/bin/env bash
# out_of_tree_plugin_test.sh: install into a temp prefix, build plugins/example/ against it as a
# separate CMake project, check it with the installed lds-host, and place partitions with it.
#
# Usage: out_of_tree_plugin_test.sh <source dir> <build dir> <cmake> <cpack>
source "$(dirname "$0")/common.sh"

prefix=$WORK/prefix
lds_host=$prefix/bin/lds-host
plugin_dir=$prefix/lib/lds/plugins

step "cmake --install into $prefix"
install_prefix "$prefix"
expect_file "$lds_host" "$prefix/include/lds/logdir_strategy.h" \
  "$prefix/include/lds-host/config/config.h" "$prefix/include/lds-host/conformance/conformance.h" \
  "$prefix/lib/liblds_storage.a" "$prefix/lib/liblds_broker.a" "$prefix/lib/liblds_admin.a" \
  "$prefix/lib/liblds_conformance.a" \
  "$prefix/lib/cmake/LogDirStrategy/LogDirStrategyConfig.cmake" \
  "$prefix/lib/cmake/LogDirStrategy/LogDirStrategyConfigVersion.cmake" \
  "$prefix/lib/cmake/LogDirStrategy/LdsAddStrategyPlugin.cmake" \
  "$prefix/lib/cmake/LogDirStrategy/lds_plugin_exports.map" \
  "$prefix/lib/pkgconfig/logdir-strategy.pc" \
  "$prefix/share/lds/examples/CMakeLists.txt" "$prefix/share/lds/examples/most_free.c" \
  "$prefix/share/lds/examples/round_robin.c"
for name in partition size cordon; do expect_file "$plugin_dir/liblds_$name.so"; done
# A plugin's include path (<prefix>/include) reaches the ABI header and nothing else of the host.
[ "$(ls "$prefix/include/lds")" = "logdir_strategy.h" ] ||
  fail "include/lds holds more than logdir_strategy.h: $(ls "$prefix/include/lds" | tr '\n' ' ')"

step "pkg-config logdir-strategy: the example built without CMake, as strict C99"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
cflags=$(pkg-config --cflags logdir-strategy) || fail "pkg-config --cflags logdir-strategy failed"
echo "$cflags"
# Printed as it is, absolute and normalised (not .../lib/pkgconfig/../../lib/lds/plugins).
[ "$(pkg-config --variable=plugindir logdir-strategy)" = "$plugin_dir" ] ||
  fail "pkg-config's plugindir is $(pkg-config --variable=plugindir logdir-strategy), not $plugin_dir"
mkdir -p "$WORK/pkg-config-build"
# shellcheck disable=SC2046,SC2086  # the flags are meant to split
cc -std=c99 -Wall -Wextra -Werror -pedantic -Wconversion -O2 $cflags \
  $(pkg-config --variable=plugin_cflags logdir-strategy) "$LDS_SOURCE_DIR/plugins/example/most_free.c" \
  $(pkg-config --variable=plugin_ldflags logdir-strategy) -o "$WORK/pkg-config-build/liblds_most_free.so" ||
  fail "the example does not build with pkg-config's flags"
only_entry_point "$WORK/pkg-config-build/liblds_most_free.so"
[ "$(pkg-config --modversion logdir-strategy)" = "0.2.0" ] ||
  fail "pkg-config --modversion logdir-strategy is $(pkg-config --modversion logdir-strategy), not 0.2.0"

step "the same unchanged source built against the frozen ABI 1.0 header, checked by the 1.2 host"
mkdir -p "$WORK/v1_0-include/lds" "$WORK/v1_0-build"
cp "$LDS_SOURCE_DIR/tests/abi/v1_0/logdir_strategy.h" "$WORK/v1_0-include/lds/"
# shellcheck disable=SC2046  # the flags are meant to split
cc -std=c99 -Wall -Wextra -Werror -pedantic -Wconversion -O2 -I"$WORK/v1_0-include" \
  $(pkg-config --variable=plugin_cflags logdir-strategy) "$LDS_SOURCE_DIR/plugins/example/most_free.c" \
  $(pkg-config --variable=plugin_ldflags logdir-strategy) -o "$WORK/v1_0-build/liblds_most_free.so" ||
  fail "the example does not build against the 1.0 header"
"$lds_host" check-plugin "$WORK/v1_0-build/liblds_most_free.so" >"$WORK/v1_0-check.txt" ||
  { cat "$WORK/v1_0-check.txt"; fail "the 1.0 build of the example fails check-plugin on the 1.2 host"; }
grep -q "built for 1.0, and tested by a host of ABI 1.2" "$WORK/v1_0-check.txt" ||
  { cat "$WORK/v1_0-check.txt"; fail "check-plugin does not say the plugin was built for ABI 1.0"; }

step "pkg-config logdir-strategy: the same example built as C++ with c++ and plugin_cxxflags"
cxxflags=$(pkg-config --variable=plugin_cxxflags logdir-strategy)
for flag in -fPIC -fvisibility=hidden -fvisibility-inlines-hidden -fno-gnu-unique; do
  [[ " $cxxflags " == *" $flag "* ]] || fail "pkg-config's plugin_cxxflags lack $flag (CMake uses it)"
done
mkdir -p "$WORK/pkg-config-build/cxx"
# shellcheck disable=SC2046,SC2086  # the flags are meant to split
c++ -x c++ -std=c++17 -Wall -Wextra -Werror -O2 $cflags $cxxflags \
  "$LDS_SOURCE_DIR/plugins/example/most_free.c" -x none \
  $(pkg-config --variable=plugin_ldflags logdir-strategy) \
  -o "$WORK/pkg-config-build/cxx/liblds_most_free.so" ||
  fail "the example does not build as C++ with pkg-config's flags"
only_entry_point "$WORK/pkg-config-build/cxx/liblds_most_free.so"
"$lds_host" check-plugin "$WORK/pkg-config-build/cxx/liblds_most_free.so" >/dev/null ||
  fail "check-plugin refuses the example built as C++ with pkg-config's flags"

step "plugins/example/ configured and built out of tree with find_package(LogDirStrategy)"
example_build=$WORK/example-build
"$CMAKE" -S "$LDS_SOURCE_DIR/plugins/example" -B "$example_build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" -Werror=dev \
  >"$WORK/example-configure.log" 2>&1 || { cat "$WORK/example-configure.log"; fail "configure failed"; }
"$CMAKE" --build "$example_build" >"$WORK/example-build.log" 2>&1 ||
  { cat "$WORK/example-build.log"; fail "build failed"; }
example_so=$example_build/liblds_most_free.so
expect_file "$example_so"
only_entry_point "$example_so"

step "lds_add_strategy_plugin builds with -O2 when no build type is set"
untyped_build=$WORK/example-untyped
"$CMAKE" -S "$LDS_SOURCE_DIR/plugins/example" -B "$untyped_build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >"$WORK/example-untyped.log" 2>&1 ||
  { cat "$WORK/example-untyped.log"; fail "configure without a build type failed"; }
grep -q -- '-O2' "$untyped_build/compile_commands.json" ||
  { cat "$untyped_build/compile_commands.json"; fail "no -O2 without a build type"; }

step "installed lds-host check-plugin on the examples, as a 1.1 and as a 1.0 host"
for so in "$example_so" "$example_build/liblds_round_robin.so"; do
  expect_file "$so"
  only_entry_point "$so"
  for abi in 1.1 1.0; do
    "$lds_host" check-plugin --host-abi "$abi" "$so" || fail "lds-host check-plugin --host-abi $abi $so failed"
  done
done

step "the host library from find_package(LogDirStrategy COMPONENTS host), in a small program"
embed=$WORK/embed
mkdir -p "$embed"
cat >"$embed/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(embed LANGUAGES CXX)
set(CMAKE_CXX_STANDARD 20)
find_package(LogDirStrategy REQUIRED COMPONENTS host)
add_executable(embed embed.cpp)
target_link_libraries(embed PRIVATE LogDirStrategy::host LogDirStrategy::conformance)
CMAKE
cat >"$embed/embed.cpp" <<'CPP'
// embed.cpp: a broker embedding the installed host library: runs the conformance checks on a plugin.
#include <iostream>

#include <lds/logdir_strategy.h>

#include "conformance/conformance.h"
#include "strategy/abi_rules.h"

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  if (!lds::abi_rules::valid_strategy_name("most_free")) return 2;
  const lds::ConformanceReport report = lds::run_conformance(argv[1]);
  std::cout << "ABI " << LDS_ABI_MAJOR << "." << LDS_ABI_MINOR << ": " << lds::format_report(report);
  return report.all_passed() ? 0 : 1;
}
CPP
"$CMAKE" -S "$embed" -B "$embed/build" -DCMAKE_PREFIX_PATH="$prefix" -Werror=dev \
  >"$WORK/embed-configure.log" 2>&1 || { cat "$WORK/embed-configure.log"; fail "configure failed"; }
"$CMAKE" --build "$embed/build" >"$WORK/embed-build.log" 2>&1 ||
  { cat "$WORK/embed-build.log"; fail "build against LogDirStrategy::host failed"; }
"$embed/build/embed" "$example_so" >"$WORK/embed.out" || { cat "$WORK/embed.out"; fail "embed failed"; }
tail -n 1 "$WORK/embed.out"

step "drop the example into the default plugin.dir; lds-host serve selects it from its config"
cp "$example_so" "$plugin_dir/"
broker=$WORK/broker
mkdir -p "$broker"
cat >"$broker/broker.toml" <<'TOML'
# No plugin.dir: the installed lds-host loads from ../lib/lds/plugins beside itself.
broker.id = 0
log.dirs = ["disk1", "disk2", "disk3"]
admin.socket = "admin.sock"
log.directory.select.strategy = "most_free"
log.directory.select.most_free.min.free.bytes = 1048576
cordoned.log.dirs = ["disk1"]
TOML
socket=$broker/admin.sock
"$lds_host" serve --config "$broker/broker.toml" >"$broker/serve.log" 2>&1 &
server=$!
cleanup_pids+=("$server")
for _ in $(seq 100); do
  "$lds_host" describe --socket "$socket" >/dev/null 2>&1 && break
  kill -0 "$server" 2>/dev/null || { cat "$broker/serve.log"; fail "lds-host serve exited at startup"; }
  sleep 0.1
done
"$lds_host" describe --socket "$socket" || { cat "$broker/serve.log"; fail "lds-host serve never answered"; }

# json_check <file> <python expression over j>: fails with the file's content when false.
json_check() {
  python3 - "$1" "$2" <<'PY' || { cat "$1"; fail "$2"; }
import json, sys
j = json.load(open(sys.argv[1]))
sys.exit(0 if eval(sys.argv[2]) else 1)
PY
}

"$lds_host" configs --socket "$socket" --describe --json >"$WORK/configs.json" ||
  fail "configs --describe failed"
json_check "$WORK/configs.json" \
  "[c['value'] for c in j['configs'] if c['name'] == 'plugin.dir'] == ['$(realpath "$plugin_dir")']"

grep -q 'most_free: min.free.bytes=1048576' "$broker/serve.log" ||
  { cat "$broker/serve.log"; fail "most_free did not get its option from the config file"; }

step "create places partitions with most_free, never on the cordoned disk1"
"$lds_host" create --socket "$socket" --topic orders --partitions 4 --json >"$WORK/create1.json" ||
  { cat "$WORK/create1.json" "$broker/serve.log"; fail "create failed"; }
json_check "$WORK/create1.json" \
  "len(j['partitions']) == 4 and all(p['created'] and p['strategy'] == 'most_free' and not p['logDir'].endswith('/disk1') for p in j['partitions'])"

step "swap live to the shipped partition strategy and back to most_free (configs --alter)"
"$lds_host" configs --socket "$socket" --alter --add-config log.directory.select.strategy=partition ||
  fail "swap to partition failed"
"$lds_host" create --socket "$socket" --topic audit --partitions 1 --json >"$WORK/create2.json" ||
  { cat "$WORK/create2.json"; fail "create after the swap to partition failed"; }
json_check "$WORK/create2.json" "j['partitions'][0]['strategy'] == 'partition'"
"$lds_host" configs --socket "$socket" --alter --add-config log.directory.select.strategy=most_free ||
  fail "swap back to most_free failed"
"$lds_host" create --socket "$socket" --topic events --partitions 2 --json >"$WORK/create3.json" ||
  { cat "$WORK/create3.json"; fail "create after the swap back to most_free failed"; }
json_check "$WORK/create3.json" \
  "all(p['strategy'] == 'most_free' and not p['logDir'].endswith('/disk1') for p in j['partitions'])"

step "stop lds-host serve"
kill -TERM "$server"
status=0
wait "$server" || status=$?
[ "$status" -eq 0 ] || { cat "$broker/serve.log"; fail "lds-host serve exited with $status after SIGTERM"; }
echo "PASS"
