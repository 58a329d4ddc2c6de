// The CUDA launcher of the built-in kernels: a builtin_call (parsed once by parse_builtin, the
// parser every backend shares) becomes launches of the embedded fatbin's entry points on one
// stream, with the CPU engine's plan: mixed-dtype operands converted to the compute dtype first,
// broadcasting through strides, reductions over contiguous data, float matmul through cuBLAS.
// Work is only queued; the caller synchronizes when the call was synchronous.
#pragma once

#include <functional>

#include "nvidia_driver/cuda_driver/cublas_library.hpp"
#include "nvidia_driver/cuda_driver/cuda_driver.hpp"
#include "common/errors/fail.hpp"
#include "common/launch/builtin_call.hpp"

namespace cudabridge::nv {

struct gpu_launch_target {
    const cuda_driver* driver = nullptr;
    cu::CUstream stream = nullptr;
    int sm_count = 0;  // sizes grids; 0 when unknown
    // Resolves one of the fatbin's entry points (names: cuda_kernels/kernel_abi.hpp).
    std::function<cb_status(const std::string& name, cu::CUfunction& out, std::string& error)> function;
    // float32/float64 matmul goes to cuBLAS when both are set, else to the simple kernel.
    const cublas_library* cublas = nullptr;
    cublas::cublasHandle_t cublas_handle = nullptr;
};

cb_status run_builtin_on_gpu(const builtin_call& call, const gpu_launch_target& target, std::string& error);

// The fatbin entry point a kernel of this kind uses (for tests and listings).
std::string binary_kernel_name(kernels::binary_op op, cb_dtype compute);
// Whether the fatbin has kernels for dtype d: float16 and complex compute on the simulated GPU only,
// so far (run_builtin_on_gpu answers CB_ERR_UNSUPPORTED for a call with such an operand).
constexpr bool fatbin_has_dtype(cb_dtype d) { return d != CB_DTYPE_FLOAT16 && !kernels::is_complex_dtype(d); }
std::string cast_kernel_name(cb_dtype to, cb_dtype from);

}  // namespace cudabridge::nv
