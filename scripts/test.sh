#!/usr/bin/env bash
# README command (b): install the Debian packages, build, and run the whole test suite.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CB_BUILD_DIR:-$root/build}
bash "$root/scripts/install-deps.sh"
# Warnings fail this build: the suite (and so CI) builds with -Werror.
bash "$root/scripts/build.sh" -DCUDABRIDGE_WARNINGS_AS_ERRORS=ON
bash "$root/scripts/python-env.sh" >/dev/null  # build/venv: `import cudabridge` from anywhere
cd "$build"
ctest --output-on-failure -j "${CB_JOBS:-$(nproc)}" --timeout 600
# The parsers' libFuzzer targets, 30 s each (a clang build of their own in ./build-fuzz).
bash "$root/scripts/fuzz.sh"
