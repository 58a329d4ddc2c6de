#!/usr/bin/env bash
# exports_test.sh LIBCUDA LIST: the library's soname is libcuda.so.1 and it exports exactly the
# names of LIST (one per line: every function of NVIDIA's CUDA 13 driver API), without a symbol
# version, as NVIDIA's libcuda.so.1 does. Where the toolkit's stub (lib64/stubs/libcuda.so) is
# installed, LIST must equal its exports, so that the list follows the toolkit.
set -euo pipefail
lib=$1 list=$2
syms=$(readelf --dyn-syms --wide "$lib" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}' | sort -u)
status=0
versioned=$(grep '@' <<<"$syms" || true)
[[ -z $versioned ]] || { echo "exported with a symbol version:"; echo "$versioned"; status=1; }
missing=$(comm -23 <(sort -u "$list") <(echo "$syms"))
[[ -z $missing ]] || { echo "not exported (a program calling one would not load):"; echo "$missing"; status=1; }
extra=$(comm -13 <(sort -u "$list") <(echo "$syms"))
[[ -z $extra ]] || { echo "exported beyond the driver API:"; echo "$extra"; status=1; }
stub=${CUDA_HOME:-/usr/local/cuda}/lib64/stubs/libcuda.so
if [[ -e $stub ]]; then
    theirs=$(readelf --dyn-syms --wide "$stub" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}' |
        sed 's/@.*//' | sort -u)
    drift=$(diff <(sort -u "$list") <(echo "$theirs") || true)
    [[ -z $drift ]] || { echo "$list differs from $stub's exports (< list only, > stub only):"; echo "$drift"; status=1; }
fi
[[ $(readelf -d "$lib" | grep -o 'Library soname: \[[^]]*\]') == "Library soname: [libcuda.so.1]" ]] ||
    { echo "soname is not libcuda.so.1"; status=1; }
[[ $status == 0 ]] && echo "libcuda.so.1: $(wc -l <<<"$syms") driver API functions exported"
exit $status
