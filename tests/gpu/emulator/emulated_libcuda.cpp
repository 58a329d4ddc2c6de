// An emulated libcuda for the real-GPU test suite on machines without a GPU: the CUDA driver
// entry points the kernel-driver backend binds, over host memory, running the built-in kernels
// compiled as host C++ (emulated_kernels.cpp). Device addresses are host addresses; work runs at
// launch (streams are always idle); blocks run one after another, one thread each, except for the
// row reductions and the sorts, whose barriers run with several threads and a std::barrier.
// Test-only, and no GPU model: timings mean nothing, user modules are refused; pinned memory and
// cross-stream waits only keep the book (work already ran at launch).
#include <dlfcn.h>

#include <algorithm>
#include <barrier>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "cuda_emulation.hpp"
#include "nvidia_driver/cuda_kernels/kernel_abi.hpp"

thread_local cb_emulated_dim3 threadIdx;
thread_local cb_emulated_dim3 blockIdx;
thread_local cb_emulated_dim3 blockDim;
thread_local cb_emulated_dim3 gridDim;
static thread_local std::barrier<>* block_barrier = nullptr;

void __syncthreads() {
    if (block_barrier != nullptr) block_barrier->arrive_and_wait();
}

namespace {

using nd_layout = cudabridge::nv::cuda_kernels::nd_layout;
using CUdeviceptr = unsigned long long;

constexpr std::size_t k_memory = std::size_t{2} << 30;  // the emulated GPU's memory

std::mutex g_mutex;
std::map<CUdeviceptr, std::size_t> g_allocations;
std::size_t g_used = 0;

// Calls a kernel of signature void(Args...) with cuLaunchKernel's kernelParams.
template <class... Args, std::size_t... I>
void call_with(void* fn, void** params, std::index_sequence<I...>) {
    reinterpret_cast<void (*)(Args...)>(fn)(*static_cast<Args*>(params[I])...);
}
template <class... Args>
void call(void* fn, void** params) {
    call_with<Args...>(fn, params, std::index_sequence_for<Args...>{});
}

using i64 = std::int64_t;
using u64 = std::uint64_t;
using i32 = std::int32_t;

struct signature {
    const char* prefix;
    void (*invoke)(void* fn, void** params);
    bool needs_all_threads;  // uses __shared__ + __syncthreads across the block
};
const signature k_signatures[] = {
    {"cb_binary_", call<nd_layout, i64, u64, u64, u64>, false},
    {"cb_unary_", call<nd_layout, i64, u64, u64>, false},
    {"cb_cast_", call<nd_layout, i64, u64, u64>, false},
    {"cb_fill_", call<nd_layout, i64, u64, u64>, false},
    {"cb_arange_", call<i64, u64, i64, i64, double, double, i32>, false},
    {"cb_random_uniform_", call<i64, u64, u64, u64>, false},
    {"cb_reduce_rows_", call<u64, i64, i64, i64, i32, u64, u64>, true},
    {"cb_reduce_finish_", call<u64, i64, i32, i64, u64>, false},
    {"cb_reduce_cols_", call<u64, i64, i64, i64, u64>, false},
    {"cb_matmul_", call<u64, u64, u64, i64, i64, i64>, false},
    {"cb_crc32c", call<u64, i64, i64, i64, u64>, false},
    {"cb_take_", call<nd_layout, i64, u64, u64, u64, i64>, false},
    {"cb_put_", call<nd_layout, i64, u64, u64, u64, i64>, false},
    {"cb_copyto_", call<nd_layout, i64, u64, u64, u64>, false},
    {"cb_sort_", call<u64, u64, i64, i64>, true},
    {"cb_argsort_", call<u64, u64, i64, i64>, true},
    // After cb_sort_ / cb_argsort_: the last matching prefix names the signature.
    {"cb_sort_step_", call<u64, i64, i64, i64, i64>, false},
    {"cb_argsort_step_", call<u64, u64, i64, i64, i64, i64>, false},
};

struct function {
    void* entry = nullptr;
    const signature* sig = nullptr;
};
std::map<std::string, function> g_functions;

void* own_handle() {
    Dl_info info{};
    if (::dladdr(reinterpret_cast<void*>(&own_handle), &info) == 0 || info.dli_fname == nullptr) return nullptr;
    return ::dlopen(info.dli_fname, RTLD_NOW | RTLD_NOLOAD);
}

// Runs every block of a launch. Kernels that synchronize get several threads (8: enough for a
// three-level shared-memory tree, few enough that 2 cores are not swamped by barrier wake-ups),
// kept for the whole launch and stepping through the blocks together; the others one thread per
// block. Every built-in kernel strides by blockDim, so a smaller block covers the same elements.
void run_launch(const function& f, void** params, unsigned grid_x, unsigned grid_y, unsigned block_x) {
    const unsigned threads = f.sig->needs_all_threads ? std::min(block_x, 8u) : 1;
    std::barrier<> barrier(static_cast<std::ptrdiff_t>(threads));
    auto worker = [&](unsigned tid) {
        gridDim = {grid_x, grid_y, 1};
        blockDim = {threads, 1, 1};
        threadIdx = {tid, 0, 0};
        block_barrier = threads > 1 ? &barrier : nullptr;
        for (unsigned y = 0; y < grid_y; ++y)
            for (unsigned x = 0; x < grid_x; ++x) {
                blockIdx = {x, y, 0};
                f.sig->invoke(f.entry, params);
                if (block_barrier != nullptr) block_barrier->arrive_and_wait();  // the block's end
            }
        block_barrier = nullptr;
    };
    if (threads == 1) {
        worker(0);
        return;
    }
    std::vector<std::thread> pool;
    pool.reserve(threads);
    for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker, t);
    for (auto& th : pool) th.join();
}

}  // namespace

