#!/usr/bin/env bash
# sdk_only_install_test.sh: -DLDS_SDK_ONLY=ON configures and installs the plugin SDK alone, quickly
# and without the host's dependencies, and plugins/example/ builds against that install from its
# installed copy, with CMake and with pkg-config.
#
# Usage: sdk_only_install_test.sh <source dir> <build dir> <cmake> <cpack> (the build dir is unused:
# this test makes its own).
source "$(dirname "$0")/common.sh"

sdk_build=$WORK/sdk-build
prefix=$WORK/sdk-prefix
examples=$prefix/share/lds/examples

step "cmake -DLDS_SDK_ONLY=ON, then cmake --install into $prefix"
start_ms=$(($(date +%s%N) / 1000000))
"$CMAKE" -S "$LDS_SOURCE_DIR" -B "$sdk_build" -DLDS_SDK_ONLY=ON >"$WORK/configure.log" 2>&1 ||
  { cat "$WORK/configure.log"; fail "configure with -DLDS_SDK_ONLY=ON failed"; }
# A trailing slash, as people type it: the .pc file's paths must not carry it.
"$CMAKE" --install "$sdk_build" --prefix "$prefix/" >"$WORK/install.log" 2>&1 ||
  { cat "$WORK/install.log"; fail "cmake --install $sdk_build --prefix $prefix/ failed"; }
took_ms=$(($(date +%s%N) / 1000000 - start_ms))
took="$((took_ms / 1000)).$((took_ms % 1000 / 100)) s"
echo "SDK-only configure and install took $took"
[ "$took_ms" -lt 60000 ] || fail "the SDK-only configure and install took $took, not under a minute"

step "nothing of the host was looked for"
if grep -i 'boost\|spdlog' "$WORK/configure.log"; then
  fail "the SDK-only configure looked for the host's dependencies (above, from $WORK/configure.log)"
fi
found=$(grep -E '^(Boost|spdlog|tomlplusplus|nlohmann_json|GTest|CLI11|fmt)_DIR:' \
  "$sdk_build/CMakeCache.txt" || true)
[ -z "$found" ] || fail "the SDK-only configure looked for host packages: $found"

step "the install holds the header, the CMake package, the .pc file and the examples, no host"
expect_file "$prefix/include/lds/logdir_strategy.h" \
  "$prefix/lib/cmake/LogDirStrategy/LogDirStrategyConfig.cmake" \
  "$prefix/lib/cmake/LogDirStrategy/LogDirStrategyConfigVersion.cmake" \
  "$prefix/lib/cmake/LogDirStrategy/LogDirStrategyTargets.cmake" \
  "$prefix/lib/cmake/LogDirStrategy/LdsAddStrategyPlugin.cmake" \
  "$prefix/lib/cmake/LogDirStrategy/lds_plugin_exports.map" \
  "$prefix/lib/pkgconfig/logdir-strategy.pc" \
  "$examples/CMakeLists.txt" "$examples/most_free.c" "$examples/round_robin.c"
for f in CMakeLists.txt most_free.c round_robin.c; do
  cmp -s "$LDS_SOURCE_DIR/plugins/example/$f" "$examples/$f" ||
    fail "$examples/$f differs from plugins/example/$f"
done
[ ! -e "$prefix/bin" ] || fail "the SDK-only install has a bin folder: $(ls "$prefix/bin" | tr '\n' ' ')"
[ -z "$(find "$prefix" -name '*.a' -o -name '*.so')" ] ||
  fail "the SDK-only install holds libraries: $(find "$prefix" -name '*.a' -o -name '*.so' | tr '\n' ' ')"

step "pkg-config --variable=plugindir logdir-strategy is absolute and normalised"
export PKG_CONFIG_PATH=$prefix/lib/pkgconfig
plugindir=$(pkg-config --variable=plugindir logdir-strategy) ||
  fail "pkg-config --variable=plugindir logdir-strategy failed"
echo "$plugindir"
[ "$plugindir" = "$prefix/lib/lds/plugins" ] ||
  fail "pkg-config's plugindir is $plugindir, not $prefix/lib/lds/plugins"
[ -d "$plugindir" ] || fail "pkg-config's plugindir $plugindir does not exist"
cflags=$(pkg-config --cflags logdir-strategy | sed 's/ *$//') ||
  fail "pkg-config --cflags logdir-strategy failed"
[ "$cflags" = "-I$prefix/include" ] || fail "pkg-config --cflags is '$cflags', not -I$prefix/include"

step "the installed example built with pkg-config's flags, as strict C99"
mkdir -p "$WORK/pkg-config-build"
# shellcheck disable=SC2046,SC2086  # the flags are meant to split
cc -std=c99 -Wall -Wextra -Werror -pedantic -O2 $cflags \
  $(pkg-config --variable=plugin_cflags logdir-strategy) "$examples/most_free.c" \
  $(pkg-config --variable=plugin_ldflags logdir-strategy) \
  -o "$WORK/pkg-config-build/liblds_most_free.so" ||
  fail "the installed example does not build with pkg-config's flags"
only_entry_point "$WORK/pkg-config-build/liblds_most_free.so"

step "a copy of the installed examples configured and built with find_package(LogDirStrategy)"
cp -r "$examples" "$WORK/my-strategy"
"$CMAKE" -S "$WORK/my-strategy" -B "$WORK/my-strategy/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS="-Wall -Wextra -Werror" -Werror=dev \
  >"$WORK/example-configure.log" 2>&1 ||
  { cat "$WORK/example-configure.log"; fail "configuring the installed examples failed"; }
"$CMAKE" --build "$WORK/my-strategy/build" >"$WORK/example-build.log" 2>&1 ||
  { cat "$WORK/example-build.log"; fail "building the installed examples failed"; }
for name in most_free round_robin; do
  expect_file "$WORK/my-strategy/build/liblds_$name.so"
  only_entry_point "$WORK/my-strategy/build/liblds_$name.so"
done

step "find_package(LogDirStrategy COMPONENTS host) says the host is not part of the SDK"
mkdir -p "$WORK/wants-host"
cat >"$WORK/wants-host/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.25)
project(wants_host LANGUAGES C)
find_package(LogDirStrategy REQUIRED COMPONENTS host)
CMAKE
if "$CMAKE" -S "$WORK/wants-host" -B "$WORK/wants-host/build" -DCMAKE_PREFIX_PATH="$prefix" \
  >"$WORK/wants-host.log" 2>&1; then
  cat "$WORK/wants-host.log"
  fail "find_package(LogDirStrategy COMPONENTS host) succeeded on an SDK-only install"
fi
# CMake wraps the package's message over several lines.
tr -s ' \n' '  ' <"$WORK/wants-host.log" |
  grep -qF "LogDirStrategy component host is not installed: this is the plugin SDK alone (LDS_SDK_ONLY)" ||
  { cat "$WORK/wants-host.log"; fail "find_package does not say why the host component is missing"; }
echo "PASS"
