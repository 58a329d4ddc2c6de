#!/usr/bin/env bash
# Installs the Debian 12 packages CudaBridge needs to build and test.
# Idempotent: when every package is already installed it only runs dpkg-query and exits.
set -euo pipefail

packages=(
  build-essential cmake pkg-config git
  libboost-dev libboost-program-options-dev libboost-filesystem-dev
  libpoco-dev libspdlog-dev libfmt-dev libsqlite3-dev sqlite3
  libgtest-dev libgmock-dev
  clang libclang-rt-14-dev clang-format-14 clang-tidy-14
  libisal-dev libopenblas-dev libelf-dev
  llvm-15-dev liblz4-dev libzstd-dev
  gnuplot-nox
  pybind11-dev python3-dev python3-numpy python3-pytest python3-venv python3-pip
  python3-setuptools python3-wheel python3-torch
  python3-prometheus-client
  python3-dask python3-distributed
)

missing=()
for p in "${packages[@]}"; do
  status=$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null || true)
  [[ "$status" == "install ok installed" ]] || missing+=("$p")
done

if ((${#missing[@]} == 0)); then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
if [[ $(id -u) -ne 0 ]]; then
  echo "install-deps: must run as root to install packages (try: sudo $0)" >&2
  exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
