#include "results.hpp"

#include "errors.hpp"

#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>

namespace cudabridge::libcuda {
namespace {

struct result_text {
    CUresult code;
    const char* name;
    const char* text;
};

// The names are CUDA's (CUDA Driver API, CUresult); the texts are this library's own.
constexpr result_text texts[] = {
    {0, "CUDA_SUCCESS", "no error"},
    {1, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {2, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {3, "CUDA_ERROR_NOT_INITIALIZED", "the driver has not been initialized (cuInit)"},
    {4, "CUDA_ERROR_DEINITIALIZED", "the driver is shutting down"},
    {5, "CUDA_ERROR_PROFILER_DISABLED", "the profiler is disabled"},
    {34, "CUDA_ERROR_STUB_LIBRARY", "a stub library was loaded instead of the driver"},
    {46, "CUDA_ERROR_DEVICE_UNAVAILABLE", "the eGPU is unavailable (lost, stopped or failed)"},
    {100, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {101, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {102, "CUDA_ERROR_DEVICE_NOT_LICENSED", "the device is not licensed"},
    {200, "CUDA_ERROR_INVALID_IMAGE", "device kernel image is invalid"},
    {201, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {202, "CUDA_ERROR_CONTEXT_ALREADY_CURRENT", "context already current"},
    {205, "CUDA_ERROR_MAP_FAILED", "mapping of buffer object failed"},
    {206, "CUDA_ERROR_UNMAP_FAILED", "unmapping of buffer object failed"},
    {207, "CUDA_ERROR_ARRAY_IS_MAPPED", "array is mapped"},
    {208, "CUDA_ERROR_ALREADY_MAPPED", "resource already mapped"},
    {209, "CUDA_ERROR_NO_BINARY_FOR_GPU", "no kernel image is available for execution on the device"},
    {210, "CUDA_ERROR_ALREADY_ACQUIRED", "resource already acquired"},
    {211, "CUDA_ERROR_NOT_MAPPED", "resource not mapped"},
    {212, "CUDA_ERROR_NOT_MAPPED_AS_ARRAY", "resource not mapped as array"},
    {213, "CUDA_ERROR_NOT_MAPPED_AS_POINTER", "resource not mapped as pointer"},
    {214, "CUDA_ERROR_ECC_UNCORRECTABLE", "data corruption detected (end-to-end check)"},
    {215, "CUDA_ERROR_UNSUPPORTED_LIMIT", "limit is not supported on this architecture"},
    {216, "CUDA_ERROR_CONTEXT_ALREADY_IN_USE", "the context is already in use"},
    {217, "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED", "peer access is not supported between these devices"},
    {218, "CUDA_ERROR_INVALID_PTX", "a PTX JIT compilation failed"},
    {219, "CUDA_ERROR_INVALID_GRAPHICS_CONTEXT", "invalid OpenGL or DirectX context"},
    {220, "CUDA_ERROR_NVLINK_UNCORRECTABLE", "uncorrectable NVLink error"},
    {221, "CUDA_ERROR_JIT_COMPILER_NOT_FOUND", "the PTX JIT compiler library was not found"},
    {222, "CUDA_ERROR_UNSUPPORTED_PTX_VERSION", "the PTX was compiled with an unsupported toolchain"},
    {223, "CUDA_ERROR_JIT_COMPILATION_DISABLED", "PTX JIT compilation is disabled"},
    {224, "CUDA_ERROR_UNSUPPORTED_EXEC_AFFINITY", "the execution affinity is not supported"},
    {225, "CUDA_ERROR_UNSUPPORTED_DEVSIDE_SYNC", "device-side synchronization is not supported"},
    {300, "CUDA_ERROR_INVALID_SOURCE", "device kernel source is invalid"},
    {301, "CUDA_ERROR_FILE_NOT_FOUND", "file not found"},
    {302, "CUDA_ERROR_SHARED_OBJECT_SYMBOL_NOT_FOUND", "a shared object symbol was not found"},
    {303, "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED", "shared object initialization failed"},
    {304, "CUDA_ERROR_OPERATING_SYSTEM", "an operating system call failed"},
    {400, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {401, "CUDA_ERROR_ILLEGAL_STATE", "the operation is not valid in the resource's state"},
    {402, "CUDA_ERROR_LOSSY_QUERY", "the query would lose information"},
    {500, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {600, "CUDA_ERROR_NOT_READY", "device not ready"},
    {700, "CUDA_ERROR_ILLEGAL_ADDRESS", "an illegal memory access was encountered"},
    {701, "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES", "too many resources requested for launch"},
    {702, "CUDA_ERROR_LAUNCH_TIMEOUT", "the launch timed out and was terminated"},
    {703, "CUDA_ERROR_LAUNCH_INCOMPATIBLE_TEXTURING", "the launch uses an incompatible texturing mode"},
    {704, "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED", "peer access is already enabled"},
    {705, "CUDA_ERROR_PEER_ACCESS_NOT_ENABLED", "peer access has not been enabled"},
    {708, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE", "the primary context is already active"},
    {709, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "the context was destroyed (a device reset dropped its memory)"},
    {710, "CUDA_ERROR_ASSERT", "device-side assert triggered"},
    {711, "CUDA_ERROR_TOO_MANY_PEERS", "too many peers"},
    {712, "CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED", "host memory already registered"},
    {713, "CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED", "host memory not registered"},
    {714, "CUDA_ERROR_HARDWARE_STACK_ERROR", "hardware stack error"},
    {715, "CUDA_ERROR_ILLEGAL_INSTRUCTION", "an illegal instruction was encountered"},
    {716, "CUDA_ERROR_MISALIGNED_ADDRESS", "misaligned address"},
    {717, "CUDA_ERROR_INVALID_ADDRESS_SPACE", "operation not supported on the address space"},
    {718, "CUDA_ERROR_INVALID_PC", "invalid program counter"},
    {719, "CUDA_ERROR_LAUNCH_FAILED", "unspecified launch failure"},
    {720, "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE", "too many blocks in cooperative launch"},
    {800, "CUDA_ERROR_NOT_PERMITTED", "operation not permitted"},
    {801, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {802, "CUDA_ERROR_SYSTEM_NOT_READY", "the system is not ready"},
    {803, "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH", "driver and kernel-mode driver versions differ"},
    {804, "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", "forward compatibility is not supported on this device"},
    {900, "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED", "operation not permitted while the stream is capturing"},
    {901, "CUDA_ERROR_STREAM_CAPTURE_INVALIDATED", "the stream capture was invalidated"},
    {902, "CUDA_ERROR_STREAM_CAPTURE_MERGE", "the capture would merge two independent captures"},
    {903, "CUDA_ERROR_STREAM_CAPTURE_UNMATCHED", "the capture was not started in this stream"},
    {904, "CUDA_ERROR_STREAM_CAPTURE_UNJOINED", "the capture forked and did not join"},
    {905, "CUDA_ERROR_STREAM_CAPTURE_ISOLATION", "the capture would cross into another stream"},
    {906, "CUDA_ERROR_STREAM_CAPTURE_IMPLICIT", "implicit dependency on the legacy stream while capturing"},
    {907, "CUDA_ERROR_CAPTURED_EVENT", "operation not permitted on an event of a capturing stream"},
    {908, "CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD", "the capture was ended in another thread"},
    {909, "CUDA_ERROR_TIMEOUT", "timed out"},
    {910, "CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE", "the graph update was not performed"},
    {999, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

const result_text* find(CUresult e) {
    for (const auto& t : texts)
        if (t.code == e) return &t;
    return nullptr;
}

bool verbose() {
    static const bool on = [] {
        const char* v = secure_getenv("CUDABRIDGE_CUDART_VERBOSE");  // ignored by a set-uid program
        return v && *v && *v != '0';
    }();
    return on;
}

}  // namespace

CUresult to_driver(cudaError_t e) {
    const int code = static_cast<int>(e);
    // The runtime's codes below 100 are its own (configuration, pitch, symbol, pointer
    // kinds...), except the few the driver shares; each is a bad argument to the driver.
    if (code == 0 || code == 1 || code == 2 || code == 3 || code == 46) return code;
    if (code < 100) return CUDA_ERROR_INVALID_VALUE;
    return code;  // 100 and up: the same numbers in both APIs
}

CUresult to_driver(cbError_t e) { return to_driver(cudabridge::cudart::to_cuda(e)); }

CUresult fail(CUresult e, const std::string& message) {
    if (e != CUDA_SUCCESS && verbose()) {
        const char* name = result_name(e);
        std::fprintf(stderr, "cudabridge libcuda: %s: %s\n", name ? name : "error", message.c_str());
    }
    return e;
}

CUresult from_runtime(cudaError_t e) { return to_driver(e); }

CUresult from_runtime(cbError_t e) {
    if (e != cbSuccess && verbose()) std::fprintf(stderr, "cudabridge libcuda: %s\n", cbGetLastErrorMessage());
    return to_driver(e);
}

CUresult not_supported(const char* function) {
    static std::mutex mutex;
    static std::set<std::string> told;
    {
        std::lock_guard lock(mutex);
        if (told.insert(function).second)
            std::fprintf(stderr, "cudabridge libcuda: %s is not supported (CUDA_ERROR_NOT_SUPPORTED)\n", function);
    }
    return CUDA_ERROR_NOT_SUPPORTED;
}

const char* result_name(CUresult e) {
    const result_text* t = find(e);
    return t ? t->name : nullptr;
}

const char* result_string(CUresult e) {
    const result_text* t = find(e);
    return t ? t->text : nullptr;
}

}  // namespace cudabridge::libcuda
