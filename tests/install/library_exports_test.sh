#!/usr/bin/env bash
# library_exports_test.sh LIBRARY HEADER...: libcudabridge.so exports exactly the C API its
# headers mark with CB_API, each symbol at version CUDABRIDGE_1, and nothing else (no C++).
set -euo pipefail
lib=$1
shift
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -f $lib ]] || fail "no library at $lib"

# Defined dynamic symbols, as NAME@@VERSION (readelf: Num Value Size Type Bind Vis Ndx Name).
symbols=$(readelf --dyn-syms --wide "$lib" | awk '$7 != "UND" && $5 != "LOCAL" && NF >= 8 && $1 ~ /^[0-9]+:$/ {print $8}')
[[ -n $symbols ]] || fail "$lib exports nothing"

declared=$(cat "$@" | sed -n 's/^CB_\(LOG_\)\{0,1\}API [^(]*[ *]\([A-Za-z_][A-Za-z0-9_]*\)(.*/\2/p' | sort -u)
[[ $(wc -l <<<"$declared") -ge 50 ]] || fail "found only $(wc -l <<<"$declared") CB_API declarations in $*"

exported=""
while read -r sym; do
  name=${sym%%@*}
  version=${sym#*@}
  version=${version#@}
  [[ $name == CUDABRIDGE_1 ]] && continue  # the version node itself
  [[ $version == CUDABRIDGE_1 ]] || fail "$name is exported without the version CUDABRIDGE_1 ($sym)"
  grep -qx "$name" <<<"$declared" || fail "$name is exported but no header declares it with CB_API"
  exported+="$name"$'\n'
done <<<"$symbols"

missing=$(comm -23 <(echo "$declared") <(echo -n "$exported" | sort -u))
[[ -z $missing ]] || fail "declared with CB_API but not exported: $(echo $missing)"
echo "$lib: $(wc -l <<<"$declared") C API symbols, all at CUDABRIDGE_1, nothing else: ok"
