#!/usr/bin/env bash
# deb_package_test.sh: cpack -G DEB builds the Debian package; it holds the install layout (with the
# plugin examples and a .pc file for /usr), depends on the packages of every shared library
# lds-host loads, and its stripped plugins still pass.
#
# Usage: deb_package_test.sh <source dir> <build dir> <cmake> <cpack>
source "$(dirname "$0")/common.sh"

step "cpack -G DEB into $WORK/deb"
# The package is made from what the build already holds. With the Makefile generator cpack first
# builds the "preinstall" target (everything); the Ninja generator has no such step, so naming it
# here packages the finished build without building anything during the test run.
"$CPACK" -G DEB --config "$LDS_BUILD_DIR/CPackConfig.cmake" -B "$WORK/deb" \
  -D CPACK_CMAKE_GENERATOR=Ninja >"$WORK/cpack.log" 2>&1 ||
  { cat "$WORK/cpack.log"; fail "cpack -G DEB failed"; }
debs=("$WORK"/deb/*.deb)
[ ${#debs[@]} -eq 1 ] && [ -f "${debs[0]}" ] || fail "expected one .deb in $WORK/deb"
deb=${debs[0]}
echo "$(basename "$deb")"
dpkg-deb --info "$deb" | sed -n 's/^ \(Package\|Version\|Architecture\|Depends\): /  \1: /p'

step "dpkg-deb --contents lists the install layout"
dpkg-deb --contents "$deb" | awk '{print $NF}' | sed 's|^\./|/|' >"$WORK/contents"
for f in /usr/bin/lds-host /usr/include/lds/logdir_strategy.h /usr/include/lds-host/config/config.h \
         /usr/include/lds-host/conformance/conformance.h /usr/lib/liblds_storage.a /usr/lib/liblds_broker.a \
         /usr/lib/liblds_admin.a /usr/lib/liblds_conformance.a \
         /usr/lib/lds/plugins/liblds_partition.so /usr/lib/lds/plugins/liblds_size.so \
         /usr/lib/lds/plugins/liblds_cordon.so \
         /usr/lib/cmake/LogDirStrategy/LogDirStrategyConfig.cmake \
         /usr/lib/cmake/LogDirStrategy/LogDirStrategyConfigVersion.cmake \
         /usr/lib/cmake/LogDirStrategy/LogDirStrategyTargets.cmake \
         /usr/lib/cmake/LogDirStrategy/LdsAddStrategyPlugin.cmake \
         /usr/lib/cmake/LogDirStrategy/lds_plugin_exports.map \
         /usr/lib/pkgconfig/logdir-strategy.pc /usr/share/lds/examples/CMakeLists.txt \
         /usr/share/lds/examples/most_free.c /usr/share/lds/examples/round_robin.c; do
  grep -qx -- "$f" "$WORK/contents" || fail "the package does not contain $f"
done
# The examples ship as sources to copy, never built.
if grep -q 'liblds_most_free\|liblds_round_robin' "$WORK/contents"; then
  fail "a built example plugin was packaged"
fi

step "the packaged .pc file names /usr, not the staging folder cpack installed into"
dpkg-deb --fsys-tarfile "$deb" | tar -xO ./usr/lib/pkgconfig/logdir-strategy.pc >"$WORK/lds.pc"
grep -qx 'prefix=/usr' "$WORK/lds.pc" ||
  { cat "$WORK/lds.pc"; fail "the packaged .pc file's prefix is not /usr"; }

step "Depends names the package of every shared library lds-host links (readelf, ldd, dpkg -S)"
# The libraries lds-host names itself (NEEDED); what those load in turn is their packages' Depends.
depends=$(dpkg-deb --field "$deb" Depends)
host="$LDS_BUILD_DIR/host_stub/lds-host"
needed=$(readelf -d "$host" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
[ -n "$needed" ] || fail "readelf -d lists no NEEDED library for $host"
for lib in $(ldd "$host" | awk -v needed="$needed" 'BEGIN {split(needed, n, "\n"); for (i in n) want[n[i]]}
                                                    $3 ~ /^\// && ($1 in want) {print $3}'); do
  owner=$(dpkg -S "$(realpath "$lib")" 2>/dev/null | head -n 1 | cut -d: -f1) || true
  [ -n "$owner" ] || owner=$(dpkg -S "$lib" 2>/dev/null | head -n 1 | cut -d: -f1) || true
  [ -n "$owner" ] || fail "no Debian package owns $lib"
  # Depends may name the owner or a name it provides (libspdlog1.10 provides libspdlog1.10-fmt9).
  names=$(printf '%s\n%s' "$owner" "$(dpkg-query -W -f='${Provides}' "$owner" | tr ',' '\n')" |
    awk 'NF {print $1}')
  depended=$(tr ',' '\n' <<<"$depends" | awk 'NF {print $1}')
  match=$(grep -xF -f <(echo "$names") <<<"$depended" | head -n 1) ||
    fail "Depends names neither $owner nor what it provides (for $lib): $depends"
  echo "  $(basename "$lib") <- $owner: $match"
  checked=$((${checked:-0} + 1))
done
# Every NEEDED library but the dynamic loader itself was found and checked.
[ "${checked:-0}" -ge "$(grep -vc '^ld-linux' <<<"$needed")" ] ||
  fail "only ${checked:-0} of lds-host's NEEDED libraries were found by ldd: $needed"

step "the packaged tree works where it is unpacked: plugins found, stripped plugins conform"
dpkg-deb -x "$deb" "$WORK/root"
for so in "$WORK"/root/usr/lib/lds/plugins/*.so; do
  only_entry_point "$so"
  "$WORK/root/usr/bin/lds-host" check-plugin "$so" >"$WORK/check.log" ||
    { cat "$WORK/check.log"; fail "check-plugin $so failed"; }
done
functions=$(nm --defined-only "$WORK/root/usr/lib/liblds_storage.a" 2>/dev/null | grep -c ' T ') || true
[ "${functions:-0}" -gt 0 ] || fail "liblds_storage.a in the package has no symbols left"
echo "PASS"
