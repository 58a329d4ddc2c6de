#include "nvidia_driver/cuda_driver/cuda_result.hpp"

namespace cudabridge::nv {

const char* cuda_result_name(cu::CUresult result) {
    switch (result) {
    case 0:
        return "CUDA_SUCCESS";
    case 1:
        return "CUDA_ERROR_INVALID_VALUE";
    case 2:
        return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3:
        return "CUDA_ERROR_NOT_INITIALIZED";
    case 4:
        return "CUDA_ERROR_DEINITIALIZED";
    case 5:
        return "CUDA_ERROR_PROFILER_DISABLED";
    case 6:
        return "CUDA_ERROR_PROFILER_NOT_INITIALIZED";
    case 7:
        return "CUDA_ERROR_PROFILER_ALREADY_STARTED";
    case 8:
        return "CUDA_ERROR_PROFILER_ALREADY_STOPPED";
    case 34:
        return "CUDA_ERROR_STUB_LIBRARY";
    case 36:
        return "CUDA_ERROR_CALL_REQUIRES_NEWER_DRIVER";
    case 46:
        return "CUDA_ERROR_DEVICE_UNAVAILABLE";
    case 100:
        return "CUDA_ERROR_NO_DEVICE";
    case 101:
        return "CUDA_ERROR_INVALID_DEVICE";
    case 102:
        return "CUDA_ERROR_DEVICE_NOT_LICENSED";
    case 200:
        return "CUDA_ERROR_INVALID_IMAGE";
    case 201:
        return "CUDA_ERROR_INVALID_CONTEXT";
    case 202:
        return "CUDA_ERROR_CONTEXT_ALREADY_CURRENT";
    case 205:
        return "CUDA_ERROR_MAP_FAILED";
    case 206:
        return "CUDA_ERROR_UNMAP_FAILED";
    case 209:
        return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case 214:
        return "CUDA_ERROR_ECC_UNCORRECTABLE";
    case 215:
        return "CUDA_ERROR_UNSUPPORTED_LIMIT";
    case 216:
        return "CUDA_ERROR_CONTEXT_ALREADY_IN_USE";
    case 217:
        return "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED";
    case 218:
        return "CUDA_ERROR_INVALID_PTX";
    case 220:
        return "CUDA_ERROR_NVLINK_UNCORRECTABLE";
    case 221:
        return "CUDA_ERROR_JIT_COMPILER_NOT_FOUND";
    case 222:
        return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case 223:
        return "CUDA_ERROR_JIT_COMPILATION_DISABLED";
    case 300:
        return "CUDA_ERROR_INVALID_SOURCE";
    case 301:
        return "CUDA_ERROR_FILE_NOT_FOUND";
    case 302:
        return "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND";
    case 303:
        return "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED";
    case 304:
        return "CUDA_ERROR_OPERATING_SYSTEM";
    case 400:
        return "CUDA_ERROR_INVALID_HANDLE";
    case 401:
        return "CUDA_ERROR_ILLEGAL_STATE";
    case 500:
        return "CUDA_ERROR_NOT_FOUND";
    case 600:
        return "CUDA_ERROR_NOT_READY";
    case 700:
        return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case 701:
        return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES";
    case 702:
        return "CUDA_ERROR_LAUNCH_TIMEOUT";
    case 708:
        return "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE";
    case 709:
        return "CUDA_ERROR_CONTEXT_IS_DESTROYED";
    case 710:
        return "CUDA_ERROR_ASSERT";
    case 712:
        return "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED";
    case 713:
        return "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED";
    case 714:
        return "CUDA_ERROR_HARDWARE_STACK_ERROR";
    case 715:
        return "CUDA_ERROR_ILLEGAL_INSTRUCTION";
    case 716:
        return "CUDA_ERROR_MISALIGNED_ADDRESS";
    case 717:
        return "CUDA_ERROR_INVALID_ADDRESS_SPACE";
    case 718:
        return "CUDA_ERROR_INVALID_PC";
    case 719:
        return "CUDA_ERROR_LAUNCH_FAILED";
    case 720:
        return "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE";
    case 800:
        return "CUDA_ERROR_NOT_PERMITTED";
    case 801:
        return "CUDA_ERROR_NOT_SUPPORTED";
    case 802:
        return "CUDA_ERROR_SYSTEM_NOT_READY";
    case 803:
        return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case 804:
        return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    case 909:
        return "CUDA_ERROR_TIMEOUT";
    case 999:
        return "CUDA_ERROR_UNKNOWN";
    default:
        return nullptr;
    }
}

cb_status cuda_to_status(cu::CUresult result) {
    switch (result) {
    case 0:
        return CB_OK;
    case 1:    // INVALID_VALUE
    case 101:  // INVALID_DEVICE
    case 200:  // INVALID_IMAGE
    case 201:  // INVALID_CONTEXT
    case 218:  // INVALID_PTX
    case 300:  // INVALID_SOURCE
    case 400:  // INVALID_HANDLE
    case 716:  // MISALIGNED_ADDRESS
    case 717:  // INVALID_ADDRESS_SPACE
    case 712:  // HOST_MEMORY_ALREADY_REGISTERED (an overlapping host_register)
    case 713:  // HOST_MEMORY_NOT_REGISTERED (host_unregister of an unknown pointer)
        return CB_ERR_INVALID_ARGUMENT;
    case 2:    // OUT_OF_MEMORY
    case 701:  // LAUNCH_OUT_OF_RESOURCES
        return CB_ERR_OUT_OF_MEMORY;
    case 34:   // STUB_LIBRARY: the toolkit stub, not a driver
    case 100:  // NO_DEVICE
    case 802:  // SYSTEM_NOT_READY
        return CB_ERR_NO_DEVICE;
    case 3:    // NOT_INITIALIZED
    case 4:    // DEINITIALIZED
    case 709:  // CONTEXT_IS_DESTROYED
    case 700:  // ILLEGAL_ADDRESS: the context is unusable afterwards
    case 714:  // HARDWARE_STACK_ERROR
    case 715:  // ILLEGAL_INSTRUCTION
    case 718:  // INVALID_PC
    case 719:  // LAUNCH_FAILED
    case 710:  // ASSERT
        return CB_ERR_DEVICE_LOST;
    case 214:  // ECC_UNCORRECTABLE
    case 220:  // NVLINK_UNCORRECTABLE
        return CB_ERR_INTEGRITY;
    case 36:   // CALL_REQUIRES_NEWER_DRIVER
    case 209:  // NO_BINARY_FOR_GPU
    case 215:  // UNSUPPORTED_LIMIT
    case 217:  // PEER_ACCESS_UNSUPPORTED
    case 221:  // JIT_COMPILER_NOT_FOUND
    case 222:  // UNSUPPORTED_PTX_VERSION
    case 223:  // JIT_COMPILATION_DISABLED
    case 801:  // NOT_SUPPORTED
    case 804:  // COMPAT_NOT_SUPPORTED_ON_DEVICE
        return CB_ERR_UNSUPPORTED;
    case 803:  // SYSTEM_DRIVER_MISMATCH
        return CB_ERR_ABI_MISMATCH;
    case 46:   // DEVICE_UNAVAILABLE (exclusive / prohibited compute mode)
    case 216:  // CONTEXT_ALREADY_IN_USE
    case 600:  // NOT_READY
    case 708:  // PRIMARY_CONTEXT_ACTIVE
        return CB_ERR_BUSY;
    case 301:  // FILE_NOT_FOUND
    case 302:  // SHARED_OBJECT_SYMBOL_NOT_FOUND
    case 500:  // NOT_FOUND
        return CB_ERR_NOT_FOUND;
    case 800:  // NOT_PERMITTED
        return CB_ERR_PERMISSION;
    case 702:  // LAUNCH_TIMEOUT
    case 909:  // TIMEOUT
        return CB_ERR_TIMEOUT;
    default:
        return CB_ERR_INTERNAL;
    }
}

std::string cuda_result_label(cu::CUresult result) {
    const char* name = cuda_result_name(result);
    if (name == nullptr) return "CUresult " + std::to_string(result);
    return std::string(name) + " (" + std::to_string(result) + ")";
}

}  // namespace cudabridge::nv
