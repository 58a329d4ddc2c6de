#include "errors.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <set>
#include <string>

namespace cudabridge::cudart {
namespace {

thread_local cudaError_t last_error = cudaSuccess;
// An error that leaves the device unusable: every thread's cudaGetLastError answers it until
// cudaDeviceReset, as CUDA's sticky errors do.
std::atomic<cudaError_t> sticky{cudaSuccess};

bool is_sticky(cudaError_t e) {
    return e == cudaErrorIllegalAddress || e == cudaErrorAssert || e == cudaErrorLaunchFailure ||
           e == cudaErrorDevicesUnavailable || e == cudaErrorContextIsDestroyed;
}

struct error_text {
    cudaError_t code;
    const char* name;
    const char* text;
};

// The names are CUDA's enum names; the texts are this library's own short descriptions.
constexpr error_text texts[] = {
    {cudaSuccess, "cudaSuccess", "no error"},
    {cudaErrorInvalidValue, "cudaErrorInvalidValue", "invalid argument"},
    {cudaErrorMemoryAllocation, "cudaErrorMemoryAllocation", "out of memory"},
    {cudaErrorInitializationError, "cudaErrorInitializationError", "initialization error"},
    {cudaErrorCudartUnloading, "cudaErrorCudartUnloading", "the runtime is shutting down"},
    {cudaErrorInvalidConfiguration, "cudaErrorInvalidConfiguration", "invalid launch configuration"},
    {cudaErrorInvalidPitchValue, "cudaErrorInvalidPitchValue", "invalid pitch"},
    {cudaErrorInvalidSymbol, "cudaErrorInvalidSymbol", "invalid device symbol"},
    {cudaErrorInvalidHostPointer, "cudaErrorInvalidHostPointer", "invalid host pointer"},
    {cudaErrorInvalidDevicePointer, "cudaErrorInvalidDevicePointer", "invalid device pointer"},
    {cudaErrorInvalidMemcpyDirection, "cudaErrorInvalidMemcpyDirection", "invalid copy direction"},
    {cudaErrorMissingConfiguration, "cudaErrorMissingConfiguration", "launch without a configuration"},
    {cudaErrorDevicesUnavailable, "cudaErrorDevicesUnavailable", "the eGPU is unavailable (lost, stopped or failed)"},
    {cudaErrorInvalidDeviceFunction, "cudaErrorInvalidDeviceFunction", "invalid device function"},
    {cudaErrorNoDevice, "cudaErrorNoDevice", "no CUDA-capable device is detected"},
    {cudaErrorInvalidDevice, "cudaErrorInvalidDevice", "invalid device ordinal"},
    {cudaErrorInvalidKernelImage, "cudaErrorInvalidKernelImage", "device kernel image is invalid"},
    {cudaErrorNoKernelImageForDevice, "cudaErrorNoKernelImageForDevice", "no kernel image for the device"},
    {cudaErrorECCUncorrectable, "cudaErrorECCUncorrectable", "data corruption detected (end-to-end check)"},
    {cudaErrorUnsupportedLimit, "cudaErrorUnsupportedLimit", "limit is not supported on this architecture"},
    {cudaErrorPeerAccessUnsupported, "cudaErrorPeerAccessUnsupported",
     "peer access is not supported between these devices"},
    {cudaErrorPeerAccessNotEnabled, "cudaErrorPeerAccessNotEnabled", "peer access has not been enabled"},
    {cudaErrorInvalidPtx, "cudaErrorInvalidPtx", "a PTX JIT compilation failed"},
    {cudaErrorInvalidResourceHandle, "cudaErrorInvalidResourceHandle", "invalid resource handle"},
    {cudaErrorSymbolNotFound, "cudaErrorSymbolNotFound", "named symbol not found"},
    {cudaErrorNotReady, "cudaErrorNotReady", "device not ready"},
    {cudaErrorIllegalAddress, "cudaErrorIllegalAddress", "an illegal memory access was encountered"},
    {cudaErrorAssert, "cudaErrorAssert", "device-side assert triggered"},
    {cudaErrorLaunchOutOfResources, "cudaErrorLaunchOutOfResources", "too many resources requested for launch"},
    {cudaErrorLaunchTimeout, "cudaErrorLaunchTimeout", "the launch timed out"},
    {cudaErrorContextIsDestroyed, "cudaErrorContextIsDestroyed", "the device was reset and its memory is gone"},
    {cudaErrorHostMemoryAlreadyRegistered, "cudaErrorHostMemoryAlreadyRegistered", "host memory already registered"},
    {cudaErrorHostMemoryNotRegistered, "cudaErrorHostMemoryNotRegistered", "host memory not registered"},
    {cudaErrorLaunchFailure, "cudaErrorLaunchFailure", "unspecified launch failure"},
    {cudaErrorCooperativeLaunchTooLarge, "cudaErrorCooperativeLaunchTooLarge",
     "too many blocks in cooperative launch"},
    {cudaErrorNotPermitted, "cudaErrorNotPermitted", "operation not permitted"},
    {cudaErrorNotSupported, "cudaErrorNotSupported", "operation not supported"},
    {cudaErrorTimeout, "cudaErrorTimeout", "timed out"},
    {cudaErrorUnknown, "cudaErrorUnknown", "unknown error"},
};

const error_text* find(cudaError_t e) {
    for (const auto& t : texts)
        if (t.code == e) return &t;
    return nullptr;
}

}  // namespace

cudaError_t to_cuda(cbError_t e) {
    switch (e) {
    case cbErrorDeviceLost:
    case cbErrorLinkDown:
    case cbErrorThermalLimit:
    case cbErrorDeviceFailed:
    case cbErrorRefused:
        return cudaErrorDevicesUnavailable;
    case cbErrorDmaLimit:
        return cudaErrorMemoryAllocation;
    case cbErrorIntegrity:
        return cudaErrorECCUncorrectable;
    case cbErrorDeviceReset:
        return cudaErrorContextIsDestroyed;
    default:
        // Every other cbError_t value is CUDA's own (cudabridge.h).
        return static_cast<cudaError_t>(e);
    }
}

cudaError_t record(cudaError_t e) {
    if (e != cudaSuccess) last_error = e;
    if (is_sticky(e)) sticky = e;
    return e;
}

void clear_errors_after_reset() {
    sticky = cudaSuccess;
    last_error = cudaSuccess;
}

// CUDA says why only through the code; CUDABRIDGE_CUDART_VERBOSE=1 also prints the reason.
bool verbose() {
    static const bool on = [] {
        const char* v = secure_getenv("CUDABRIDGE_CUDART_VERBOSE");  // ignored by a set-uid program
        return v && *v && *v != '0';
    }();
    return on;
}

cudaError_t fail(cudaError_t e, const char* message) {
    if (verbose()) std::fprintf(stderr, "cudabridge cudart: %s: %s\n", error_name(e), message);
    return record(e);
}

cudaError_t record(cbError_t e) {
    if (e != cbSuccess && verbose()) std::fprintf(stderr, "cudabridge cudart: %s\n", cbGetLastErrorMessage());
    return record(to_cuda(e));
}

// "Not ready" answers a query; CUDA never reports it as a last error.
cudaError_t error_below(cbError_t e) { return e == cbErrorNotReady ? cudaSuccess : to_cuda(e); }

cudaError_t take_last_error() {
    // The runtime underneath keeps its own (with the sticky ones): read and reset both.
    const cudaError_t below = error_below(cbGetLastError());
    const cudaError_t mine = last_error;
    last_error = cudaSuccess;
    if (const cudaError_t s = sticky.load(); s != cudaSuccess) return s;
    return mine != cudaSuccess ? mine : below;
}

cudaError_t peek_last_error() {
    if (const cudaError_t s = sticky.load(); s != cudaSuccess) return s;
    return last_error != cudaSuccess ? last_error : error_below(cbPeekAtLastError());
}

cudaError_t not_supported(const char* function) {
    static std::mutex mutex;
    static std::set<std::string> told;
    {
        std::lock_guard lock(mutex);
        if (told.insert(function).second)
            std::fprintf(stderr, "cudabridge cudart: %s is not supported; it returns cudaErrorNotSupported\n",
                         function);
    }
    return record(cudaErrorNotSupported);
}

const char* error_name(cudaError_t e) {
    const error_text* t = find(e);
    return t ? t->name : "cudaErrorUnknown";
}

const char* error_string(cudaError_t e) {
    const error_text* t = find(e);
    return t ? t->text : "unrecognized error code";
}

}  // namespace cudabridge::cudart
