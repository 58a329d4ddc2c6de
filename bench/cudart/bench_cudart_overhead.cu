// What CudaBridge's libcudart.so.13 adds to a call, against the same call made on cudabridge.h
// in the same process and run: an empty kernel's launch and a 64-byte cudaMemcpyAsync, each the
// best of 5 rounds of 2000 calls (queued, then synchronized once), wall clock.
//   nvcc -cudart shared ... ; cudabridge-cli run -- bench_cudart_overhead
#include <cudabridge.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>

__global__ void empty_kernel() {}

// The same empty kernel as PTX, for the cudabridge.h side.
static const char empty_ptx[] =
    ".version 8.0\n.target sm_75\n.address_size 64\n.visible .entry empty_kernel()\n{\n ret;\n}\n";

static double best_us_per_call(int calls, const std::function<void()>& call, const std::function<void()>& sync) {
    double best = 1e30;
    for (int round = 0; round < 5; ++round) {
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < calls; ++i) call();
        sync();
        const double us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
        best = std::min(best, us / calls);
    }
    return best;
}

int main() {
    const int calls = 2000;
    char* d = nullptr;
    char host[64] = {};
    if (cudaMalloc(&d, 64) != cudaSuccess) return 1;
    cbModule_t m = nullptr;
    if (cbModuleLoadData(&m, empty_ptx, sizeof empty_ptx, CB_MODULE_PTX) != cbSuccess) {
        std::fprintf(stderr, "cbModuleLoadData: %s\n", cbGetLastErrorMessage());
        return 1;
    }
    empty_kernel<<<1, 32>>>();  // loads the fatbin's module before timing
    cudaDeviceSynchronize();
    const auto cuda_sync = [] { cudaDeviceSynchronize(); };
    const auto cb_sync = [] { cbDeviceSynchronize(); };
    const double cuda_launch = best_us_per_call(calls, [] { empty_kernel<<<1, 32>>>(); }, cuda_sync);
    const double cb_launch = best_us_per_call(
        calls, [&] { cbModuleLaunchKernel(m, "empty_kernel", {1, 1, 1}, {32, 1, 1}, nullptr, 0, 0, nullptr); },
        cb_sync);
    const double cuda_copy =
        best_us_per_call(calls, [&] { cudaMemcpyAsync(d, host, 64, cudaMemcpyHostToDevice, 0); }, cuda_sync);
    const double cb_copy =
        best_us_per_call(calls, [&] { cbMemcpyAsync(d, host, 64, cbMemcpyHostToDevice, nullptr); }, cb_sync);
    std::printf("launch of an empty kernel   cudart %7.2f us  cudabridge.h %7.2f us  ratio %.2fx (goal <= 1.2x, <= 3 us)\n",
                cuda_launch, cb_launch, cuda_launch / cb_launch);
    std::printf("64-byte cudaMemcpyAsync     cudart %7.2f us  cudabridge.h %7.2f us  ratio %.2fx (goal <= 1.2x, <= 3 us)\n",
                cuda_copy, cb_copy, cuda_copy / cb_copy);
    std::printf("(wall clock per call, best of 5 rounds of %d, measured)\n", calls);
    return 0;
}
