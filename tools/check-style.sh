#!/usr/bin/env bash
# check-style.sh: the style gate. clang-format (.clang-format) over every C and C++ source of the
# repository, then clang-tidy (.clang-tidy) over the host and the plugins. Any finding fails it.
#
# clang-tidy reads a compile database made by clang's own driver in ./build-tidy (configure only,
# nothing is built): the GCC build's database carries GCC-only flags (-fno-gnu-unique) that clang
# refuses. Usage: [LDS_TIDY_JOBS=N] tools/check-style.sh [build-tidy dir] (N defaults to the cores)
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
tidy_build="${1:-$repo/build-tidy}"
cd "$repo"

mapfile -t sources < <(git ls-files '*.c' '*.cpp' '*.h')
echo "clang-format: ${#sources[@]} files"
clang-format --dry-run -Werror "${sources[@]}"

CC=clang CXX=clang++ cmake -S "$repo" -B "$tidy_build" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
mapfile -t tidy_sources < <(git ls-files 'host_stub/*.cpp' 'plugins/*.cpp')
echo "clang-tidy: ${#tidy_sources[@]} files"
log=$(mktemp)
trap 'rm -f "$log"' EXIT
if ! run-clang-tidy -p "$tidy_build" -j "${LDS_TIDY_JOBS:-$(nproc)}" -quiet "${tidy_sources[@]}" >"$log" 2>&1; then
  grep -E 'error:|warning:' "$log" | sort -u
  echo "clang-tidy found the problems above (checks and their reasons: .clang-tidy)."
  exit 1
fi
echo "clang-format and clang-tidy: no findings"
