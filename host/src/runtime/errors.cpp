#include "runtime/errors.hpp"

#include <cudabridge/core/thread_text.hpp>

namespace cudabridge::host {
namespace {

struct thread_error {
    cbError_t code = cbSuccess;
    core::thread_text message;  // safe to set during exit, after thread_locals died (thread_text.hpp)
};
thread_local thread_error last;
thread_local bool launch_failed = false;

struct error_text {
    cbError_t code;
    const char* name;
    const char* text;
};

constexpr error_text texts[] = {
    {cbSuccess, "cbSuccess", "no error"},
    {cbErrorInvalidValue, "cbErrorInvalidValue", "invalid argument"},
    {cbErrorMemoryAllocation, "cbErrorMemoryAllocation", "out of memory"},
    {cbErrorInitializationError, "cbErrorInitializationError", "initialization error"},
    {cbErrorNotSupported, "cbErrorNotSupported", "operation not supported"},
    {cbErrorInvalidDeviceFunction, "cbErrorInvalidDeviceFunction", "invalid device function"},
    {cbErrorNoDevice, "cbErrorNoDevice", "no eGPU is connected or detected"},
    {cbErrorInvalidDevice, "cbErrorInvalidDevice", "invalid device ordinal"},
    {cbErrorInvalidKernelImage, "cbErrorInvalidKernelImage", "device kernel image is invalid"},
    {cbErrorInvalidResourceHandle, "cbErrorInvalidResourceHandle", "invalid resource handle"},
    {cbErrorNotFound, "cbErrorNotFound", "named symbol not found"},
    {cbErrorNotReady, "cbErrorNotReady", "device not ready"},
    {cbErrorIllegalAddress, "cbErrorIllegalAddress", "an illegal memory access was encountered"},
    {cbErrorAssert, "cbErrorAssert", "device-side assert triggered"},
    {cbErrorLaunchTimeout, "cbErrorLaunchTimeout", "the launch timed out and was terminated"},
    {cbErrorLaunchFailure, "cbErrorLaunchFailure", "unspecified launch failure"},
    {cbErrorNotPermitted, "cbErrorNotPermitted", "operation not permitted"},
    {cbErrorTimeout, "cbErrorTimeout", "timeout"},
    {cbErrorDeviceLost, "cbErrorDeviceLost", "the eGPU was disconnected or is gone"},
    {cbErrorLinkDown, "cbErrorLinkDown", "the USB4 / Thunderbolt link is down"},
    {cbErrorDmaLimit, "cbErrorDmaLimit", "the IOMMU (DART) cannot map the request"},
    {cbErrorIntegrity, "cbErrorIntegrity", "end-to-end data integrity check failed"},
    {cbErrorThermalLimit, "cbErrorThermalLimit", "emergency stop: the GPU is over its thermal limit"},
    {cbErrorDeviceFailed, "cbErrorDeviceFailed", "the device was marked failed after repeated recovery attempts"},
    {cbErrorDeviceReset, "cbErrorDeviceReset", "the device was reset and its memory is gone"},
    {cbErrorRefused, "cbErrorRefused", "the safety policy refused the device"},
    {cbErrorUnknown, "cbErrorUnknown", "unknown error"},
};

const error_text* find(cbError_t e) noexcept {
    for (const auto& t : texts)
        if (t.code == e) return &t;
    return nullptr;
}

}  // namespace

cbError_t to_runtime_error(cb_status status) noexcept {
    switch (status) {
    case CB_OK:
        return cbSuccess;
    case CB_ERR_INVALID_ARGUMENT:
        return cbErrorInvalidValue;
    case CB_ERR_UNSUPPORTED:
        return cbErrorNotSupported;
    case CB_ERR_NOT_FOUND:
        return cbErrorNotFound;
    case CB_ERR_NO_DEVICE:
        return cbErrorNoDevice;
    case CB_ERR_DEVICE_LOST:
        return cbErrorDeviceLost;
    case CB_ERR_LINK_DOWN:
        return cbErrorLinkDown;
    case CB_ERR_TIMEOUT:
        return cbErrorTimeout;
    case CB_ERR_OUT_OF_MEMORY:
        return cbErrorMemoryAllocation;
    case CB_ERR_DMA_LIMIT:
        return cbErrorDmaLimit;
    case CB_ERR_INTEGRITY:
        return cbErrorIntegrity;
    case CB_ERR_THERMAL_LIMIT:
        return cbErrorThermalLimit;
    case CB_ERR_PERMISSION:
        return cbErrorNotPermitted;
    case CB_ERR_ABI_MISMATCH:
        return cbErrorInitializationError;
    case CB_ERR_BUSY:
        return cbErrorNotReady;
    case CB_ERR_ILLEGAL_ADDRESS:
        return cbErrorIllegalAddress;
    case CB_ERR_ASSERT:
        return cbErrorAssert;
    default:
        return cbErrorUnknown;
    }
}

bool is_sticky(cbError_t e) noexcept {
    return e == cbErrorDeviceLost || e == cbErrorLinkDown || e == cbErrorDeviceReset || e == cbErrorLaunchFailure ||
           e == cbErrorIllegalAddress || e == cbErrorAssert || e == cbErrorDeviceFailed;
}

cbError_t set_last_error(cbError_t e, const std::string& message) {
    if (e != cbSuccess) {
        last.code = e;
        last.message.set(message);
    }
    return e;
}

cbError_t take_last_error() noexcept {
    const cbError_t e = last.code;
    last.code = cbSuccess;
    return e;
}

cbError_t peek_last_error() noexcept { return last.code; }
void mark_launch_failure() noexcept { launch_failed = true; }
bool take_launch_failure() noexcept {
    const bool was = launch_failed;
    launch_failed = false;
    return was;
}
const char* last_error_message() noexcept { return last.message.c_str(); }

const char* error_name(cbError_t e) noexcept {
    const auto* t = find(e);
    return t ? t->name : "cbErrorUnrecognized";
}

const char* error_string(cbError_t e) noexcept {
    const auto* t = find(e);
    return t ? t->text : "unrecognized error code";
}

}  // namespace cudabridge::host
