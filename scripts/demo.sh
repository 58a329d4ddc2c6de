#!/usr/bin/env bash
# README command (a): install the Debian packages, build, and run the main job on the simulated
# eGPU (an RTX 5090 in a Thunderbolt 4 enclosure on a simulated USB4 fabric: no GPU is needed):
# connect it with cudabridge-cli, show it, run the three C examples against it through the
# runtime API (cudabridge.h), run a CUDA program unchanged (when nvcc is present), benchmark it
# briefly, show its health, and disconnect it safely;
# then the seed's Python example runs against it (import cudabridge), checked against numpy.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
bin="${CB_BUILD_DIR:-$root/build}/bin"
run() { printf '\n$ %s\n' "$*"; "$bin/$1" "${@:2}"; }
# A connection another run left up is reused: connect says so.
run cudabridge-cli connect
run cudabridge-cli info --section product,pci,power,link,backend
# The C programs attach to the connection cudabridge-cli made.
run device_info
run vector_add
run bandwidth_test --quick
# An unmodified CUDA program through CudaBridge's libcudart.so.13 (built with nvcc -cudart
# shared when the build found a CUDA toolkit; skipped without one).
cuda_example="${CB_BUILD_DIR:-$root/build}/examples/cuda/matrixMul"
if [[ -x $cuda_example ]]; then run cudabridge-cli run -- "$cuda_example"; fi
run cudabridge-cli benchmark --quick
run cudabridge-cli status
run cudabridge-cli disconnect
# Python: the package installed (offline, with pip) into build/venv; the seed's example connects
# the eGPU again through cb.init() and prints its sum, checked against numpy.
bash "$root/scripts/python-env.sh" >/dev/null
venv="${CB_BUILD_DIR:-$root/build}/venv"
printf '\n$ source build/venv/bin/activate; python examples/python/quick_start.py\n'
"$venv/bin/python" "$root/examples/python/quick_start.py"
printf '\n$ python examples/python/check_against_numpy.py\n'
"$venv/bin/python" "$root/examples/python/check_against_numpy.py"
