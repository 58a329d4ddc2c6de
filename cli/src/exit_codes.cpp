#include "exit_codes.hpp"

#include <cudabridge.h>
#include <cudabridge/host/device.hpp>

namespace cudabridge::cli {

exit_code exit_code_for(cb_status status) noexcept {
    switch (status) {
    case CB_OK:
        return exit_ok;
    case CB_ERR_NO_DEVICE:
        return exit_no_device;
    case CB_ERR_PERMISSION:
        return exit_permission;
    case CB_ERR_DEVICE_LOST:
    case CB_ERR_LINK_DOWN:
        return exit_device_lost;
    default:
        return exit_error;
    }
}

exit_code exit_code_for_runtime(int e) noexcept {
    switch (e) {
    case cbSuccess:
        return exit_ok;
    case cbErrorNoDevice:
    case cbErrorInvalidDevice:
        return exit_no_device;
    case cbErrorNotPermitted:
        return exit_permission;
    case cbErrorRefused:
    case cbErrorThermalLimit:
        return exit_refused;
    case cbErrorDeviceLost:
    case cbErrorLinkDown:
        return exit_device_lost;
    default:
        return exit_error;
    }
}

exit_code exit_code_for_connect(const host::connect_error& e) noexcept {
    const bool refusal = e.status() == CB_ERR_UNSUPPORTED || e.status() == CB_ERR_PERMISSION;
    if (refusal && (e.step() == "compatibility" || e.step() == "authorization")) return exit_refused;
    if (e.step() == "detect" && (e.status() == CB_ERR_NO_DEVICE || e.status() == CB_ERR_NOT_FOUND))
        return exit_no_device;
    return exit_code_for(e.status());
}

}  // namespace cudabridge::cli
