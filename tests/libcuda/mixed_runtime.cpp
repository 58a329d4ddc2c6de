// A program that uses the CUDA runtime and the driver API together, as libraries built on both do:
// CudaBridge's libcudart.so.13 and libcuda.so.1 share one context, one memory and one set of
// streams. Memory from cudaMalloc feeds a kernel launched with cuLaunchKernel on a stream from
// cudaStreamCreate; memory from cuMemAlloc is read with cudaMemcpy. Built by the host compiler
// (no CUDA toolkit); prints PASS and exits 0 when every check held.
//   mixed_runtime KERNELS_PTX
#include "driver_types.hpp"

#include <cstddef>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

// The few runtime entry points used here, as cuda_runtime_api.h declares them (cudaError_t is an
// int; a cudaStream_t is a CUstream).
extern "C" {
typedef CUstream cudaStream_t;
int cudaMalloc(void** ptr, size_t bytes);
int cudaFree(void* ptr);
int cudaMemcpy(void* dst, const void* src, size_t bytes, int kind);
int cudaStreamCreate(cudaStream_t* stream);
int cudaStreamDestroy(cudaStream_t stream);
int cudaStreamSynchronize(cudaStream_t stream);
int cudaDeviceSynchronize(void);
}

namespace {

enum { host_to_device = 1, device_to_host = 2 };  // cudaMemcpyKind

int failures = 0;

// One line per check: "ok" or "FAIL", then what was checked, as written.
bool check(bool ok, const char* what, int line) {
    std::printf(ok ? "ok   %s\n" : "FAIL %s (line %d)\n", what, line);
    failures += !ok;
    return ok;
}
#define CHECK(cond) check((cond), #cond, __LINE__)

std::string read_file(const char* path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// The runtime's first call made the device's primary context current, and its allocation is one
// the driver knows.
void the_runtime_context_is_the_drivers(void* touch) {
    CUcontext current = nullptr, primary = nullptr;
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuCtxGetCurrent(&current) == CUDA_SUCCESS && current != nullptr);
    CHECK(cuDevicePrimaryCtxRetain(&primary, 0) == CUDA_SUCCESS && primary == current);
    const auto address = reinterpret_cast<CUdeviceptr>(touch);
    CUdeviceptr base = 0;
    size_t bytes = 0;
    CHECK(cuMemGetAddressRange_v2(&base, &bytes, address) == CUDA_SUCCESS);
    CHECK(base == address && bytes == sizeof(int));
    unsigned type = 0;
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, address) == CUDA_SUCCESS &&
          type == CU_MEMORYTYPE_DEVICE);
    CHECK(cuDevicePrimaryCtxRelease_v2(0) == CUDA_SUCCESS);
}

// y = 3x + y with cudaMalloc'd memory, launched by the driver on the runtime's stream.
void driver_kernel_on_runtime_memory_and_stream(CUmodule m) {
    int n = (1 << 20) + 3;
    std::vector<float> x(n), y(n), want(n), got(n);
    for (int i = 0; i < n; ++i) x[i] = float(i % 1000), y[i] = float(i % 7), want[i] = 3 * x[i] + y[i];
    void *dx = nullptr, *dy = nullptr;
    CHECK(cudaMalloc(&dx, n * sizeof(float)) == 0 && cudaMalloc(&dy, n * sizeof(float)) == 0);
    CHECK(cudaMemcpy(dx, x.data(), n * sizeof(float), host_to_device) == 0);
    CHECK(cudaMemcpy(dy, y.data(), n * sizeof(float), host_to_device) == 0);
    cudaStream_t stream = nullptr;
    CHECK(cudaStreamCreate(&stream) == 0);

    CUfunction scale_add = nullptr;
    CHECK(cuModuleGetFunction(&scale_add, m, "scale_add") == CUDA_SUCCESS);
    CUdeviceptr y_arg = reinterpret_cast<CUdeviceptr>(dy), x_arg = reinterpret_cast<CUdeviceptr>(dx);
    float a = 3;
    void* params[] = {&y_arg, &x_arg, &a, &n};
    CHECK(cuLaunchKernel(scale_add, (n + 255) / 256, 1, 1, 256, 1, 1, 0, stream, params, nullptr) == CUDA_SUCCESS);
    CHECK(cudaStreamSynchronize(stream) == 0);
    CHECK(cudaMemcpy(got.data(), dy, n * sizeof(float), device_to_host) == 0);
    CHECK(got == want);
    CHECK(cudaStreamDestroy(stream) == 0);
    CHECK(cudaFree(dx) == 0 && cudaFree(dy) == 0);
}

// fill_index into cuMemAlloc'd memory, read back by cudaMemcpy.
void runtime_reads_driver_memory(CUmodule m) {
    int n = 100003;
    CUdeviceptr d = 0;
    CHECK(cuMemAlloc_v2(&d, n * sizeof(unsigned)) == CUDA_SUCCESS);
    CUfunction fill_index = nullptr;
    CHECK(cuModuleGetFunction(&fill_index, m, "fill_index") == CUDA_SUCCESS);
    void* params[] = {&d, &n};
    CHECK(cuLaunchKernel(fill_index, (n + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, params, nullptr) == CUDA_SUCCESS);
    CHECK(cudaDeviceSynchronize() == 0);
    std::vector<unsigned> got(n), want(n);
    for (int i = 0; i < n; ++i) want[i] = unsigned(i);
    CHECK(cudaMemcpy(got.data(), reinterpret_cast<void*>(d), n * sizeof(unsigned), device_to_host) == 0);
    CHECK(got == want);
    CHECK(cuMemFree_v2(d) == CUDA_SUCCESS);
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) {
        std::fprintf(stderr, "usage: %s KERNELS_PTX\n", argv[0]);
        return 2;
    }
    // The runtime first, as a program that loads a driver-API library later would.
    void* touch = nullptr;
    CHECK(cudaMalloc(&touch, sizeof(int)) == 0);
    the_runtime_context_is_the_drivers(touch);

    const std::string ptx = read_file(argv[1]);
    CUmodule m = nullptr;
    if (CHECK(!ptx.empty() && cuModuleLoadData(&m, ptx.c_str()) == CUDA_SUCCESS)) {
        driver_kernel_on_runtime_memory_and_stream(m);
        runtime_reads_driver_memory(m);
        CHECK(cuModuleUnload(m) == CUDA_SUCCESS);
    }
    CHECK(cudaFree(touch) == 0);
    if (failures) {
        std::printf("mixed_runtime: %d FAILED\n", failures);
        return 1;
    }
    std::printf("mixed_runtime: PASS\n");
    return 0;
}
