#!/usr/bin/env bash
# Installs the Debian 12 packages the build, tests and demo need; skips what is already present.
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  # lld links the test executables about four times faster than GNU ld (CMakeLists.txt, LDS_LINKER).
  lld
  libboost-dev libspdlog-dev libfmt-dev libtomlplusplus-dev nlohmann-json3-dev libcli11-dev
  # The codecs of compressed record batches (gzip, snappy, lz4, zstd), read by the Kafka listener.
  zlib1g-dev libsnappy-dev liblz4-dev libzstd-dev
  libgtest-dev libgmock-dev libbenchmark-dev valgrind
  clang libclang-rt-14-dev clang-format clang-tidy
  python3 util-linux procps
  dpkg-dev file
  # Test dependencies: unmodified Kafka clients that drive the Kafka listener. Debian's Python
  # modules import only under /usr/bin/python3 (not a venv's or another installed python3).
  kcat python3-kafka python3-confluent-kafka
)
if [ "${LDS_WITH_PLOTS:-0}" = 1 ]; then packages+=(gnuplot-nox); fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -gt 0 ]; then
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
