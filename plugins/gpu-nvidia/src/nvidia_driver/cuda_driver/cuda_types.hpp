// The few CUDA driver API types, codes and function signatures CudaBridge uses, declared here
// (after cuda.h of CUDA 13.0) so the loader builds without the toolkit and never links libcuda.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudabridge::nv::cu {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;  // CUdeviceptr_v2: 64-bit (the _v2 ABI)
using CUdevice_attribute = int;
using CUcontext = struct CUctx_st*;
using CUmodule = struct CUmod_st*;
using CUfunction = struct CUfunc_st*;
using CUstream = struct CUstream_st*;
using CUevent = struct CUevent_st*;
using CUjit_option = int;  // an enum in cuda.h: int-sized
struct CUuuid {
    char bytes[16];
};

// CUresult values (cuda.h 13.0).
enum : CUresult {
    CUDA_SUCCESS = 0,
    CUDA_ERROR_INVALID_VALUE = 1,
    CUDA_ERROR_OUT_OF_MEMORY = 2,
    CUDA_ERROR_NOT_INITIALIZED = 3,
    CUDA_ERROR_DEINITIALIZED = 4,
    CUDA_ERROR_STUB_LIBRARY = 34,
    CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER = 36,
    CUDA_ERROR_DEVICE_UNAVAILABLE = 46,
    CUDA_ERROR_NO_DEVICE = 100,
    CUDA_ERROR_INVALID_DEVICE = 101,
    CUDA_ERROR_INVALID_IMAGE = 200,
    CUDA_ERROR_INVALID_CONTEXT = 201,
    CUDA_ERROR_NO_BINARY_FOR_GPU = 209,
    CUDA_ERROR_ECC_UNCORRECTABLE = 214,
    CUDA_ERROR_INVALID_PTX = 218,
    CUDA_ERROR_UNSUPPORTED_PTX_VERSION = 222,
    CUDA_ERROR_INVALID_HANDLE = 400,
    CUDA_ERROR_NOT_FOUND = 500,
    CUDA_ERROR_NOT_READY = 600,
    CUDA_ERROR_ILLEGAL_ADDRESS = 700,
    CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES = 701,
    CUDA_ERROR_LAUNCH_TIMEOUT = 702,
    CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED = 712,
    CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED = 713,
    CUDA_ERROR_LAUNCH_FAILED = 719,
    CUDA_ERROR_NOT_PERMITTED = 800,
    CUDA_ERROR_NOT_SUPPORTED = 801,
    CUDA_ERROR_SYSTEM_NOT_READY = 802,
    CUDA_ERROR_SYSTEM_DRIVER_MISMATCH = 803,
    CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE = 804,
    CUDA_ERROR_TIMEOUT = 909,
    CUDA_ERROR_UNKNOWN = 999
};

// Flags and JIT options (cuda.h 13.0).
enum : unsigned int { CU_STREAM_DEFAULT = 0x0, CU_STREAM_NON_BLOCKING = 0x1 };
enum : unsigned int { CU_EVENT_DEFAULT = 0x0, CU_EVENT_DISABLE_TIMING = 0x2 };
enum : unsigned int { CU_MEMHOSTALLOC_PORTABLE = 0x01 };
enum : unsigned int { CU_MEMHOSTREGISTER_PORTABLE = 0x01, CU_MEMHOSTREGISTER_DEVICEMAP = 0x02 };
enum : unsigned int { CU_MEM_ATTACH_GLOBAL = 0x1 };
enum : CUjit_option {
    CU_JIT_INFO_LOG_BUFFER = 3,
    CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES = 4,
    CU_JIT_ERROR_LOG_BUFFER = 5,
    CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES = 6
};

// CUdevice_attribute values used by the backend.
enum : CUdevice_attribute {
    CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK = 1,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X = 2,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y = 3,
    CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z = 4,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X = 5,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y = 6,
    CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z = 7,
    CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK = 8,
    CU_DEVICE_ATTRIBUTE_WARP_SIZE = 10,
    CU_DEVICE_ATTRIBUTE_CLOCK_RATE = 13,  // kHz
    CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT = 16,
    CU_DEVICE_ATTRIBUTE_INTEGRATED = 18,
    CU_DEVICE_ATTRIBUTE_PCI_BUS_ID = 33,
    CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID = 34,
    CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE = 36,  // kHz
    CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH = 37,
    CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE = 38,
    CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID = 50,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75,
    CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR = 76
};

