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
ls "$prefix"/lib/libcudabridge-internal.so.* >/dev/null 2>&1 || fail "missing libcudabridge-internal.so (the C++ runtime)"
[[ -e "$prefix/lib/libcudabridge.a" ]] || fail "missing libcudabridge.a"

# The installed CLI, with no environment help, lists the installed plugins from the prefix.
out=$(env -i HOME="$home" PATH=/usr/bin:/bin "$prefix/bin/cudabridge-cli" --db "$home/cb.db" plugins list --json)
echo "$out" | grep -Eq "\"path\" ?: ?\"$prefix/lib/cudabridge/plugins/libcudabridge_logging.so\"" \
  || fail "installed CLI did not find its plugins under $prefix: $out"
for sink in console file sqlite jsonl syslog; do
  echo "$out" | grep -Eq "\"name\" ?: ?\"$sink\"" || fail "sink $sink not listed"
done
# The installed SDK: a plugin built out of tree with find_package(CudaBridge), then verified,
# loaded with --plugin-path and selected as a log sink by the installed CLI.
src=$(cd "$(dirname "$0")" && pwd)/oot_plugin
"$cmake" -S "$src" -B "$home/oot" -DCMAKE_PREFIX_PATH="$prefix" >/dev/null || fail "configuring the out-of-tree plugin"
"$cmake" --build "$home/oot" >/dev/null || fail "building the out-of-tree plugin"
cli() { env -i HOME="$home" PATH=/usr/bin:/bin "$prefix/bin/cudabridge-cli" --db "$home/cb.db" "$@"; }
cli plugins verify "$home/oot/libhello_sink.so" >/dev/null || fail "plugins verify refused the out-of-tree plugin"
cli --plugin-path "$home/oot" --log-sink "hello:path=$home/hello.txt" log write --category DRIVER "out of tree" \
  || fail "log write through the out-of-tree sink"
grep -q "DRIVER out of tree" "$home/hello.txt" || fail "the out-of-tree sink did not write its file"

# pkg-config for C users of the plugin headers.
cflags=$(PKG_CONFIG_PATH="$prefix/lib/pkgconfig" pkg-config --cflags cudabridge-sdk)
incdir=$(echo "$cflags" | sed -n 's/^-I\([^ ]*\).*/\1/p')
[[ -f "$incdir/cudabridge/plugin.h" ]] || fail "pkg-config cudabridge-sdk gave '$cflags'"
echo "install to $prefix: ok"
