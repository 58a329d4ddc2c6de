// A kernel the simulated GPU cannot run (a scalar video instruction): its launch fails with CUDA's
// cudaErrorNoKernelImageForDevice, and why (the instruction and its PTX line) reaches stderr.
// The other kernels of other translation units still run. refusal_reaches_stderr.sh checks the
// message.
#include "expect.cuh"

#include <cuda_runtime.h>

__global__ void absdiff(unsigned* out) {
    unsigned d;
    asm("vabsdiff.u32.u32.u32.add %0, %1, %2, %3;" : "=r"(d) : "r"(out[threadIdx.x]), "r"(0x01020304u), "r"(0u));
    out[threadIdx.x] = d;
}

int main() {
    unsigned* out = nullptr;
    EXPECT(cudaMalloc(&out, 32 * sizeof(unsigned)) == cudaSuccess);
    absdiff<<<1, 32>>>(out);
    EXPECT(cudaGetLastError() == cudaErrorNoKernelImageForDevice);
    EXPECT(cudaFree(out) == cudaSuccess);
    return verdict("refused_kernel");
}
