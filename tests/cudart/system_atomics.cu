// System-scope atomics on managed memory while the host updates the same words with its own
// atomics: atomicAdd_system and atomicCAS_system are atomic with the CPU too (a GPU sends them to
// host memory as PCIe AtomicOps), so no update of either side is lost, however the two overlap.
// Device-scope atomics on the same memory are atomic across the kernel's blocks only.
#include "expect.cuh"

#include <cuda_runtime.h>

#include <atomic>

namespace {

constexpr int blocks = 64, threads = 256, rounds = 50;

__global__ void add_and_count(int* counters) {
    for (int i = 0; i < rounds; ++i) {
        atomicAdd_system(&counters[0], 3);
        int seen = atomicCAS_system(&counters[1], 0, 0);  // a read through CAS
        while (atomicCAS_system(&counters[1], seen, seen + 1) != seen) seen = atomicCAS_system(&counters[1], 0, 0);
    }
}

}  // namespace

int main() {
    int* counters = nullptr;
    EXPECT(cudaMallocManaged(&counters, 2 * sizeof(int)) == cudaSuccess);
    counters[0] = counters[1] = 0;
    add_and_count<<<blocks, threads>>>(counters);
    EXPECT(cudaGetLastError() == cudaSuccess);
    // The host's share, while the kernel runs (or before it starts, or after: any order is right).
    constexpr int host_updates = 400000;
    for (int i = 0; i < host_updates; ++i) {
        __atomic_fetch_add(&counters[0], 5, __ATOMIC_SEQ_CST);
        __atomic_fetch_add(&counters[1], 1, __ATOMIC_SEQ_CST);
    }
    EXPECT(cudaDeviceSynchronize() == cudaSuccess);
    const long long device_updates = 1LL * blocks * threads * rounds;
    std::printf("sum %d (expected %lld), count %d (expected %lld)\n", counters[0],
                3 * device_updates + 5LL * host_updates, counters[1], device_updates + host_updates);
    EXPECT(counters[0] == 3 * device_updates + 5LL * host_updates);
    EXPECT(counters[1] == device_updates + host_updates);
    EXPECT(cudaFree(counters) == cudaSuccess);
    return verdict("system_atomics");
}
