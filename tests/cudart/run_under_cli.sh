#!/usr/bin/env bash
# run_under_cli.sh [--expect-refusal|--twice] CLI PROGRAM
# Runs PROGRAM through `CLI run` on the simulated eGPU, in a store and home of its own, and checks
# what a user would: the program's exit code 0 and its PASS line, and the summary line.
#   --expect-refusal  PROGRAM links the CUDA runtime statically: run must refuse it, exit 1,
#                     and say how to rebuild (-cudart shared).
#   --twice           two runs at once on the same eGPU; both must pass.
# Exit 77 (skipped) when PROGRAM was not built (no nvcc on this machine).
set -euo pipefail
mode=once
case "${1:-}" in --expect-refusal | --twice) mode=${1#--}; shift ;; esac
cli=$1 program=$2
[[ -x $program ]] || { echo "SKIP: $program was not built (no nvcc on this machine)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_STATE_HOME=$tmp/state XDG_DATA_HOME=$tmp/data
unset CUDABRIDGE_PLUGIN_PATH CUDABRIDGE_ADD_PLUGIN_PATH CUDABRIDGE_HOME CUDABRIDGE_DB
db=$tmp/cudabridge.db

run_once() {  # $1: output file
    local rc=0
    "$cli" --db "$db" run -- "$program" >"$1" 2>&1 || rc=$?
    echo "$rc"
}

check_passed() {  # $1: output file, $2: exit code
    cat "$1"
    [[ $2 == 0 ]] || { echo "FAIL: exit code $2"; return 1; }
    grep -q 'PASS' "$1" || { echo "FAIL: no PASS line"; return 1; }
    grep -q '^cudabridge run: [0-9]* kernels, .* recoveries, exit code 0' "$1" || { echo "FAIL: no summary line"; return 1; }
}

case $mode in
expect-refusal)
    rc=$(run_once "$tmp/out")
    cat "$tmp/out"
    [[ $rc == 1 ]] || { echo "FAIL: exit code $rc, not 1"; exit 1; }
    grep -q -- '-cudart shared' "$tmp/out" || { echo "FAIL: no rebuild advice"; exit 1; }
    ;;
twice)
    "$cli" --db "$db" connect >/dev/null  # one connection, joined by both programs
    run_once "$tmp/a" >"$tmp/a.rc" &
    run_once "$tmp/b" >"$tmp/b.rc" &
    wait
    check_passed "$tmp/a" "$(cat "$tmp/a.rc")"
    check_passed "$tmp/b" "$(cat "$tmp/b.rc")"
    ;;
once)
    rc=$(run_once "$tmp/out")
    check_passed "$tmp/out" "$rc"
    ;;
esac
