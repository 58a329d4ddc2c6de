#!/usr/bin/env bash
# werror_test.sh SOURCE_DIR CMAKE: a warning is a warning by default, and fails the build with
# CUDABRIDGE_WARNINGS_AS_ERRORS=ON (which the suite command, and so CI, sets).
set -euo pipefail
src=$1
cmake=$2
work=$(mktemp -d /tmp/cudabridge-werror-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
build() {  # FOLDER OPTION=VALUE: configures and builds the probe; its status is the build's
  "$cmake" -S "$(dirname "$0")/werror_probe" -B "$work/$1" -DCB_SOURCE_DIR="$src" "-D$2" >"$work/$1.log" 2>&1 \
    || { cat "$work/$1.log" >&2; fail "configuring with -D$2"; }
  "$cmake" --build "$work/$1" >>"$work/$1.log" 2>&1
}
build off CUDABRIDGE_WARNINGS_AS_ERRORS=OFF || { cat "$work/off.log" >&2; fail "a warning failed the default build"; }
grep -q "Wunused-variable" "$work/off.log" || fail "the probe's warning was not reported: $(cat "$work/off.log")"
build on CUDABRIDGE_WARNINGS_AS_ERRORS=ON && fail "the warning did not fail the build with CUDABRIDGE_WARNINGS_AS_ERRORS=ON"
grep -q "Werror=unused-variable\|\[-Werror" "$work/on.log" || fail "the build failed, but not on the warning: $(cat "$work/on.log")"
echo "warnings as errors: ok"