#define EXPORT extern "C" __attribute__((visibility("default")))

EXPORT int cuInit(unsigned int) { return 0; }
EXPORT int cuDriverGetVersion(int* v) {
    *v = 13000;
    return 0;
}
EXPORT int cuDeviceGetCount(int* c) {
    *c = 1;
    return 0;
}
EXPORT int cuDeviceGet(int* d, int ordinal) {
    if (ordinal != 0) return 101;
    *d = 0;
    return 0;
}
EXPORT int cuDeviceGetName(char* name, int len, int) {
    std::snprintf(name, static_cast<std::size_t>(len), "CudaBridge emulated GPU (host threads)");
    return 0;
}
EXPORT int cuDeviceTotalMem_v2(std::size_t* bytes, int) {
    *bytes = k_memory;
    return 0;
}
EXPORT int cuDeviceGetAttribute(int* v, int attr, int) {
    switch (attr) {
    case 75:
        *v = 8;
        break;  // compute capability 8.9
    case 76:
        *v = 9;
        break;
    case 16:
        *v = 4;
        break;  // SMs
    case 10:
        *v = 32;
        break;  // warp
    case 1:
        *v = 1024;
        break;
    default:
        *v = 0;
        break;
    }
    return 0;
}
EXPORT int cuDeviceGetUuid_v2(char* uuid, int) {
    std::memset(uuid, 0x5e, 16);
    return 0;
}
EXPORT int cuDevicePrimaryCtxRetain(void** ctx, int) {
    *ctx = reinterpret_cast<void*>(0x1);
    return 0;
}
EXPORT int cuDevicePrimaryCtxRelease_v2(int) { return 0; }
EXPORT int cuCtxSetCurrent(void*) { return 0; }
EXPORT int cuCtxSynchronize() { return 0; }
EXPORT int cuCtxGetDevice(int* d) {
    *d = 0;
    return 0;
}
EXPORT int cuDeviceGetPCIBusId(char* bus, int len, int) {
    std::snprintf(bus, static_cast<std::size_t>(len), "0000:00:00.0");
    return 0;
}

