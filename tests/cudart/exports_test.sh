#!/usr/bin/env bash
# exports_test.sh LIBCUDART [MAJOR [LIST]]: the library exports what nvcc MAJOR's generated code
# (13 by default; 12 for libcudart.so.12) binds to, at the version node "libcudart.so.MAJOR", and
# nothing of CudaBridge's own. With LIST (one name per line: every function NVIDIA's
# libcudart.so.MAJOR exports), every name of it is exported too, so that no program dies at load
# with an undefined symbol; where the toolkit's own library is installed, LIST must equal its
# exports (so the list follows the toolkit).
set -euo pipefail
lib=$1 major=${2:-13} list=${3:-}
node=libcudart.so.$major
syms=$(readelf --dyn-syms --wide "$lib" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}')
status=0
want=(__cudaRegisterFatBinary __cudaRegisterFatBinaryEnd __cudaUnregisterFatBinary __cudaRegisterFunction
    __cudaRegisterVar __cudaPushCallConfiguration __cudaPopCallConfiguration __cudaGetKernel __cudaLaunchKernel
    __cudaInitModule cudaLaunchKernel cudaMalloc cudaFree cudaMemcpy cudaMemcpyAsync cudaMemset cudaDeviceSynchronize
    cudaGetDeviceProperties cudaGetLastError cudaGetErrorString cudaStreamCreate cudaEventElapsedTime
    cudaMallocManaged cudaMemAdvise cudaMemPrefetchAsync)
# CUDA 12's header calls cudaGetDeviceProperties_v2; cudaMemAdvise_v2 and cudaMemPrefetchAsync_v2
# take a cudaMemLocation (CUDA 13's plain forms).
[[ $major == 12 ]] && want+=(cudaGetDeviceProperties_v2 cudaMemAdvise_v2 cudaMemPrefetchAsync_v2)
for w in "${want[@]}"; do
    grep -qx "$w@@$node" <<<"$syms" || { echo "missing: $w@@$node"; status=1; }
done
if [[ -n $list ]]; then
    missing=$(comm -23 <(sort -u "$list") <(sed 's/@@.*//' <<<"$syms" | sort -u))
    [[ -z $missing ]] || { echo "not exported (a program calling one would not load):"; echo "$missing"; status=1; }
    toolkit=${CUDA_HOME:-/usr/local/cuda}/lib64/libcudart.so.$major
    if [[ -e $toolkit ]]; then
        theirs=$(readelf --dyn-syms --wide "$toolkit" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}' |
            sed 's/@@.*//' | grep -v "^$node\$" | sort -u)
        drift=$(diff <(sort -u "$list") <(echo "$theirs") || true)
        [[ -z $drift ]] || { echo "$list differs from $toolkit's exports (< list only, > toolkit only):"; echo "$drift"; status=1; }
    fi
fi
# CudaBridge's libcuda.so.1 is built on the runtime objects' own functions, exported at a private
# version no program binds to (libcudart.map); only the .so.13 has them.
private='^_ZN\(K\|\)10cudabridge6cudart.*@@CUDABRIDGE_CUDART_PRIVATE$\|^CUDABRIDGE_CUDART_PRIVATE$'
[[ $major == 13 ]] || private='^$'
others=$(grep -v "^cuda.*@@$node\$\|^__cuda.*@@$node\$\|^$node\$" <<<"$syms" | grep -v "$private" || true)
[[ -z $others ]] || { echo "exported beyond the CUDA API at $node:"; echo "$others"; status=1; }
[[ $(readelf -d "$lib" | grep -o 'Library soname: \[[^]]*\]') == "Library soname: [$node]" ]] ||
    { echo "soname is not $node"; status=1; }
[[ $status == 0 ]] && echo "$node: $(grep -c "@@$node\$" <<<"$syms") symbols at $node"
exit $status
