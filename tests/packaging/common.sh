# common.sh: shared helpers of the packaging tests (sourced, not run): temp dirs, installs, checks.
#
# Every script is called as: <script> <source dir> <build dir> <cmake> <cpack>, and sources this file.
set -euo pipefail

LDS_SOURCE_DIR=$(cd "$1" && pwd)
LDS_BUILD_DIR=$(cd "$2" && pwd)
CMAKE=$3
CPACK=$4

# One temp dir per test run, removed on exit together with anything registered in cleanup_pids.
# A short base keeps Unix socket paths inside it under the 108-byte limit.
base=${TMPDIR:-/tmp}
if [ ${#base} -gt 40 ]; then base=/tmp; fi
WORK=$(mktemp -d "$base/lds-pkg.XXXXXX")
cleanup_pids=()
cleanup() {
  local pid
  for pid in "${cleanup_pids[@]}"; do
    if kill -0 "$pid" 2>/dev/null; then kill -KILL "$pid" 2>/dev/null || true; fi
  done
  rm -rf "$WORK"
}
trap cleanup EXIT

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

step() { printf -- '--- %s\n' "$*"; }

# install_prefix <dir>: cmake --install of the main build into <dir>, quietly.
install_prefix() {
  "$CMAKE" --install "$LDS_BUILD_DIR" --prefix "$1" >"$WORK/install.log" 2>&1 ||
    { cat "$WORK/install.log" >&2; fail "cmake --install $LDS_BUILD_DIR --prefix $1 failed"; }
}

# expect_file <path>...: every path exists.
expect_file() {
  local f
  for f in "$@"; do [ -e "$f" ] || fail "missing $f"; done
}

# only_entry_point <plugin.so>: the dynamic symbol table defines lds_strategy_get and nothing else.
only_entry_point() {
  local symbols
  symbols=$(nm -D --defined-only "$1" | awk '{print $NF}')
  [ "$symbols" = "lds_strategy_get" ] ||
    fail "$1 exports more than lds_strategy_get: $(echo "$symbols" | tr '\n' ' ')"
}
