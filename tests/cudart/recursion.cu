// Recursive device functions on the per-thread call stack (cudaLimitStackSize): a recursive
// Fibonacci and a recursive sum over a tree of local arrays, each thread to its own depth,
// checked against the host; the default 1 KiB stack holds a shallow recursion and overflows on a
// deep one with an error, not a crash; cudaDeviceSetLimit(cudaLimitStackSize) makes room for it.
#include "expect.cuh"

#include <cuda_runtime.h>

__device__ int fibonacci(int n) { return n < 2 ? n : fibonacci(n - 1) + fibonacci(n - 2); }

// Each level keeps an array on the stack (indexed at run time, so it lives in local memory): a
// level takes at least 64 bytes of it.
__device__ long long nested_sum(int depth, int seed) {
    int local[16];
    for (int k = 0; k < 16; ++k) local[k] = seed + k;
    long long here = 0;
    for (int k = 0; k < 16; ++k) here += local[(k + seed) % 16];
    return depth == 0 ? here : here + nested_sum(depth - 1, seed + 1);
}

long long host_nested_sum(int depth, int seed) {
    long long here = 16LL * seed + 120;
    return depth == 0 ? here : here + host_nested_sum(depth - 1, seed + 1);
}

__global__ void fibonaccis(int* out, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = fibonacci(i % 16);
}

__global__ void nested(long long* out, int depth) {
    const int i = threadIdx.x;
    out[i] = nested_sum(depth + i % 4, i);
}

int main() {
    size_t stack = 0;
    EXPECT(cudaDeviceGetLimit(&stack, cudaLimitStackSize) == cudaSuccess && stack == 1024);

    const int n = 256;
    int* fib = nullptr;
    EXPECT(cudaMalloc(&fib, n * sizeof(int)) == cudaSuccess);
    fibonaccis<<<2, 128>>>(fib, n);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    int host[n];
    EXPECT(cudaMemcpy(host, fib, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
    int a = 0, b = 1, want[16];
    for (int k = 0; k < 16; ++k) want[k] = a, b = a + b, a = b - a;
    int wrong = 0;
    for (int i = 0; i < n; ++i) wrong += host[i] != want[i % 16];
    EXPECT(wrong == 0);

    long long* sums = nullptr;
    long long got[64];
    EXPECT(cudaMalloc(&sums, sizeof got) == cudaSuccess);
    nested<<<1, 64>>>(sums, 4);  // at most 8 levels: inside 1 KiB
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    EXPECT(cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    wrong = 0;
    for (int i = 0; i < 64; ++i) wrong += got[i] != host_nested_sum(4 + i % 4, i);
    EXPECT(wrong == 0);

    // 200 levels of at least 64 bytes do not fit 1 KiB: the launch fails, the program goes on.
    nested<<<1, 64>>>(sums, 200);
    const cudaError_t overflow = cudaDeviceSynchronize();
    EXPECT(overflow != cudaSuccess);
    std::printf("past the stack: %s\n", cudaGetErrorString(overflow));
    EXPECT(cudaDeviceReset() == cudaSuccess);

    // With 64 KiB per thread they do.
    EXPECT(cudaDeviceSetLimit(cudaLimitStackSize, 64 << 10) == cudaSuccess);
    EXPECT(cudaDeviceGetLimit(&stack, cudaLimitStackSize) == cudaSuccess && stack == (64 << 10));
    EXPECT(cudaMalloc(&sums, sizeof got) == cudaSuccess);
    nested<<<1, 64>>>(sums, 200);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    EXPECT(cudaMemcpy(got, sums, sizeof got, cudaMemcpyDeviceToHost) == cudaSuccess);
    wrong = 0;
    for (int i = 0; i < 64; ++i) wrong += got[i] != host_nested_sum(200 + i % 4, i);
    EXPECT(wrong == 0);
    return verdict("recursion");
}
