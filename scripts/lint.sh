#!/usr/bin/env bash
# Runs clang-tidy (the root .clang-tidy) over the C++ sources under the given folders (default:
# the library, the CLI, the Python extension and the plugins), with the compile database of the
# build in ./build (or $CB_BUILD_DIR). Prints the findings; non-zero when there are any.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${CB_BUILD_DIR:-$root/build}
tidy=$(command -v clang-tidy-14 || command -v clang-tidy || true)
[[ -n $tidy ]] || { echo "clang-tidy is not installed (apt install clang-tidy)" >&2; exit 2; }
[[ -f $build/compile_commands.json ]] || { echo "no $build/compile_commands.json: run scripts/build.sh first" >&2; exit 2; }
(($#)) || set -- sdk core host cli python plugins
cd "$root"
mapfile -t files < <(find "$@" -name '*.cpp' | sort)
out=$(mktemp)
trap 'rm -f "$out"' EXIT
# GCC's own flags mean nothing to clang: drop the few it would warn about.
printf '%s\n' "${files[@]}" | xargs -P "${CB_JOBS:-$(nproc)}" -n 4 "$tidy" -p "$build" --quiet \
  --extra-arg=-Wno-unknown-warning-option --extra-arg=-Wno-ignored-optimization-argument >"$out" 2>/dev/null || true
if grep -q 'warning:\|error:' "$out"; then
  grep -A3 'warning:\|error:' "$out"
  echo "$(grep -c 'warning:\|error:' "$out") finding(s) in ${#files[@]} files" >&2
  exit 1
fi
echo "${#files[@]} files: no findings"
