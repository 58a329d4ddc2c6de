// The kernel-driver backend's overhead on a real GPU, measured in one process against the driver
// and cuBLAS called directly: host<->device bandwidth from pinned memory (cuMemHostAlloc) through
// the backend vs cuMemcpyHtoD_v2 / cuMemcpyDtoH_v2, and a 4096^3 float32 product through
// launch_builtin("matmul") vs cublasSgemm_v2. Prints each figure and the ratio backend / direct
// (1.00 = no overhead). Usage: bench_real_gpu [copy MiB (256)] [matmul n (4096)] [repetitions (10)]
// Exits 0 when there is no GPU (it says so), 1 when a step fails or the two products disagree.
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include <cudabridge/builtin_kernels.h>

#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

using namespace cudabridge::nv;
using clock_type = std::chrono::steady_clock;

namespace {

int failures = 0;

std::string last_error;  // the message of the backend call just made (read only when it failed)

bool ok(cb_status s, const char* what) {
    if (s == CB_OK) return true;
    std::printf("bench_real_gpu: %s failed: %s\n", what, last_error.c_str());
    ++failures;
    return false;
}
bool ok(cu::CUresult r, const cuda_driver& driver, const char* what) {
    if (r == cu::CUDA_SUCCESS) return true;
    std::printf("bench_real_gpu: %s failed: %s\n", what, driver.describe(r).c_str());
    ++failures;
    return false;
}

// Seconds per repetition of `fn` (which must return when its work is done), after one warm-up.
double seconds_per(int reps, const std::function<void()>& fn) {
    fn();
    const auto t0 = clock_type::now();
    for (int i = 0; i < reps; ++i) fn();
    return std::chrono::duration<double>(clock_type::now() - t0).count() / reps;
}

void report(const char* what, double backend_value, double direct_value, const char* unit) {
    std::printf("  %-34s backend %9.2f %s   direct %9.2f %s   ratio %.3f\n", what, backend_value, unit, direct_value,
                unit, direct_value > 0 ? backend_value / direct_value : 0.0);
}

cb_tensor_desc matrix(uint64_t ptr, int64_t n) {
    cb_tensor_desc d{};
    d.device_ptr = ptr;
    d.dtype = CB_DTYPE_FLOAT32;
    d.ndim = 2;
    d.shape[0] = d.shape[1] = n;
    d.strides[0] = n;
    d.strides[1] = 1;
    return d;
}

cb_kernel_arg bytes_arg(const cb_tensor_desc& d) {
    cb_kernel_arg a{};
    a.type = CB_ARG_BYTES;
    a.size = sizeof d;
    a.value.bytes = &d;
    return a;
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each line as it comes, even into a pipe
    const std::size_t copy_bytes = (argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 256) << 20;
    const int64_t n = argc > 2 ? std::strtoll(argv[2], nullptr, 10) : 4096;
    const int reps = argc > 3 ? std::atoi(argv[3]) : 10;

    kernel_driver_options options;
    if (const char* lib = std::getenv("CB_REAL_GPU_TEST_CUDA_LIBRARY"); lib != nullptr && *lib != '\0') {
        options.cuda_library = lib;  // the suite's emulator: checks this program, measures nothing real
        options.cublas_libraries = {"/nonexistent/emulated/libcublas.so"};
        std::printf("bench_real_gpu: using %s (not a GPU: the figures mean nothing)\n", lib);
    }
    kernel_driver_backend backend(options);
    if (!backend.available()) {
        std::printf("bench_real_gpu: skipped: %s\n", backend.availability_status().reason.c_str());
        return 0;
    }
    kd_device* device = nullptr;
    if (!ok(backend.open(0, device, last_error), "open device 0")) return 1;
    cb_gpu_properties props{};
    (void)backend.properties(device, props, last_error);
    std::printf("bench_real_gpu: %s (compute %d.%d, %u SMs, bus %s)\n", props.name, props.compute_major,
                props.compute_minor, props.sm_count, props.pci_bus_id);
    const cuda_driver& driver = backend.driver();
    const cuda_api& api = driver.api();
    if (!ok(backend.make_current(device, last_error), "make_current")) return 1;

    // ---- copies from pinned memory ----
    void* pinned = nullptr;
    uint64_t dbuf = 0;
    if (ok(api.cuMemHostAlloc(&pinned, copy_bytes, cu::CU_MEMHOSTALLOC_PORTABLE), driver, "cuMemHostAlloc") &&
        ok(backend.mem_alloc(device, copy_bytes, dbuf, last_error), "mem_alloc")) {
        std::vector<unsigned char> pageable(copy_bytes, 1);
        const double gb = double(copy_bytes) / 1e9;
        std::printf("copies of %zu MiB, %d repetitions each (GB/s):\n", copy_bytes >> 20, reps);
        const double h2d_backend =
            gb / seconds_per(reps, [&] {
                ok(backend.memcpy_h2d(device, dbuf, pinned, copy_bytes, nullptr, last_error), "memcpy_h2d");
            });
        const double h2d_raw =
            gb / seconds_per(reps, [&] { ok(api.cuMemcpyHtoD(dbuf, pinned, copy_bytes), driver, "cuMemcpyHtoD_v2"); });
        const double d2h_backend =
            gb / seconds_per(reps, [&] {
                ok(backend.memcpy_d2h(device, pinned, dbuf, copy_bytes, nullptr, last_error), "memcpy_d2h");
            });
        const double d2h_raw =
            gb / seconds_per(reps, [&] { ok(api.cuMemcpyDtoH(pinned, dbuf, copy_bytes), driver, "cuMemcpyDtoH_v2"); });
        const double h2d_pageable =
            gb / seconds_per(reps, [&] {
                ok(backend.memcpy_h2d(device, dbuf, pageable.data(), copy_bytes, nullptr, last_error),
                   "memcpy_h2d pageable");
            });
        report("host->device (pinned)", h2d_backend, h2d_raw, "GB/s");
        report("device->host (pinned)", d2h_backend, d2h_raw, "GB/s");
        std::printf("  %-34s backend %9.2f GB/s   (for reference: pageable memory is staged by the driver)\n",
                    "host->device (pageable)", h2d_pageable);
    }
    if (dbuf != 0) (void)backend.mem_free(device, dbuf, last_error);
    if (pinned != nullptr) (void)api.cuMemFreeHost(pinned);

    // ---- sgemm ----
    const std::size_t mat_bytes = std::size_t(n) * std::size_t(n) * sizeof(float);
    uint64_t a = 0, b = 0, c1 = 0, c2 = 0;
    if (ok(backend.mem_alloc(device, mat_bytes, a, last_error), "mem_alloc A") &&
        ok(backend.mem_alloc(device, mat_bytes, b, last_error), "mem_alloc B") &&
        ok(backend.mem_alloc(device, mat_bytes, c1, last_error), "mem_alloc C") &&
        ok(backend.mem_alloc(device, mat_bytes, c2, last_error), "mem_alloc C'")) {
        const cb_tensor_desc da = matrix(a, n), db = matrix(b, n), dc = matrix(c1, n);
        for (const auto* d : {&da, &db}) {  // uniform [0,1) inputs from the built-in generator
            cb_kernel_arg args[] = {bytes_arg(*d), {}, {}};
            args[1].type = args[2].type = CB_ARG_UINT64;
            args[1].value.u64 = d == &da ? 1 : 2;
            cb_kernel_launch l{
                sizeof(cb_kernel_launch), 0, "random_uniform", CB_DTYPE_FLOAT32, {}, {}, 0, args, 3, nullptr, 0, 0};
            ok(backend.launch_builtin(device, l, nullptr, last_error), "random_uniform");
        }
        const double flop = 2.0 * double(n) * double(n) * double(n);
        std::printf("float32 matmul %lld x %lld x %lld, %d repetitions (TFLOP/s):\n", static_cast<long long>(n),
                    static_cast<long long>(n), static_cast<long long>(n), reps);
        cb_kernel_arg margs[] = {bytes_arg(da), bytes_arg(db), bytes_arg(dc)};
        cb_kernel_launch ml{
            sizeof(cb_kernel_launch), 0, "matmul", CB_DTYPE_FLOAT32, {}, {}, 0, margs, 3, nullptr, 0, 0};
        const double builtin_s = seconds_per(
            reps, [&] { ok(backend.launch_builtin(device, ml, nullptr, last_error), "launch_builtin matmul"); });

        const cublas_library& blas = backend.cublas();
        double direct_s = 0;
        if (!blas.available()) {
            std::printf("  cuBLAS not loadable (%s): the built-in used its own kernel; no direct figure\n",
                        blas.status().reason.c_str());
        } else {
            cublas::cublasHandle_t h = nullptr;
            std::string message;
            (void)backend.make_current(device, last_error);
            if (blas.check(blas.api().cublasCreate(&h), "cublasCreate_v2", &message) != CB_OK) {
                std::printf("  %s\n", message.c_str());
                ++failures;
            } else {
                (void)blas.api().cublasSetStream(h, nullptr);
                const float one = 1.0f, zero = 0.0f;
                const int ni = static_cast<int>(n);
                // Row-major C = A B as column-major C^T = B^T A^T, exactly as the backend calls it.
                direct_s = seconds_per(reps, [&] {
                    blas.api().cublasSgemm(h, cublas::CUBLAS_OP_N, cublas::CUBLAS_OP_N, ni, ni, ni, &one,
                                           reinterpret_cast<const float*>(b), ni, reinterpret_cast<const float*>(a), ni,
                                           &zero, reinterpret_cast<float*>(c2), ni);
                    ok(api.cuCtxSynchronize(), driver, "cuCtxSynchronize");
                });
                (void)blas.api().cublasDestroy(h);
            }
        }
        report("sgemm", flop / builtin_s / 1e12, direct_s > 0 ? flop / direct_s / 1e12 : 0.0, "TFLOP/s");
        if (direct_s > 0) {  // the two products must agree
            std::vector<float> r1(std::size_t(n) * n), r2(std::size_t(n) * n);
            ok(backend.memcpy_d2h(device, r1.data(), c1, mat_bytes, nullptr, last_error), "memcpy_d2h C");
            ok(backend.memcpy_d2h(device, r2.data(), c2, mat_bytes, nullptr, last_error), "memcpy_d2h C'");
            double worst = 0;
            for (std::size_t i = 0; i < r1.size(); ++i)
                worst = std::max(worst, double(std::fabs(r1[i] - r2[i])) / (1.0 + std::fabs(r2[i])));
            std::printf("  built-in vs direct cuBLAS result: largest relative difference %.2e%s\n", worst,
                        worst > 1e-3 ? "  <-- MISMATCH" : "");
            if (worst > 1e-3) ++failures;
        }
    }
    for (uint64_t p : {a, b, c1, c2})
        if (p != 0) (void)backend.mem_free(device, p, last_error);
    (void)backend.close(device, last_error);
    std::printf("bench_real_gpu: %s\n", failures == 0 ? "done" : "FAILED");
    return failures == 0 ? 0 : 1;
}
