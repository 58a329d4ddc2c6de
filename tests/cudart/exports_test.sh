#!/usr/bin/env bash
# exports_test.sh LIBCUDART [MAJOR]: the library exports what nvcc MAJOR's generated code (13 by
# default; 12 for libcudart.so.12) binds to, at the version node "libcudart.so.MAJOR", and nothing
# of CudaBridge's own.
set -euo pipefail
lib=$1 major=${2:-13}
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
others=$(grep -v "^cuda.*@@$node\$\|^__cuda.*@@$node\$\|^$node\$" <<<"$syms" || true)
[[ -z $others ]] || { echo "exported beyond the CUDA API at $node:"; echo "$others"; status=1; }
[[ $(readelf -d "$lib" | grep -o 'Library soname: \[[^]]*\]') == "Library soname: [$node]" ]] ||
    { echo "soname is not $node"; status=1; }
[[ $status == 0 ]] && echo "$node: $(wc -l <<<"$syms") symbols, all at $node"
exit $status
