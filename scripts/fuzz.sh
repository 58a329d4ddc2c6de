#!/usr/bin/env bash
# The libFuzzer targets of tests/fuzz: configures ./build-fuzz (or $CB_FUZZ_BUILD_DIR) with clang
# and -DCUDABRIDGE_BUILD_FUZZERS=ON, builds the fuzz targets only, and runs each for $CB_FUZZ_SECONDS
# seconds (default 30, what CI runs; docs/fuzzing.md) on a copy of its seed corpus. Prints one
# line per target (executions, corpus size, crashes) and fails on any crash, leak or timeout;
# the input that caused it is kept in <build>/fuzz-findings/<target>/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CB_FUZZ_BUILD_DIR:-$root/build-fuzz}
seconds=${CB_FUZZ_SECONDS:-30}
jobs=${CB_JOBS:-$(nproc)}

# A build folder of its own: every object in it carries the fuzzer's instrumentation and ASan.
# Only what the targets link is compiled (cb_fuzzers), not the rest of the project.
start=$SECONDS
cmake -S "$root" -B "$build" -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCUDABRIDGE_BUILD_FUZZERS=ON -DCUDABRIDGE_BUILD_TESTS=OFF -DCUDABRIDGE_BUILD_EXAMPLES=OFF \
  -DCUDABRIDGE_BUILD_PYTHON=OFF -DCMAKE_DISABLE_FIND_PACKAGE_CUDAToolkit=ON >/dev/null
cmake --build "$build" -j "$jobs" --target cb_fuzzers
built=$((SECONDS - start))

# libFuzzer adds what it finds to the first corpus folder it is given: a copy, so the committed
# seeds stay as they are.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
failed=0
for source in "$root"/tests/fuzz/*_fuzzer.cpp; do
  name=$(basename "$source" .cpp)
  corpus="$work/$name"
  findings="$build/fuzz-findings/$name"
  log="$build/fuzz-findings/$name.log"
  mkdir -p "$corpus" "$findings"
  rm -f "$findings"/*
  cp "$root/tests/fuzz/corpus/$name"/* "$corpus/"
  # -timeout: an input running 10 s is a hang (libFuzzer's default would wait 20 minutes).
  rc=0
  "$build/bin/$name" -max_total_time="$seconds" -timeout=10 -print_final_stats=1 \
    -artifact_prefix="$findings/" "$corpus" >"$log" 2>&1 || rc=$?
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
  crashes=$(find "$findings" -type f | wc -l)
  printf '%-24s %10s executions  %5d corpus files  %d crashes\n' \
    "$name" "${executions:-?}" "$(find "$corpus" -type f | wc -l)" "$crashes"
  if ((rc != 0 || crashes != 0)); then
    failed=1
    tail -n 40 "$log" >&2
    echo "fuzz: $name failed (exit $rc): full output in $log, the input in $findings/" >&2
  fi
done
echo "fuzz: build ${built} s, then ${seconds} s per target; total $((SECONDS - start)) s"
exit "$failed"
