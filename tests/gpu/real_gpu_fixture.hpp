// The real-GPU suite's fixture: one kernel-driver backend and device for the whole run (skipped,
// with the reason, when there is none), host tensors with strides, and the comparison of one
// built-in call run on the GPU with the same call run by the CPU engine.
//
// CB_REAL_GPU_TEST_CUDA_LIBRARY=<path> points the backend at another libcuda (the emulator of
// emulator/, which runs the kernels' source on host threads), so the suite can check itself on
// machines without a GPU.
#pragma once

#include <gtest/gtest.h>

#include <cudabridge/builtin_kernels.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"
#include "common/kernels/dtype.hpp"

namespace real_gpu {

using cudabridge::nv::kd_device;
using cudabridge::nv::kernel_driver_backend;

// A tensor in host memory: storage plus a strided view into it (element 0 at `offset`).
struct host_tensor {
    cb_dtype dtype = CB_DTYPE_FLOAT32;
    std::vector<int64_t> shape, strides;  // strides in elements; may be 0 or negative
    int64_t offset = 0;
    std::vector<unsigned char> storage;

    std::size_t element_size() const { return cudabridge::nv::kernels::dtype_size(dtype); }
    int64_t numel() const;
    cb_tensor_desc desc(uint64_t storage_address) const;
};

host_tensor contiguous(cb_dtype dtype, std::vector<int64_t> shape);
// A 2-D view of shape (rows, cols) over column-major storage: a transposed, non-contiguous operand.
host_tensor transposed(cb_dtype dtype, int64_t rows, int64_t cols);
// A 1-D view walking its storage backwards (stride -1).
host_tensor reversed(cb_dtype dtype, int64_t n);
// A 1-D view of every other element (stride 2).
host_tensor every_other(cb_dtype dtype, int64_t n);

// Fills the storage with values that exercise each dtype: extremes and wrap-around for integers,
// exact small integers, zeros, and (when `specials`) NaN / infinities for floats.
void randomize(host_tensor& t, std::mt19937_64& rng, bool specials = false);
void fill_pattern(host_tensor& t, unsigned char byte);

struct tolerance {
    double rtol = 0, atol = 0;  // 0, 0: exact (NaN equals NaN, -0 equals +0)
};

// The suite's backend and device, opened once.
struct environment {
    kernel_driver_backend* backend = nullptr;
    kd_device* device = nullptr;
    bool emulated = false;
    std::string skip_reason;  // non-empty: every test skips with it
};
const environment& gpu();

// Runs `name` with `tensors` (output last; inputs are not modified) and then `scalars`, on the GPU
// and on the CPU engine, and compares statuses and every byte of the output's storage.
void expect_same_as_cpu(const std::string& name, const std::vector<const host_tensor*>& tensors,
                        const std::vector<cb_kernel_arg>& scalars, tolerance tol, const std::string& what);

cb_kernel_arg int_arg(int64_t v);
cb_kernel_arg float_arg(double v);
cb_kernel_arg u64_arg(uint64_t v);

class RealGpu : public ::testing::Test {
protected:
    void SetUp() override {
        if (!gpu().skip_reason.empty()) GTEST_SKIP() << gpu().skip_reason;
    }
    kernel_driver_backend& backend() const { return *gpu().backend; }
    kd_device* device() const { return gpu().device; }
};

// The same, and the built-in kernels must be there.
class RealGpuKernels : public RealGpu {
protected:
    void SetUp() override {
        RealGpu::SetUp();
        if (!IsSkipped() && !kernel_driver_backend::has_builtin_kernels())
            GTEST_SKIP() << "built without the CUDA toolkit: no built-in GPU kernels";
    }
};

}  // namespace real_gpu
