// malloc/free and new/delete in kernels, from the device heap (cudaLimitMallocHeapSize): every
// thread allocates, writes and reads back its own block; blocks outlive the kernel that made them
// (another kernel reads and frees them); objects made with new run their constructors, arrays
// with new[], and delete runs the destructor; a heap too small answers NULL, as CUDA's malloc
// does; free of an address malloc did not return fails the launch, with a message.
#include "expect.cuh"

#include <cuda_runtime.h>

__global__ void each_thread_allocates(int** blocks, int per_thread, int* sums) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int* mine = static_cast<int*>(malloc(per_thread * sizeof(int)));
    blocks[i] = mine;
    if (!mine) return;
    for (int k = 0; k < per_thread; ++k) mine[k] = i * 1000 + k;
    int sum = 0;
    for (int k = 0; k < per_thread; ++k) sum += mine[k];
    sums[i] = sum;
    // Alignment: CUDA's malloc returns 16-byte aligned blocks.
    if (reinterpret_cast<unsigned long long>(mine) % 16 != 0) sums[i] = -1;
}

__global__ void read_and_free(int** blocks, int per_thread, int* sums) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int sum = 0;
    for (int k = 0; k < per_thread; ++k) sum += blocks[i][k];
    sums[i] = sum;
    free(blocks[i]);
}

struct counter {
    int value;
    int* destroyed;
    __device__ counter(int v, int* d) : value(v * 3), destroyed(d) {}
    __device__ ~counter() { atomicAdd(destroyed, 1); }
};

__global__ void objects(int* out, int* destroyed) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    counter* c = new counter(i, destroyed);
    double* row = new double[8];
    for (int k = 0; k < 8; ++k) row[k] = c->value + k * 0.5;
    out[i] = static_cast<int>(row[7] * 2);  // 2 * (3i + 3.5)
    delete[] row;
    delete c;
}

__global__ void one_too_many(unsigned long long* got, int bytes) {
    got[threadIdx.x] = reinterpret_cast<unsigned long long>(malloc(bytes));
}

__global__ void bad_free(int* p) { free(p + 1); }

int main() {
    size_t heap = 0;
    EXPECT(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize) == cudaSuccess && heap == (8u << 20));
    EXPECT(cudaDeviceSetLimit(cudaLimitMallocHeapSize, 32u << 20) == cudaSuccess);
    EXPECT(cudaDeviceGetLimit(&heap, cudaLimitMallocHeapSize) == cudaSuccess && heap == (32u << 20));

    const int threads = 4096, per_thread = 100;
    int** blocks = nullptr;
    int* sums = nullptr;
    EXPECT(cudaMalloc(&blocks, threads * sizeof(int*)) == cudaSuccess);
    EXPECT(cudaMalloc(&sums, threads * sizeof(int)) == cudaSuccess);
    each_thread_allocates<<<threads / 256, 256>>>(blocks, per_thread, sums);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    static int host[4096];
    static int* pointers[4096];
    EXPECT(cudaMemcpy(host, sums, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
    EXPECT(cudaMemcpy(pointers, blocks, sizeof pointers, cudaMemcpyDeviceToHost) == cudaSuccess);
    int wrong = 0;
    for (int i = 0; i < threads; ++i) {
        const int want = per_thread * i * 1000 + per_thread * (per_thread - 1) / 2;
        if (!pointers[i] || host[i] != want) ++wrong;
        for (int j = i + 1; j < threads && j < i + 8; ++j)  // neighbours never overlap
            if (pointers[i] && pointers[j] && pointers[i] < pointers[j] + per_thread &&
                pointers[j] < pointers[i] + per_thread)
                ++wrong;
    }
    EXPECT(wrong == 0);

    // The blocks outlive their kernel.
    EXPECT(cudaMemset(sums, 0, threads * sizeof(int)) == cudaSuccess);
    read_and_free<<<threads / 256, 256>>>(blocks, per_thread, sums);
    EXPECT(cudaMemcpy(host, sums, sizeof host, cudaMemcpyDeviceToHost) == cudaSuccess);
    wrong = 0;
    for (int i = 0; i < threads; ++i)
        if (host[i] != per_thread * i * 1000 + per_thread * (per_thread - 1) / 2) ++wrong;
    EXPECT(wrong == 0);

    // Freed memory is there again: the same allocation succeeds for every thread a second time.
    each_thread_allocates<<<threads / 256, 256>>>(blocks, per_thread, sums);
    EXPECT(cudaMemcpy(pointers, blocks, sizeof pointers, cudaMemcpyDeviceToHost) == cudaSuccess);
    wrong = 0;
    for (int i = 0; i < threads; ++i) wrong += pointers[i] == nullptr;
    EXPECT(wrong == 0);
    read_and_free<<<threads / 256, 256>>>(blocks, per_thread, sums);
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);

    // new and delete: constructors and destructors run.
    int *out = nullptr, *destroyed = nullptr;
    EXPECT(cudaMalloc(&out, 512 * sizeof(int)) == cudaSuccess);
    EXPECT(cudaMalloc(&destroyed, sizeof(int)) == cudaSuccess);
    EXPECT(cudaMemset(destroyed, 0, sizeof(int)) == cudaSuccess);
    objects<<<2, 256>>>(out, destroyed);
    EXPECT(cudaMemcpy(host, out, 512 * sizeof(int), cudaMemcpyDeviceToHost) == cudaSuccess);
    wrong = 0;
    for (int i = 0; i < 512; ++i) wrong += host[i] != 2 * (3 * i) + 7;
    EXPECT(wrong == 0);
    int count = 0;
    EXPECT(cudaMemcpy(&count, destroyed, sizeof count, cudaMemcpyDeviceToHost) == cudaSuccess && count == 512);

    // More than the heap holds: NULL, not a fault.
    unsigned long long* got = nullptr;
    EXPECT(cudaMalloc(&got, 4 * sizeof(unsigned long long)) == cudaSuccess);
    one_too_many<<<1, 4>>>(got, 12 << 20);  // 4 x 12 MiB from 32 MiB
    unsigned long long addresses[4] = {};
    EXPECT(cudaMemcpy(addresses, got, sizeof addresses, cudaMemcpyDeviceToHost) == cudaSuccess);
    int null_count = 0;
    for (unsigned long long a : addresses) null_count += a == 0;
    EXPECT(null_count == 2);

    // free() of an address malloc did not return: the launch fails.
    bad_free<<<1, 1>>>(out);
    EXPECT(cudaDeviceSynchronize() != cudaSuccess);
    return verdict("device_heap");
}
