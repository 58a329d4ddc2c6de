#!/usr/bin/env bash
# README command (a): install the Debian packages, build, and run the main job: connect the
# simulated eGPU (an RTX 5090 in a Thunderbolt 4 enclosure on a simulated USB4 fabric: no GPU is
# needed) and run the three C examples against it through the runtime API (cudabridge.h).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
bin="${CB_BUILD_DIR:-$root/build}/bin"
run() { printf '\n$ %s\n' "$*"; "$bin/$1" "${@:2}"; }
# The first cbInit runs the six-step connection; the later programs attach to that connection.
run device_info
run vector_add
run bandwidth_test --max-mb 64
