#!/usr/bin/env bash
# refusal_reaches_stderr.sh CLI PROGRAM: PROGRAM (refused_kernel.cu) launches a kernel the
# simulated GPU refuses; under `CLI run` the reason reaches stderr once, naming the instruction and
# its PTX line, and `CLI log` and `CLI history` (a module.refused event) have it too. Exit 77 (skipped) when PROGRAM was not built.
set -euo pipefail
cli=$1 program=$2
[[ -x $program ]] || { echo "SKIP: $program was not built (no nvcc on this machine)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp XDG_STATE_HOME=$tmp/state XDG_DATA_HOME=$tmp/data
unset CUDABRIDGE_PLUGIN_PATH CUDABRIDGE_ADD_PLUGIN_PATH CUDABRIDGE_HOME CUDABRIDGE_DB
db=$tmp/cudabridge.db
rc=0
"$cli" --db "$db" run -- "$program" >"$tmp/out" 2>&1 || rc=$?
cat "$tmp/out"
[[ $rc == 0 ]] || { echo "FAIL: exit code $rc"; exit 1; }
grep -q 'refused_kernel: PASS' "$tmp/out" || { echo "FAIL: no PASS line"; exit 1; }
n=$(grep -c "cannot run on this GPU: .*line [0-9]*: 'vabsdiff" "$tmp/out" || true)
[[ $n == 1 ]] || { echo "FAIL: the refusal (instruction and line) reached stderr $n times, not once"; exit 1; }
"$cli" --db "$db" log >"$tmp/log" 2>&1 || true
grep -q "cannot run on this GPU: .*line [0-9]*: 'vabsdiff" "$tmp/log" || { cat "$tmp/log"; echo "FAIL: not in the log"; exit 1; }
"$cli" --db "$db" history >"$tmp/history" 2>&1 || true
grep -q "module.refused .*line [0-9]*: 'vabsdiff" "$tmp/history" || { cat "$tmp/history"; echo "FAIL: not in the history"; exit 1; }
echo "PASS: the refusal reached stderr once, the log and the history"
