// Internal: what the backend's opaque handles hold. A device owns its streams, events and
// modules; the backend's registry owns the devices and knows which handles are live.
#pragma once

#include <cstdint>
#include <mutex>
#include <string>
#include <unordered_map>

#include <cudabridge/gpu.h>

#include "nvidia_driver/cuda_driver/cublas_library.hpp"
#include "nvidia_driver/cuda_driver/cuda_types.hpp"

namespace cudabridge::nv {

// CUfunctions looked up by name once, per module.
struct function_cache {
    std::mutex mutex;
    std::unordered_map<std::string, cu::CUfunction> functions;
};

struct kd_device {
    int ordinal = -1;
    cu::CUdevice device = 0;
    cu::CUcontext context = nullptr;  // the primary context, retained by open()
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;

    int nvml_index = -1;  // NVML's index of this GPU (matched by UUID / PCI address), -1: none
    std::string nvml_reason;

    cu::CUmodule builtins = nullptr;    // the embedded fatbin, loaded at open
    cb_status builtins_status = CB_OK;  // why builtins is null: the code and its message
    std::string builtins_error;
    function_cache builtin_functions;

    std::mutex mutex;  // guards what follows
    bool cublas_tried = false;
    cublas::cublasHandle_t cublas = nullptr;
    std::string cublas_error;   // why cublas is null (CB_ERR_UNSUPPORTED)
    cb_gpu_settings applied{};  // what this process set: NVML cannot read locked clocks back
    uint64_t heartbeats = 0;
};

struct kd_stream {
    kd_device* device = nullptr;
    cu::CUstream stream = nullptr;
};

struct kd_event {
    kd_device* device = nullptr;
    cu::CUevent event = nullptr;
};

struct kd_module {
    kd_device* device = nullptr;
    cu::CUmodule module = nullptr;
    function_cache functions;
};

}  // namespace cudabridge::nv
