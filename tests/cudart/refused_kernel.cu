// A kernel the simulated GPU cannot run (a SIMD video instruction): its launch fails with CUDA's
// cudaErrorNoKernelImageForDevice, and why (the instruction and its PTX line) reaches stderr.
// The other kernels of other translation units still run. refusal_reaches_stderr.sh checks the
// message.
#include "expect.cuh"

#include <cuda_runtime.h>

__global__ void absdiff(unsigned* out) { out[threadIdx.x] = __vabsdiffu4(out[threadIdx.x], 0x01020304u); }

int main() {
    unsigned* out = nullptr;
    EXPECT(cudaMalloc(&out, 32 * sizeof(unsigned)) == cudaSuccess);
    absdiff<<<1, 32>>>(out);
    EXPECT(cudaGetLastError() == cudaErrorNoKernelImageForDevice);
    EXPECT(cudaFree(out) == cudaSuccess);
    return verdict("refused_kernel");
}
