#!/usr/bin/env bash
# exports_test.sh LIBCUDART: the library exports what nvcc 13's generated code binds to, at the
# version node "libcudart.so.13", and nothing of CudaBridge's own.
set -euo pipefail
lib=$1
syms=$(readelf --dyn-syms --wide "$lib" | awk '$7 != "UND" && ($5 == "GLOBAL" || $5 == "WEAK") {print $8}')
status=0
for want in __cudaRegisterFatBinary __cudaRegisterFatBinaryEnd __cudaUnregisterFatBinary __cudaRegisterFunction \
    __cudaRegisterVar __cudaPushCallConfiguration __cudaPopCallConfiguration __cudaGetKernel __cudaLaunchKernel \
    __cudaInitModule cudaLaunchKernel cudaMalloc cudaFree cudaMemcpy cudaMemcpyAsync cudaMemset cudaDeviceSynchronize \
    cudaGetDeviceProperties cudaGetLastError cudaGetErrorString cudaStreamCreate cudaEventElapsedTime; do
    grep -qx "$want@@libcudart.so.13" <<<"$syms" || { echo "missing: $want@@libcudart.so.13"; status=1; }
done
others=$(grep -v '^cuda\|^__cuda\|^libcudart.so.13$' <<<"$syms" || true)
[[ -z $others ]] || { echo "exported beyond the CUDA API:"; echo "$others"; status=1; }
[[ $(readelf -d "$lib" | grep -o 'Library soname: \[[^]]*\]') == 'Library soname: [libcudart.so.13]' ]] ||
    { echo "soname is not libcudart.so.13"; status=1; }
[[ $status == 0 ]] && echo "libcudart.so.13: $(wc -l <<<"$syms") symbols, all at libcudart.so.13"
exit $status
