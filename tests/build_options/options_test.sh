#!/usr/bin/env bash
# options_test.sh SOURCE_DIR CMAKE: the build's options are CUDABRIDGE_*, and each old name
# (ENABLE_DEBUG, BUILD_TESTS, ...) still works as an alias that sets the new one, once.
set -euo pipefail
src=$1
cmake=$2
work=$(mktemp -d /tmp/cudabridge-options-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cached() { sed -n "s/^$2:[A-Z]*=//p" "$1/CMakeCache.txt"; }
configure() { "$cmake" -S "$(dirname "$0")/project" -B "$1" -DCB_SOURCE_DIR="$src" "${@:2}" >"$1.log" 2>&1 \
  || { cat "$1.log" >&2; fail "configuring with ${*:2}"; }; }

# alias new-name default
while read -r alias name default; do
  b=$work/$alias
  configure "$b"
  [[ $(cached "$b" "$name") == "$default" ]] || fail "$name defaults to '$(cached "$b" "$name")', not $default"
  flipped=$([[ $default == ON ]] && echo OFF || echo ON)
  configure "$b" "-D$alias=$flipped"
  [[ $(cached "$b" "$name") == "$flipped" ]] || fail "-D$alias=$flipped did not set $name (it is '$(cached "$b" "$name")')"
  [[ -z $(cached "$b" "$alias") ]] || fail "the alias $alias stayed in the cache"
  # The alias acted once: the new name given later is not overridden by it.
  configure "$b" "-D$name=$default"
  [[ $(cached "$b" "$name") == "$default" ]] || fail "-D$name=$default was overridden after -D$alias"
done <<'LIST'
ENABLE_DEBUG CUDABRIDGE_ENABLE_DEBUG OFF
ENABLE_ASAN CUDABRIDGE_ENABLE_ASAN OFF
ENABLE_TSAN CUDABRIDGE_ENABLE_TSAN OFF
BUILD_TESTS CUDABRIDGE_BUILD_TESTS ON
BUILD_EXAMPLES CUDABRIDGE_BUILD_EXAMPLES ON
BUILD_PYTHON CUDABRIDGE_BUILD_PYTHON ON
CB_BUILD_FUZZERS CUDABRIDGE_BUILD_FUZZERS OFF
CB_CUDA_FATBIN_COMPRESS CUDABRIDGE_CUDA_FATBIN_COMPRESS ON
LIST

# The fatbin's two string settings: their defaults, and their old names as aliases.
b=$work/fatbin
configure "$b"
[[ $(cached "$b" CUDABRIDGE_CUDA_FATBIN_ARCHS) == "75;80;86;89;90;100;120" ]] || fail "CUDABRIDGE_CUDA_FATBIN_ARCHS default"
[[ $(cached "$b" CUDABRIDGE_CUDA_FATBIN_PTX) == 120 ]] || fail "CUDABRIDGE_CUDA_FATBIN_PTX default"
configure "$b" "-DCB_CUDA_FATBIN_ARCHS=90;120" -DCB_CUDA_FATBIN_PTX=
[[ $(cached "$b" CUDABRIDGE_CUDA_FATBIN_ARCHS) == "90;120" ]] || fail "-DCB_CUDA_FATBIN_ARCHS did not set CUDABRIDGE_CUDA_FATBIN_ARCHS"
[[ -z $(cached "$b" CUDABRIDGE_CUDA_FATBIN_PTX) ]] || fail "-DCB_CUDA_FATBIN_PTX= did not empty CUDABRIDGE_CUDA_FATBIN_PTX"
grep -q '^CB_CUDA_FATBIN_' "$b/CMakeCache.txt" && fail "a CB_CUDA_FATBIN_ alias stayed in the cache"

# No CMake file of the project reads an option by its old name (only the options file knows it).
old='\b(ENABLE_(DEBUG|ASAN|TSAN)|BUILD_(TESTS|EXAMPLES|PYTHON)|CB_BUILD_FUZZERS|CB_CUDA_FATBIN_[A-Z]+)\b'
stale=$(cd "$src" && git ls-files '*CMakeLists.txt' '*.cmake' '*.cmake.in' 2>/dev/null \
  | grep -v '^cmake/CudaBridgeOptions.cmake$' | xargs -r grep -PnH "(?<![A-Z_])$old" || true)
[[ -z $stale ]] || fail "CMake files read an option by its old name:
$stale"
echo "options: ok"
