#!/usr/bin/env bash
# runtime_package_test.sh BUILD_DIR CMAKE: installs into a temporary prefix; a C application
# (runtime_app/) finds the installed package with find_package(CudaBridge), links
# CudaBridge::runtime and calls the runtime. The package is versioned by the ABI, major-compatible.
set -euo pipefail
build=$1
cmake=$2
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d /tmp/cudabridge-runtime-package-XXXXXX)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }
"$cmake" --install "$build" --prefix "$prefix" >/dev/null

# The ABI this tree describes.
abi_h=$here/../../sdk/include/cudabridge/abi.h
major=$(sed -n 's/^#define CB_ABI_MAJOR \([0-9]*\).*/\1/p' "$abi_h")
minor=$(sed -n 's/^#define CB_ABI_MINOR \([0-9]*\).*/\1/p' "$abi_h")
[[ -n $major && -n $minor ]] || fail "no CB_ABI_MAJOR / CB_ABI_MINOR in $abi_h"

n=0
configure() {  # REQUIRE -> the build folder; fails when the package refuses the request
  local b=$work/app$((n += 1))
  "$cmake" -S "$here/runtime_app" -B "$b" -DCMAKE_PREFIX_PATH="$prefix" -DCB_REQUIRE="$1" >"$b.log" 2>&1
}

# The application, built against the prefix only, runs and talks to the installed runtime.
configure "$major.0" || { cat "$work/app1.log" >&2; fail "find_package(CudaBridge $major.0) refused the ABI $major.$minor package"; }
grep -q "CudaBridge_VERSION=$major.$minor ABI=$major.$minor" "$work/app1.log" \
  || fail "the package does not say ABI $major.$minor: $(grep CudaBridge_VERSION "$work/app1.log")"
"$cmake" --build "$work/app1" >"$work/build.log" 2>&1 || { cat "$work/build.log" >&2; fail "building against CudaBridge::runtime"; }
out=$(env -i HOME="$work" PATH=/usr/bin:/bin "$work/app1/runtime_app") || fail "runtime_app failed: $out"
[[ $out == "runtime $((1000 * major + 10 * minor)) cbSuccess" ]] || fail "runtime_app said '$out'"
# Captured first: under pipefail, `ldd | grep -q` fails whenever grep's early exit makes ldd take SIGPIPE.
libs=$(ldd "$work/app1/runtime_app")
[[ $libs == *"$prefix/lib/libcudabridge.so"* ]] || fail "runtime_app does not use the installed libcudabridge.so: $libs"

# The version file: the ABI version, compatible within a major.
grep -q "PACKAGE_VERSION \"$major.$minor\"" "$prefix/lib/cmake/CudaBridge/CudaBridgeConfigVersion.cmake" \
  || fail "CudaBridgeConfigVersion.cmake does not give the ABI version $major.$minor"
configure "$major.$minor" || fail "find_package(CudaBridge $major.$minor) refused its own ABI"
configure "$major.0...$((major + 1)).0" || fail "find_package(CudaBridge $major.0...$((major + 1)).0) refused ABI $major.$minor"
configure "$major.$((minor + 1))" && fail "find_package(CudaBridge $major.$((minor + 1))) took an older minor"
configure "$((major + 1)).0" && fail "find_package(CudaBridge $((major + 1)).0) took ABI $major"
if ((major > 0)); then
  configure "$((major - 1)).0" && fail "find_package(CudaBridge $((major - 1)).0) took ABI $major"
fi
echo "runtime package at $prefix: ok"