EXPORT int cuMemAlloc_v2(CUdeviceptr* p, std::size_t n) {
    if (n == 0) return 1;
    std::lock_guard lock(g_mutex);
    if (n > k_memory - g_used) return 2;  // CUDA_ERROR_OUT_OF_MEMORY
    void* mem = std::aligned_alloc(256, (n + 255) / 256 * 256);
    if (mem == nullptr) return 2;
    *p = reinterpret_cast<uintptr_t>(mem);
    g_allocations[*p] = n;
    g_used += n;
    return 0;
}
EXPORT int cuMemFree_v2(CUdeviceptr p) {
    std::lock_guard lock(g_mutex);
    auto it = g_allocations.find(p);
    if (it == g_allocations.end()) return 1;
    g_used -= it->second;
    g_allocations.erase(it);
    std::free(reinterpret_cast<void*>(static_cast<uintptr_t>(p)));
    return 0;
}
EXPORT int cuMemGetAddressRange_v2(CUdeviceptr* base, std::size_t* size, CUdeviceptr p) {
    std::lock_guard lock(g_mutex);
    auto it = g_allocations.upper_bound(p);
    if (it == g_allocations.begin()) return 500;  // CUDA_ERROR_NOT_FOUND
    --it;
    if (p >= it->first + it->second) return 500;
    *base = it->first;
    *size = it->second;
    return 0;
}
EXPORT int cuMemAllocAsync(CUdeviceptr* p, std::size_t n, void*) { return cuMemAlloc_v2(p, n); }
EXPORT int cuMemFreeAsync(CUdeviceptr p, void*) { return cuMemFree_v2(p); }
EXPORT int cuMemGetInfo_v2(std::size_t* free, std::size_t* total) {
    std::lock_guard lock(g_mutex);
    *free = k_memory - g_used;
    *total = k_memory;
    return 0;
}
EXPORT int cuMemHostAlloc(void** p, std::size_t n, unsigned int) {
    *p = std::malloc(n == 0 ? 1 : n);
    return *p != nullptr ? 0 : 2;
}
EXPORT int cuMemFreeHost(void* p) {
    std::free(p);
    return 0;
}

// Pinned host memory: host memory is all the emulated GPU sees anyway, so registering only keeps
// the book (overlap: CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED, unknown: ..._NOT_REGISTERED).
static std::map<uintptr_t, std::size_t> g_registered;
EXPORT int cuMemHostRegister_v2(void* p, std::size_t n, unsigned int) {
    const auto start = reinterpret_cast<uintptr_t>(p);
    std::lock_guard lock(g_mutex);
    if (p == nullptr || n == 0) return 1;
    auto next = g_registered.upper_bound(start);
    if (next != g_registered.end() && next->first < start + n) return 712;
    if (next != g_registered.begin() && std::prev(next)->first + std::prev(next)->second > start) return 712;
    g_registered[start] = n;
    return 0;
}
EXPORT int cuMemHostUnregister(void* p) {
    std::lock_guard lock(g_mutex);
    return g_registered.erase(reinterpret_cast<uintptr_t>(p)) == 1 ? 0 : 713;
}

