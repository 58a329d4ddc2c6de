// Building launch_builtin calls from C++ (builtin_kernels.h): a contiguous tensor descriptor,
// one argument per tensor or scalar, and the launch record. Header-only, for hosts, tests and
// benchmarks; the argument vector must outlive the launch call, and each descriptor the argument
// that points at it.
#ifndef CUDABRIDGE_CPP_BUILTIN_ARGS_HPP
#define CUDABRIDGE_CPP_BUILTIN_ARGS_HPP

#include <cudabridge/builtin_kernels.h>

#include <cstdint>
#include <vector>

namespace cudabridge::sdk {

// Row-major (C-order) strides for `shape`; an empty shape is a 0-d scalar.
inline cb_tensor_desc contiguous_tensor(uint64_t device_ptr, cb_dtype dtype, const std::vector<int64_t>& shape) {
    cb_tensor_desc d{};
    d.device_ptr = device_ptr;
    d.dtype = dtype;
    d.ndim = static_cast<int32_t>(shape.size());
    int64_t stride = 1;
    for (int i = d.ndim - 1; i >= 0; --i) {
        d.shape[i] = shape[static_cast<size_t>(i)];
        d.strides[i] = stride;
        stride *= d.shape[i];
    }
    return d;
}

inline cb_kernel_arg tensor_arg(const cb_tensor_desc& d) {
    cb_kernel_arg a{};
    a.type = CB_ARG_BYTES;
    a.size = sizeof d;
    a.value.bytes = &d;
    return a;
}

// A device pointer, as a user kernel (PTX, host kernels) takes it.
inline cb_kernel_arg device_ptr_arg(uint64_t device_ptr) {
    cb_kernel_arg a{};
    a.type = CB_ARG_DEVICE_PTR;
    a.value.device_ptr = device_ptr;
    return a;
}

inline cb_kernel_arg int64_arg(int64_t v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_INT64;
    a.value.i64 = v;
    return a;
}

inline cb_kernel_arg uint64_arg(uint64_t v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_UINT64;
    a.value.u64 = v;
    return a;
}

inline cb_kernel_arg float64_arg(double v) {
    cb_kernel_arg a{};
    a.type = CB_ARG_FLOAT64;
    a.value.f64 = v;
    return a;
}

// grid and block zero: built-ins choose their own.
inline cb_kernel_launch builtin_launch(const char* name, cb_dtype dtype, const std::vector<cb_kernel_arg>& args) {
    cb_kernel_launch l{};
    l.struct_size = sizeof l;
    l.name = name;
    l.dtype = dtype;
    l.args = args.data();
    l.arg_count = args.size();
    return l;
}

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_BUILTIN_ARGS_HPP
