// libcuda.so.1 loaded at run time: the versioned entry points, and whether a real GPU is here.
//
// Symbol resolution: every entry point is dlsym'ed by its VERSIONED export name (cuMemAlloc_v2,
// cuMemcpyHtoD_v2, ...), never the legacy unsuffixed one (cuMemAlloc is the 32-bit CUdeviceptr_v1
// ABI). We deliberately do not bootstrap through cuGetProcAddress_v2: it can only be used after
// a successful cuInit (the stub answers 34 to it), it picks an ABI by a cudaVersion number that
// would have to match the signatures declared here, and the explicit _v2 names are exported by
// every driver since CUDA 4/11. Where a newer version may be absent on older drivers
// (cuDeviceGetUuid_v2, cuEventElapsedTime_v2 from CUDA 13) the older export with the SAME
// signature is the fallback; bound_symbols() records which name each slot got.
#pragma once

#include <cudabridge/abi.h>

#include <string>
#include <vector>

#include "nvidia_driver/cuda_driver/availability.hpp"
#include "nvidia_driver/cuda_driver/bound_symbol.hpp"
#include "nvidia_driver/cuda_driver/cuda_types.hpp"
#include "nvidia_driver/cuda_driver/dynamic_library.hpp"

namespace cudabridge::nv {

// X(member, type, versioned export, fallback export with the same ABI or nullptr)
#define CB_NV_CUDA_ENTRY_POINTS(X)                                                                            \
    X(cuInit, cu::cuInit_t, "cuInit", nullptr)                                                                \
    X(cuDriverGetVersion, cu::cuDriverGetVersion_t, "cuDriverGetVersion", nullptr)                            \
    X(cuDeviceGetCount, cu::cuDeviceGetCount_t, "cuDeviceGetCount", nullptr)                                  \
    X(cuDeviceGet, cu::cuDeviceGet_t, "cuDeviceGet", nullptr)                                                 \
    X(cuDeviceGetName, cu::cuDeviceGetName_t, "cuDeviceGetName", nullptr)                                     \
    X(cuDeviceTotalMem, cu::cuDeviceTotalMem_v2_t, "cuDeviceTotalMem_v2", nullptr)                            \
    X(cuDeviceGetAttribute, cu::cuDeviceGetAttribute_t, "cuDeviceGetAttribute", nullptr)                      \
    X(cuDeviceGetUuid, cu::cuDeviceGetUuid_t, "cuDeviceGetUuid_v2", "cuDeviceGetUuid")                        \
    X(cuDevicePrimaryCtxRetain, cu::cuDevicePrimaryCtxRetain_t, "cuDevicePrimaryCtxRetain", nullptr)          \
    X(cuDevicePrimaryCtxRelease, cu::cuDevicePrimaryCtxRelease_v2_t, "cuDevicePrimaryCtxRelease_v2", nullptr) \
    X(cuCtxSetCurrent, cu::cuCtxSetCurrent_t, "cuCtxSetCurrent", nullptr)                                     \
    X(cuCtxSynchronize, cu::cuCtxSynchronize_t, "cuCtxSynchronize", nullptr)                                  \
    X(cuMemAlloc, cu::cuMemAlloc_v2_t, "cuMemAlloc_v2", nullptr)                                              \
    X(cuMemFree, cu::cuMemFree_v2_t, "cuMemFree_v2", nullptr)                                                 \
    X(cuMemcpyHtoD, cu::cuMemcpyHtoD_v2_t, "cuMemcpyHtoD_v2", nullptr)                                        \
    X(cuMemcpyDtoH, cu::cuMemcpyDtoH_v2_t, "cuMemcpyDtoH_v2", nullptr)                                        \
    X(cuMemcpyDtoD, cu::cuMemcpyDtoD_v2_t, "cuMemcpyDtoD_v2", nullptr)                                        \
    X(cuMemsetD8, cu::cuMemsetD8_v2_t, "cuMemsetD8_v2", nullptr)                                              \
    X(cuMemGetInfo, cu::cuMemGetInfo_v2_t, "cuMemGetInfo_v2", nullptr)                                        \
    X(cuStreamCreate, cu::cuStreamCreate_t, "cuStreamCreate", nullptr)                                        \
    X(cuStreamDestroy, cu::cuStreamDestroy_v2_t, "cuStreamDestroy_v2", nullptr)                               \
    X(cuStreamSynchronize, cu::cuStreamSynchronize_t, "cuStreamSynchronize", nullptr)                         \
    X(cuEventCreate, cu::cuEventCreate_t, "cuEventCreate", nullptr)                                           \
    X(cuEventDestroy, cu::cuEventDestroy_v2_t, "cuEventDestroy_v2", nullptr)                                  \
    X(cuEventRecord, cu::cuEventRecord_t, "cuEventRecord", nullptr)                                           \
    X(cuEventSynchronize, cu::cuEventSynchronize_t, "cuEventSynchronize", nullptr)                            \
    X(cuEventElapsedTime, cu::cuEventElapsedTime_t, "cuEventElapsedTime_v2", "cuEventElapsedTime")            \
    X(cuModuleLoadData, cu::cuModuleLoadData_t, "cuModuleLoadData", nullptr)                                  \
    X(cuModuleUnload, cu::cuModuleUnload_t, "cuModuleUnload", nullptr)                                        \
    X(cuModuleGetFunction, cu::cuModuleGetFunction_t, "cuModuleGetFunction", nullptr)                         \
    X(cuLaunchKernel, cu::cuLaunchKernel_t, "cuLaunchKernel", nullptr)                                        \
    X(cuGetErrorName, cu::cuGetErrorName_t, "cuGetErrorName", nullptr)                                        \
    X(cuGetErrorString, cu::cuGetErrorString_t, "cuGetErrorString", nullptr)                                  \
    X(cuDeviceGetPCIBusId, cu::cuDeviceGetPCIBusId_t, "cuDeviceGetPCIBusId", nullptr)                         \
    X(cuCtxGetDevice, cu::cuCtxGetDevice_t, "cuCtxGetDevice", nullptr)                                        \
    X(cuMemHostAlloc, cu::cuMemHostAlloc_t, "cuMemHostAlloc", nullptr)                                        \
    X(cuMemFreeHost, cu::cuMemFreeHost_t, "cuMemFreeHost", nullptr)                                           \
    X(cuMemcpyHtoDAsync, cu::cuMemcpyHtoDAsync_v2_t, "cuMemcpyHtoDAsync_v2", nullptr)                         \
    X(cuMemcpyDtoHAsync, cu::cuMemcpyDtoHAsync_v2_t, "cuMemcpyDtoHAsync_v2", nullptr)                         \
    X(cuMemcpyDtoDAsync, cu::cuMemcpyDtoDAsync_v2_t, "cuMemcpyDtoDAsync_v2", nullptr)                         \
    X(cuMemsetD8Async, cu::cuMemsetD8Async_t, "cuMemsetD8Async", nullptr)                                     \
    X(cuMemGetAddressRange, cu::cuMemGetAddressRange_v2_t, "cuMemGetAddressRange_v2", nullptr)                \
    X(cuStreamQuery, cu::cuStreamQuery_t, "cuStreamQuery", nullptr)                                           \
    X(cuEventQuery, cu::cuEventQuery_t, "cuEventQuery", nullptr)                                              \
    X(cuModuleLoadDataEx, cu::cuModuleLoadDataEx_t, "cuModuleLoadDataEx", nullptr)

// Entry points newer than the baseline driver, or that only one feature needs (pinned host
// memory, cross-stream waits: ABI 1.3): bound when exported, left null otherwise (the library
// stays usable; callers test the slot and answer CB_ERR_UNSUPPORTED). Same X signature.
#define CB_NV_CUDA_OPTIONAL_ENTRY_POINTS(X)                                                                   \
    X(cuFuncGetParamInfo, cu::cuFuncGetParamInfo_t, "cuFuncGetParamInfo", nullptr)                            \
    X(cuMemAllocAsync, cu::cuMemAllocAsync_t, "cuMemAllocAsync", nullptr)                                     \
    X(cuMemFreeAsync, cu::cuMemFreeAsync_t, "cuMemFreeAsync", nullptr)                                        \
    X(cuMemHostRegister, cu::cuMemHostRegister_v2_t, "cuMemHostRegister_v2", nullptr)                         \
    X(cuMemHostUnregister, cu::cuMemHostUnregister_t, "cuMemHostUnregister", nullptr)                         \
    X(cuStreamWaitEvent, cu::cuStreamWaitEvent_t, "cuStreamWaitEvent", nullptr)                               \
    X(cuModuleGetGlobal, cu::cuModuleGetGlobal_v2_t, "cuModuleGetGlobal_v2", nullptr)                         \
    X(cuMemAllocManaged, cu::cuMemAllocManaged_t, "cuMemAllocManaged", nullptr)                               \
    X(cuMemHostGetDevicePointer, cu::cuMemHostGetDevicePointer_v2_t, "cuMemHostGetDevicePointer_v2", nullptr) \
    X(cuLaunchCooperativeKernel, cu::cuLaunchCooperativeKernel_t, "cuLaunchCooperativeKernel", nullptr)

// The resolved table. Members are named after the API (cuMemAlloc) but hold the _v2 function.
struct cuda_api {
#define CB_NV_CUDA_MEMBER(member, type, name, fallback) type member = nullptr;
    CB_NV_CUDA_ENTRY_POINTS(CB_NV_CUDA_MEMBER)
    CB_NV_CUDA_OPTIONAL_ENTRY_POINTS(CB_NV_CUDA_MEMBER)
#undef CB_NV_CUDA_MEMBER
};

class cuda_driver {
public:
    static constexpr const char* default_library = "libcuda.so.1";

