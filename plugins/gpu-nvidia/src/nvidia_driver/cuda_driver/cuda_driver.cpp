#include "nvidia_driver/cuda_driver/cuda_driver.hpp"

#include "nvidia_driver/cuda_driver/bind_symbol.hpp"
#include "nvidia_driver/cuda_driver/cuda_result.hpp"

namespace cudabridge::nv {

cuda_driver::cuda_driver(const std::string& library) { load(library); }

void cuda_driver::load(const std::string& library) {
    availability_ = {};
    if (!open_driver_library(library_, library, availability_)) return;

    std::vector<std::string> missing;
#define CB_NV_CUDA_BIND(member, type, name, fallback) \
    if (!bind_symbol(library_, api_.member, #member, name, fallback, bound_)) missing.emplace_back(name);
    CB_NV_CUDA_ENTRY_POINTS(CB_NV_CUDA_BIND)
#undef CB_NV_CUDA_BIND
#define CB_NV_CUDA_BIND_OPTIONAL(member, type, name, fallback) \
    bind_symbol(library_, api_.member, #member, name, fallback, bound_);
    CB_NV_CUDA_OPTIONAL_ENTRY_POINTS(CB_NV_CUDA_BIND_OPTIONAL)
#undef CB_NV_CUDA_BIND_OPTIONAL

    if (!all_bound(missing, library, "; the driver is too old or not libcuda", availability_)) return;

    init_result_ = api_.cuInit(0);
    if (init_result_ == cu::CUDA_ERROR_STUB_LIBRARY) {
        availability_.status = CB_ERR_NO_DEVICE;
        availability_.reason =
            "libcuda is the toolkit's stub (CUDA_ERROR_STUB_LIBRARY, 34): no driver (" + library + ")";
        return;
    }
    if (init_result_ == cu::CUDA_ERROR_NO_DEVICE) {
        availability_.status = CB_ERR_NO_DEVICE;
        availability_.reason = "no CUDA device (CUDA_ERROR_NO_DEVICE, 100)";
        return;
    }
    if (init_result_ != cu::CUDA_SUCCESS) {
        availability_.status = cuda_to_status(init_result_);
        availability_.reason = "cuInit failed: " + describe(init_result_);
        return;
    }

    int version = 0;
    if (cu::CUresult r = api_.cuDriverGetVersion(&version); r != cu::CUDA_SUCCESS) {
        availability_.status = cuda_to_status(r);
        availability_.reason = "cuDriverGetVersion failed: " + describe(r);
        return;
    }
    availability_.driver_version = version;

    int count = 0;
    if (cu::CUresult r = api_.cuDeviceGetCount(&count); r != cu::CUDA_SUCCESS) {
        availability_.status = cuda_to_status(r);
        availability_.reason = r == cu::CUDA_ERROR_NO_DEVICE ? "no CUDA device (CUDA_ERROR_NO_DEVICE, 100)"
                                                             : "cuDeviceGetCount failed: " + describe(r);
        return;
    }
    settle_device_count(availability_, count, "no CUDA device (cuDeviceGetCount returned 0)");
}

std::string cuda_driver::bound_name(const std::string& api) const { return bound_name_of(bound_, api); }

std::string cuda_driver::describe(cu::CUresult result) const {
    std::string name;
    std::string text;
    const char* s = nullptr;
    if (api_.cuGetErrorName != nullptr && api_.cuGetErrorName(result, &s) == cu::CUDA_SUCCESS && s != nullptr) name = s;
    s = nullptr;
    if (api_.cuGetErrorString != nullptr && api_.cuGetErrorString(result, &s) == cu::CUDA_SUCCESS && s != nullptr)
        text = s;
    std::string label = name.empty() ? cuda_result_label(result) : name + " (" + std::to_string(result) + ")";
    return text.empty() ? label : label + ": " + text;
}

cb_status cuda_driver::check(cu::CUresult result, const char* what, std::string* message) const {
    cb_status status = cuda_to_status(result);
    if (status != CB_OK && message != nullptr)
        *message = std::string(what != nullptr ? what : "CUDA call") + ": " + describe(result);
    return status;
}

}  // namespace cudabridge::nv
