#!/usr/bin/env bash
# check-style.sh: the style gate. The host's include layering (tools/check-layering.py), then
# clang-format (.clang-format) over every C and C++ source of the repository, then clang-tidy
# (.clang-tidy) over the host and the plugins. Any finding fails it.
#
# clang-tidy reads a compile database made by clang's own driver in ./build-tidy (configure only,
# nothing is built): the GCC build's database carries GCC-only flags (-fno-gnu-unique) that clang
# refuses. That database is a unity build's (LDS_UNITY_BUILD): clang-tidy checks each batch of
# sources as one unit, so the heavy headers (CLI11, toml++, nlohmann-json) are parsed once per
# batch, not once per file, about four times faster. The batches live in the build folder, inside
# the repository, so clang-tidy finds .clang-tidy above them, and its HeaderFilterRegex reports
# what it finds in the sources a batch includes. Only bugprone-suspicious-include is left out for
# the batches: including .cpp files is what a batch is.
# Usage: [LDS_TIDY_JOBS=N] tools/check-style.sh [build-tidy dir] (N defaults to the cores)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tidy_build="${1:-$repo/build-tidy}"
cd "$repo"

python3 "$repo/tools/check-layering.py" "$repo"

mapfile -t sources < <(git ls-files '*.c' '*.cpp' '*.h')
echo "clang-format: ${#sources[@]} files"
clang-format --dry-run -Werror "${sources[@]}"

# Nothing is built here, so no precompiled header exists to include: the suites' is turned off.
CC=clang CXX=clang++ cmake -S "$repo" -B "$tidy_build" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON -DLDS_UNITY_BUILD=ON -DCMAKE_DISABLE_PRECOMPILE_HEADERS=ON \
  >/dev/null
case "$tidy_build" in
  "$repo"/*) ;;
  *) echo "check-style.sh: $tidy_build must be inside $repo, so clang-tidy finds .clang-tidy" >&2
     exit 2 ;;
esac
# The units of the host and the plugins: each unity batch, and each source compiled on its own.
mapfile -t units < <(python3 - "$repo" "$tidy_build" <<'PY'
import json, os, sys
repo, build = (os.path.realpath(p) for p in sys.argv[1:3])
for entry in json.load(open(os.path.join(build, "compile_commands.json"))):
    f = os.path.realpath(os.path.join(entry["directory"], entry["file"]))
    for top in ("host_stub", "plugins"):
        if f.startswith(os.path.join(repo, top) + "/") and f.endswith(".cpp"):
            print(f)
        elif f.startswith(os.path.join(build, top) + "/") and "/Unity/" in f:
            print(f)
PY
)
batches=()
singles=()
for u in "${units[@]}"; do
  if [[ "$u" == */Unity/* ]]; then batches+=("$u"); else singles+=("$u"); fi
done
echo "clang-tidy: ${#batches[@]} unity batches and ${#singles[@]} sources on their own"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
jobs="${LDS_TIDY_JOBS:-$(nproc)}"
ok=1
# Paths are passed as regular expressions: escape what they may hold.
escape() { sed 's/[.+]/\\&/g; s/.*/^&$/' <<<"$1"; }
if [ ${#batches[@]} -gt 0 ]; then
  mapfile -t patterns < <(for b in "${batches[@]}"; do escape "$b"; done)
  run-clang-tidy -p "$tidy_build" -j "$jobs" -quiet -checks=-bugprone-suspicious-include \
    "${patterns[@]}" >>"$log" 2>&1 || ok=0
fi
if [ ${#singles[@]} -gt 0 ]; then
  mapfile -t patterns < <(for s in "${singles[@]}"; do escape "$s"; done)
  run-clang-tidy -p "$tidy_build" -j "$jobs" -quiet "${patterns[@]}" >>"$log" 2>&1 || ok=0
fi
if [ "$ok" = 0 ]; then
  grep -E 'error:|warning:' "$log" | sort -u
  echo "clang-tidy found the problems above (checks and their reasons: .clang-tidy)."
  exit 1
fi
echo "clang-format and clang-tidy: no findings"