// Function signatures, exactly as cuda.h declares the versioned entry points.
extern "C" {
using cuInit_t = CUresult (*)(unsigned int flags);
using cuDriverGetVersion_t = CUresult (*)(int* version);
using cuDeviceGetCount_t = CUresult (*)(int* count);
using cuDeviceGet_t = CUresult (*)(CUdevice* device, int ordinal);
using cuDeviceGetName_t = CUresult (*)(char* name, int len, CUdevice dev);
using cuDeviceTotalMem_v2_t = CUresult (*)(std::size_t* bytes, CUdevice dev);
using cuDeviceGetAttribute_t = CUresult (*)(int* pi, CUdevice_attribute attrib, CUdevice dev);
using cuDeviceGetUuid_t = CUresult (*)(CUuuid* uuid, CUdevice dev);
using cuDevicePrimaryCtxRetain_t = CUresult (*)(CUcontext* pctx, CUdevice dev);
using cuDevicePrimaryCtxRelease_v2_t = CUresult (*)(CUdevice dev);
using cuCtxSetCurrent_t = CUresult (*)(CUcontext ctx);
using cuCtxSynchronize_t = CUresult (*)();
using cuMemAlloc_v2_t = CUresult (*)(CUdeviceptr* dptr, std::size_t bytesize);
using cuMemFree_v2_t = CUresult (*)(CUdeviceptr dptr);
using cuMemcpyHtoD_v2_t = CUresult (*)(CUdeviceptr dst, const void* src, std::size_t bytes);
using cuMemcpyDtoH_v2_t = CUresult (*)(void* dst, CUdeviceptr src, std::size_t bytes);
using cuMemcpyDtoD_v2_t = CUresult (*)(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes);
using cuMemsetD8_v2_t = CUresult (*)(CUdeviceptr dst, unsigned char value, std::size_t n);
using cuMemGetInfo_v2_t = CUresult (*)(std::size_t* free, std::size_t* total);
using cuStreamCreate_t = CUresult (*)(CUstream* stream, unsigned int flags);
using cuStreamDestroy_v2_t = CUresult (*)(CUstream stream);
using cuStreamSynchronize_t = CUresult (*)(CUstream stream);
using cuEventCreate_t = CUresult (*)(CUevent* event, unsigned int flags);
using cuEventDestroy_v2_t = CUresult (*)(CUevent event);
using cuEventRecord_t = CUresult (*)(CUevent event, CUstream stream);
using cuEventSynchronize_t = CUresult (*)(CUevent event);
using cuEventElapsedTime_t = CUresult (*)(float* ms, CUevent start, CUevent end);
using cuModuleLoadData_t = CUresult (*)(CUmodule* module, const void* image);
using cuModuleUnload_t = CUresult (*)(CUmodule module);
using cuModuleGetGlobal_v2_t = CUresult (*)(CUdeviceptr* dptr, std::size_t* bytes, CUmodule module, const char* name);
using cuModuleGetFunction_t = CUresult (*)(CUfunction* fn, CUmodule module, const char* name);
using cuLaunchKernel_t = CUresult (*)(CUfunction f, unsigned int gridX, unsigned int gridY, unsigned int gridZ,
                                      unsigned int blockX, unsigned int blockY, unsigned int blockZ,
                                      unsigned int sharedMemBytes, CUstream stream, void** kernelParams, void** extra);
using cuDeviceGetPCIBusId_t = CUresult (*)(char* pciBusId, int len, CUdevice dev);
using cuCtxGetDevice_t = CUresult (*)(CUdevice* device);
using cuMemHostAlloc_t = CUresult (*)(void** pp, std::size_t bytesize, unsigned int flags);
using cuMemFreeHost_t = CUresult (*)(void* p);
using cuMemAllocManaged_t = CUresult (*)(CUdeviceptr* dptr, std::size_t bytesize, unsigned int flags);
using cuMemHostGetDevicePointer_v2_t = CUresult (*)(CUdeviceptr* pdptr, void* p, unsigned int flags);
using cuMemcpyHtoDAsync_v2_t = CUresult (*)(CUdeviceptr dst, const void* src, std::size_t bytes, CUstream stream);
using cuMemcpyDtoHAsync_v2_t = CUresult (*)(void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream);
using cuMemcpyDtoDAsync_v2_t = CUresult (*)(CUdeviceptr dst, CUdeviceptr src, std::size_t bytes, CUstream stream);
using cuMemsetD8Async_t = CUresult (*)(CUdeviceptr dst, unsigned char value, std::size_t n, CUstream stream);
using cuMemGetAddressRange_v2_t = CUresult (*)(CUdeviceptr* base, std::size_t* size, CUdeviceptr dptr);
using cuStreamQuery_t = CUresult (*)(CUstream stream);
using cuEventQuery_t = CUresult (*)(CUevent event);
using cuModuleLoadDataEx_t = CUresult (*)(CUmodule* module, const void* image, unsigned int numOptions,
                                          CUjit_option* options, void** optionValues);
// Newer than the baseline driver: optional (CUDA 12.4 / 11.2).
using cuFuncGetParamInfo_t = CUresult (*)(CUfunction func, std::size_t paramIndex, std::size_t* paramOffset,
                                          std::size_t* paramSize);
using cuMemAllocAsync_t = CUresult (*)(CUdeviceptr* dptr, std::size_t bytesize, CUstream stream);
using cuLaunchCooperativeKernel_t = CUresult (*)(CUfunction f, unsigned int gridX, unsigned int gridY,
                                                 unsigned int gridZ, unsigned int blockX, unsigned int blockY,
                                                 unsigned int blockZ, unsigned int sharedMemBytes, CUstream stream,
                                                 void** kernelParams);
using cuMemFreeAsync_t = CUresult (*)(CUdeviceptr dptr, CUstream stream);
// Pinned host memory and cross-stream waits (bound when exported; every driver since CUDA 6.5 has
// them, but a missing one only disables its call).
using cuMemHostRegister_v2_t = CUresult (*)(void* p, std::size_t bytesize, unsigned int flags);
using cuMemHostUnregister_t = CUresult (*)(void* p);
using cuStreamWaitEvent_t = CUresult (*)(CUstream stream, CUevent event, unsigned int flags);
using cuGetErrorName_t = CUresult (*)(CUresult error, const char** name);
using cuGetErrorString_t = CUresult (*)(CUresult error, const char** text);
}

}  // namespace cudabridge::nv::cu
