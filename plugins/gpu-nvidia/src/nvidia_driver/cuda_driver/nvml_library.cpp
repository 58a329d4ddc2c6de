#include "nvidia_driver/cuda_driver/nvml_library.hpp"

#include "nvidia_driver/cuda_driver/bind_symbol.hpp"
#include "nvidia_driver/cuda_driver/nvml_result.hpp"

namespace cudabridge::nv {

nvml_library::nvml_library(const std::string& library) { load(library); }

nvml_library::~nvml_library() {
    if (initialized_ && api_.nvmlShutdown != nullptr) api_.nvmlShutdown();
}

void nvml_library::load(const std::string& library) {
    availability_ = {};
    if (!open_driver_library(library_, library, availability_)) return;

    std::vector<std::string> missing;
#define CB_NV_NVML_BIND(member, type, name, fallback, required) \
    if (!bind_symbol(library_, api_.member, #member, name, fallback, bound_) && (required)) missing.emplace_back(name);
    CB_NV_NVML_ENTRY_POINTS(CB_NV_NVML_BIND)
#undef CB_NV_NVML_BIND

    if (!all_bound(missing, library, "; not a usable NVML", availability_)) return;

    nvml::nvmlReturn_t r = api_.nvmlInit();
    if (r != nvml::NVML_SUCCESS) {
        availability_.status = nvml_to_status(r);
        availability_.reason = r == nvml::NVML_ERROR_DRIVER_NOT_LOADED
                                   ? "NVIDIA kernel driver not loaded (NVML_ERROR_DRIVER_NOT_LOADED, 9)"
                                   : "nvmlInit_v2 failed: " + describe(r);
        return;
    }
    initialized_ = true;

    unsigned int count = 0;
    r = api_.nvmlDeviceGetCount(&count);
    if (r != nvml::NVML_SUCCESS) {
        availability_.status = nvml_to_status(r);
        availability_.reason = "nvmlDeviceGetCount_v2 failed: " + describe(r);
        return;
    }
    settle_device_count(availability_, static_cast<int>(count), "no NVIDIA GPU (nvmlDeviceGetCount_v2 returned 0)");
}

std::string nvml_library::bound_name(const std::string& api) const { return bound_name_of(bound_, api); }

std::string nvml_library::describe(nvml::nvmlReturn_t result) const {
    std::string label = nvml_result_label(result);
    const char* text = api_.nvmlErrorString != nullptr ? api_.nvmlErrorString(result) : nullptr;
    return text != nullptr && *text != '\0' ? label + ": " + text : label;
}

cb_status nvml_library::check(nvml::nvmlReturn_t result, const char* what, std::string* message) const {
    cb_status status = nvml_to_status(result);
    if (status != CB_OK && message != nullptr) {
        std::string subject = what != nullptr ? what : "the setting";
        *message = result == nvml::NVML_ERROR_NO_PERMISSION
                       ? "needs root (run with sudo) to change " + subject + ": " + describe(result)
                       : subject + ": " + describe(result);
    }
    return status;
}

cb_status nvml_library::device(unsigned int index, nvml::nvmlDevice_t& handle, std::string* message) const {
    handle = nullptr;
    if (!available()) {
        if (message != nullptr) *message = "NVML not available: " + availability_.reason;
        return availability_.status != CB_OK ? availability_.status : CB_ERR_NO_DEVICE;
    }
    if (index >= static_cast<unsigned int>(availability_.device_count)) {
        if (message != nullptr)
            *message = "no NVIDIA GPU " + std::to_string(index) + " (NVML sees " +
                       std::to_string(availability_.device_count) + ")";
        return CB_ERR_NOT_FOUND;
    }
    return check(api_.nvmlDeviceGetHandleByIndex(index, &handle), "nvmlDeviceGetHandleByIndex_v2", message);
}

namespace {
cb_status unsupported(const char* fn, std::string* message) {
    if (message != nullptr) *message = std::string("this NVML lacks ") + fn;
    return CB_ERR_UNSUPPORTED;
}
}  // namespace

cb_status nvml_library::set_power_limit_mw(unsigned int index, unsigned int milliwatts, std::string* message) const {
    nvml::nvmlDevice_t dev = nullptr;
    if (cb_status s = device(index, dev, message); s != CB_OK) return s;
    if (api_.nvmlDeviceSetPowerManagementLimit == nullptr)
        return unsupported("nvmlDeviceSetPowerManagementLimit", message);
    return check(api_.nvmlDeviceSetPowerManagementLimit(dev, milliwatts), "the power limit", message);
}

cb_status nvml_library::set_locked_clocks(unsigned int index, unsigned int min_mhz, unsigned int max_mhz,
                                          std::string* message) const {
    nvml::nvmlDevice_t dev = nullptr;
    if (cb_status s = device(index, dev, message); s != CB_OK) return s;
    if (min_mhz == 0 && max_mhz == 0) {
        if (api_.nvmlDeviceResetGpuLockedClocks == nullptr)
            return unsupported("nvmlDeviceResetGpuLockedClocks", message);
        return check(api_.nvmlDeviceResetGpuLockedClocks(dev), "the locked GPU clocks", message);
    }
    if (min_mhz > max_mhz) {
        if (message != nullptr) *message = "locked clocks: min > max";
        return CB_ERR_INVALID_ARGUMENT;
    }
    if (api_.nvmlDeviceSetGpuLockedClocks == nullptr) return unsupported("nvmlDeviceSetGpuLockedClocks", message);
    return check(api_.nvmlDeviceSetGpuLockedClocks(dev, min_mhz, max_mhz), "the locked GPU clocks", message);
}

}  // namespace cudabridge::nv
