// A failing assert() in a kernel: CUDA's line on stderr, cudaErrorAssert from the next
// synchronization, sticky (every later call answers it) until cudaDeviceReset, after which the
// device works again.
#include "expect.cuh"

#include <cassert>
#include <cuda_runtime.h>
#include <string>

__global__ void check_positive(const int* values, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) assert(values[i] > 0);
}

int main() {
    const int n = 256;
    int host[n];
    for (int i = 0; i < n; ++i) host[i] = i == 77 ? -1 : i + 1;
    int* d = nullptr;
    EXPECT(cudaMalloc(&d, sizeof host) == cudaSuccess);
    EXPECT(cudaMemcpy(d, host, sizeof host, cudaMemcpyHostToDevice) == cudaSuccess);
    check_positive<<<2, 128>>>(d, n);
    EXPECT(cudaDeviceSynchronize() == cudaErrorAssert);
    EXPECT(cudaGetLastError() == cudaErrorAssert);
    EXPECT(cudaMalloc(&d, 16) == cudaErrorAssert);  // sticky: the context is unusable
    EXPECT(std::string(cudaGetErrorName(cudaErrorAssert)) == "cudaErrorAssert");
    EXPECT(cudaDeviceReset() == cudaSuccess);
    int* e = nullptr;
    EXPECT(cudaMalloc(&e, sizeof host) == cudaSuccess);
    fill<<<2, 128>>>(e, n, 5);
    EXPECT(cudaMemcpy(host, e, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(host[0] == 5 && host[n - 1] == 5);
    EXPECT(cudaFree(e) == cudaSuccess);
    return verdict("device_assert");
}
