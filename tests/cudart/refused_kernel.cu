// A kernel the simulated GPU cannot run (a texture fetch): its launch fails with CUDA's
// cudaErrorNoKernelImageForDevice, and why (the instruction and its PTX line) reaches stderr.
// The other kernels of other translation units still run. refusal_reaches_stderr.sh checks the
// message.
#include "expect.cuh"

#include <cuda_runtime.h>

__global__ void fetch(cudaTextureObject_t tex, float* out) { out[threadIdx.x] = tex1Dfetch<float>(tex, threadIdx.x); }

int main() {
    float* out = nullptr;
    EXPECT(cudaMalloc(&out, 32 * sizeof(float)) == cudaSuccess);
    fetch<<<1, 32>>>(0, out);
    EXPECT(cudaGetLastError() == cudaErrorNoKernelImageForDevice);
    EXPECT(cudaFree(out) == cudaSuccess);
    return verdict("refused_kernel");
}
