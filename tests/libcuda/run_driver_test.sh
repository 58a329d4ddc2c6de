#!/usr/bin/env bash
# run_driver_test.sh CLI PROGRAM [ARGS...]
# Runs PROGRAM ARGS through `CLI run` on the simulated eGPU, in a store and home of its own, and
# checks what a user would: the program's exit code 0, its PASS line, and the summary line. A
# program that exits 77 is skipped (it says why).
# (tests/cudart/run_under_cli.sh, with arguments for the program: the PTX files it loads.)
set -euo pipefail
cli=$1 program=$2
shift 2
[[ -x $program ]] || { echo "FAIL: $program is not an executable"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_STATE_HOME=$tmp/state XDG_DATA_HOME=$tmp/data
unset CUDABRIDGE_PLUGIN_PATH CUDABRIDGE_ADD_PLUGIN_PATH CUDABRIDGE_HOME CUDABRIDGE_DB
db=$tmp/cudabridge.db

rc=0
"$cli" --db "$db" run -- "$program" "$@" >"$tmp/out" 2>&1 || rc=$?
cat "$tmp/out"
[[ $rc == 77 ]] && exit 77  # the program found nothing to test here (it said why)
[[ $rc == 0 ]] || { echo "FAIL: exit code $rc"; exit 1; }
grep -q '^[a-z_]*: PASS$' "$tmp/out" || { echo "FAIL: no PASS line"; exit 1; }
grep -q '^cudabridge run: [0-9]* kernels, .* recoveries, exit code 0' "$tmp/out" || { echo "FAIL: no summary line"; exit 1; }
