#!/usr/bin/env bash
# nvrtc_exports_test.sh LIBNVRTC LIST: the library's soname is libnvrtc.so.13 and it exports
# exactly the names of LIST (NVRTC's C API in CUDA 13), each at the symbol version
# libnvrtc.so.13 as NVIDIA's library does (programs linked against it ask for that version).
# Where the toolkit's library is installed, LIST must equal its exports.
set -euo pipefail
lib=$1 list=$2
exports() { readelf --dyn-syms --wide "$1" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}'; }
syms=$(exports "$lib" | sort -u)
status=0
unversioned=$(grep -v '@libnvrtc.so.13$' <<<"$syms" | grep -v '^libnvrtc.so.13$' || true)
[[ -z $unversioned ]] || { echo "exported without the version libnvrtc.so.13:"; echo "$unversioned"; status=1; }
names=$(sed -n "s/@.*//p" <<<"$syms" | grep -vx "libnvrtc.so.13" | sort -u)  # less the version node itself
missing=$(comm -23 <(sort -u "$list") <(echo "$names"))
[[ -z $missing ]] || { echo "not exported (a program calling one would not load):"; echo "$missing"; status=1; }
extra=$(comm -13 <(sort -u "$list") <(echo "$names"))
[[ -z $extra ]] || { echo "exported beyond NVRTC's API:"; echo "$extra"; status=1; }
toolkit=${CUDA_HOME:-/usr/local/cuda}/lib64/libnvrtc.so.13
if [[ -e $toolkit ]]; then
    theirs=$(exports "$toolkit" | sed -n 's/@.*//p' | grep '^nvrtc' | sort -u)
    drift=$(diff <(sort -u "$list") <(echo "$theirs") || true)
    [[ -z $drift ]] || { echo "$list differs from $toolkit's exports (< list only, > toolkit only):"; echo "$drift"; status=1; }
fi
[[ $(readelf -d "$lib" | grep -o 'Library soname: \[[^]]*\]') == "Library soname: [libnvrtc.so.13]" ]] ||
    { echo "soname is not libnvrtc.so.13"; status=1; }
[[ $status == 0 ]] && echo "libnvrtc.so.13: $(wc -l <<<"$names") NVRTC functions exported at libnvrtc.so.13"
exit $status
