// The fake libcuda / libnvml of tests/gpu_nvidia/cuda_driver behind a kernel-driver backend, plus
// the fake's call log ("cuMemAlloc_v2(1024);cuModuleGetFunction(cb_fill_4);...").
#pragma once

#include <cudabridge/cpp/builtin_args.hpp>
#include <dlfcn.h>

#include <cudabridge/builtin_kernels.h>

#include <string>
#include <vector>

#include "nvidia_driver/kernel_driver/kernel_driver_backend.hpp"

namespace kd_test {

inline cudabridge::nv::kernel_driver_options fake_options(const char* nvml = CB_TEST_FAKE_NVML_OK) {
    cudabridge::nv::kernel_driver_options o;
    o.cuda_library = CB_TEST_FAKE_CUDA_OK;
    o.nvml_library = nvml;
    // A real cuBLAS would run on whatever real driver it finds, not on the fake: keep it out.
    o.cublas_libraries = {"/nonexistent/cudabridge/libcublas.so"};
    return o;
}

// The fake library is already loaded by the backend: dlopen of the same path returns it.
class fake_log {
public:
    fake_log() : handle_(::dlopen(CB_TEST_FAKE_CUDA_OK, RTLD_NOW)) {
        if (handle_ != nullptr) {
            calls_ = reinterpret_cast<const char* (*)()>(::dlsym(handle_, "fake_cuda_calls"));
            reset_ = reinterpret_cast<void (*)()>(::dlsym(handle_, "fake_cuda_reset"));
        }
    }
    ~fake_log() {
        if (handle_ != nullptr) ::dlclose(handle_);
    }
    fake_log(const fake_log&) = delete;
    fake_log& operator=(const fake_log&) = delete;

    bool ok() const { return calls_ != nullptr && reset_ != nullptr; }
    std::string calls() const { return calls_ != nullptr ? calls_() : ""; }
    void reset() const {
        if (reset_ != nullptr) reset_();
    }
    bool has(const std::string& call) const { return calls().find(call) != std::string::npos; }
    // The entry points asked for since the last reset, in order.
    std::vector<std::string> functions() const {
        std::vector<std::string> names;
        const std::string log = calls(), key = "cuModuleGetFunction(";
        for (std::size_t p = log.find(key); p != std::string::npos; p = log.find(key, p + 1)) {
            std::size_t b = p + key.size(), e = log.find(')', b);
            names.push_back(log.substr(b, e - b));
        }
        return names;
    }

private:
    void* handle_ = nullptr;
    const char* (*calls_)() = nullptr;
    void (*reset_)() = nullptr;
};

// Launch arguments: the SDK's builders under the names these tests use.
inline cb_tensor_desc tensor(uint64_t ptr, cb_dtype dtype, std::initializer_list<int64_t> shape) {
    return cudabridge::sdk::contiguous_tensor(ptr, dtype, shape);
}
using cudabridge::sdk::tensor_arg;
inline cb_kernel_arg int_arg(int64_t v) { return cudabridge::sdk::int64_arg(v); }
inline cb_kernel_arg float_arg(double v) { return cudabridge::sdk::float64_arg(v); }
inline cb_kernel_arg u64_arg(uint64_t v) { return cudabridge::sdk::uint64_arg(v); }
inline cb_kernel_launch launch_of(const char* name, cb_dtype dtype, const std::vector<cb_kernel_arg>& args) {
    return cudabridge::sdk::builtin_launch(name, dtype, args);
}

}  // namespace kd_test