    // Loads `library` (a soname or a path), resolves the entry points, calls cuInit(0), reads the
    // driver version and device count. Never throws on a missing driver: see status().
    explicit cuda_driver(const std::string& library = default_library);

    [[nodiscard]] const availability& status() const { return availability_; }
    [[nodiscard]] bool available() const { return availability_.available; }
    // Valid for every slot that resolved; use only when available() (or in tests).
    [[nodiscard]] const cuda_api& api() const { return api_; }
    [[nodiscard]] const std::vector<bound_symbol>& bound_symbols() const { return bound_; }
    // The export name bound for an API name, "" when missing or unknown.
    [[nodiscard]] std::string bound_name(const std::string& api) const;
    [[nodiscard]] const std::string& library_path() const { return library_.path(); }
    // The CUresult cuInit(0) returned (-1 when it was never called).
    [[nodiscard]] cu::CUresult init_result() const { return init_result_; }

    // "CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", using cuGetErrorName/String when loaded.
    [[nodiscard]] std::string describe(cu::CUresult result) const;
    // cb_status for `result`; when it is an error and `message` is given, "<what>: <describe()>".
    cb_status check(cu::CUresult result, const char* what, std::string* message = nullptr) const;

private:
    void load(const std::string& library);

    dynamic_library library_;
    cuda_api api_;
    std::vector<bound_symbol> bound_;
    availability availability_;
    cu::CUresult init_result_ = -1;
};

}  // namespace cudabridge::nv