static void* host(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }
EXPORT int cuMemcpyHtoD_v2(CUdeviceptr d, const void* s, std::size_t n) {
    std::memcpy(host(d), s, n);
    return 0;
}
EXPORT int cuMemcpyDtoH_v2(void* d, CUdeviceptr s, std::size_t n) {
    std::memcpy(d, host(s), n);
    return 0;
}
EXPORT int cuMemcpyDtoD_v2(CUdeviceptr d, CUdeviceptr s, std::size_t n) {
    std::memmove(host(d), host(s), n);
    return 0;
}
EXPORT int cuMemsetD8_v2(CUdeviceptr d, unsigned char v, std::size_t n) {
    std::memset(host(d), v, n);
    return 0;
}
EXPORT int cuMemcpyHtoDAsync_v2(CUdeviceptr d, const void* s, std::size_t n, void*) { return cuMemcpyHtoD_v2(d, s, n); }
EXPORT int cuMemcpyDtoHAsync_v2(void* d, CUdeviceptr s, std::size_t n, void*) { return cuMemcpyDtoH_v2(d, s, n); }
EXPORT int cuMemcpyDtoDAsync_v2(CUdeviceptr d, CUdeviceptr s, std::size_t n, void*) { return cuMemcpyDtoD_v2(d, s, n); }
EXPORT int cuMemsetD8Async(CUdeviceptr d, unsigned char v, std::size_t n, void*) { return cuMemsetD8_v2(d, v, n); }

EXPORT int cuStreamCreate(void** s, unsigned int) {
    *s = new char;
    return 0;
}
EXPORT int cuStreamDestroy_v2(void* s) {
    delete static_cast<char*>(s);
    return 0;
}
EXPORT int cuStreamSynchronize(void*) { return 0; }
EXPORT int cuStreamQuery(void*) { return 0; }
EXPORT int cuStreamWaitEvent(void*, void*, unsigned int flags) { return flags == 0 ? 0 : 1; }  // work runs at launch
using clock_type = std::chrono::steady_clock;
EXPORT int cuEventCreate(void** e, unsigned int) {
    *e = new clock_type::time_point(clock_type::now());
    return 0;
}
EXPORT int cuEventDestroy_v2(void* e) {
    delete static_cast<clock_type::time_point*>(e);
    return 0;
}
EXPORT int cuEventRecord(void* e, void*) {
    *static_cast<clock_type::time_point*>(e) = clock_type::now();
    return 0;
}
EXPORT int cuEventSynchronize(void*) { return 0; }
EXPORT int cuEventQuery(void*) { return 0; }
EXPORT int cuEventElapsedTime_v2(float* ms, void* a, void* b) {
    *ms = std::chrono::duration<float, std::milli>(*static_cast<clock_type::time_point*>(b) -
                                                   *static_cast<clock_type::time_point*>(a))
              .count();
    return 0;
}

EXPORT int cuModuleLoadData(void** m, const void* image) {
    std::uint32_t magic = 0;
    std::memcpy(&magic, image, 4);
    if (magic != 0xBA55ED50u) return 200;  // only the built-in fatbin: its kernels are compiled in
    *m = reinterpret_cast<void*>(0x2);
    return 0;
}
EXPORT int cuModuleLoadDataEx(void**, const void*, unsigned int, int*, void**) { return 801; }
EXPORT int cuModuleUnload(void*) { return 0; }
EXPORT int cuModuleGetFunction(void** out, void*, const char* name) {
    std::lock_guard lock(g_mutex);
    auto it = g_functions.find(name);
    if (it == g_functions.end()) {
        function f;
        static void* self = own_handle();
        f.entry = self != nullptr ? ::dlsym(self, name) : nullptr;
        for (const auto& sig : k_signatures)
            if (std::strncmp(name, sig.prefix, std::strlen(sig.prefix)) == 0) f.sig = &sig;
        if (f.entry == nullptr || f.sig == nullptr) return 500;  // CUDA_ERROR_NOT_FOUND
        it = g_functions.emplace(name, f).first;
    }
    *out = &it->second;
    return 0;
}
EXPORT int cuLaunchKernel(void* fn, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned, unsigned, unsigned,
                          void*, void** params, void**) {
    const auto& f = *static_cast<const function*>(fn);
    if (gx == 0 || gy == 0 || gz != 1 || bx == 0) return 1;
    run_launch(f, params, gx, gy, bx);
    return 0;
}
EXPORT int cuGetErrorName(int, const char** s) {
    *s = nullptr;
    return 1;
}
EXPORT int cuGetErrorString(int, const char** s) {
    *s = nullptr;
    return 1;
}
