#!/usr/bin/env bash
# install_test.sh BUILD_DIR CMAKE: installs into a temporary prefix and checks the result.
set -euo pipefail
build=$1
cmake=$2
prefix=$(mktemp -d /tmp/cudabridge-prefix-XXXXXX)
home=$(mktemp -d /tmp/cudabridge-home-XXXXXX)
trap 'rm -rf "$prefix" "$home"' EXIT

"$cmake" --install "$build" --prefix "$prefix" >/dev/null
fail() { echo "FAIL: $*" >&2; exit 1; }

for f in bin/cudabridge-cli include/cudabridge/plugin.h include/cb_log.h \
         lib/cmake/CudaBridge/CudaBridgeConfig.cmake lib/cmake/CudaBridge/CudaBridgeAddPlugin.cmake \
         lib/pkgconfig/cudabridge-sdk.pc lib/cudabridge/plugins/libcudabridge_logging.so; do
  [[ -e "$prefix/$f" ]] || fail "missing $f"
done
ls "$prefix"/lib/libcudabridge.so* >/dev/null 2>&1 || fail "missing libcudabridge.so"
[[ -e "$prefix/lib/libcudabridge.a" ]] || fail "missing libcudabridge.a"

# The installed CLI, with no environment help, lists the installed plugins from the prefix.
out=$(env -i HOME="$home" PATH=/usr/bin:/bin "$prefix/bin/cudabridge-cli" --db "$home/cb.db" plugins list --json)
echo "$out" | grep -Eq "\"path\" ?: ?\"$prefix/lib/cudabridge/plugins/libcudabridge_logging.so\"" \
  || fail "installed CLI did not find its plugins under $prefix: $out"
for sink in console file sqlite jsonl syslog; do
  echo "$out" | grep -Eq "\"name\" ?: ?\"$sink\"" || fail "sink $sink not listed"
done
echo "install to $prefix: ok"
