#!/usr/bin/env bash
# README command (a): install the Debian packages, build, and run the main job.
# Until the host runtime lands this shows what exists: the plugins, the settings, a log record
# written through the sinks and read back from the store, and compute on the simulated eGPU (an
# RTX 5090 behind a simulated Thunderbolt 4 enclosure) through the usb4 and nvidia plugins.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
cli="${CB_BUILD_DIR:-$root/build}/bin/cudabridge-cli"
run() { printf '\n$ cudabridge-cli %s\n' "$*"; "$cli" "$@"; }
run version
run plugins list
run config list
run log write --category DRIVER "demo: GPU log round trip through the sinks"
run log -n 5
printf '\n$ bench_nv_plugin 4194304 512 3   # the simulated eGPU through the plugins\n'
"${CB_BUILD_DIR:-$root/build}/bin/bench_nv_plugin" 4194304 512 3
