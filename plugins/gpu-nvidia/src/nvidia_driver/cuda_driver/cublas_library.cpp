#include "nvidia_driver/cuda_driver/cublas_library.hpp"

#include "nvidia_driver/cuda_driver/bind_symbol.hpp"

namespace cudabridge::nv {

namespace {

const char* cublas_status_name(cublas::cublasStatus_t s) {
    switch (s) {
    case 0:
        return "CUBLAS_STATUS_SUCCESS";
    case 1:
        return "CUBLAS_STATUS_NOT_INITIALIZED";
    case 3:
        return "CUBLAS_STATUS_ALLOC_FAILED";
    case 7:
        return "CUBLAS_STATUS_INVALID_VALUE";
    case 8:
        return "CUBLAS_STATUS_ARCH_MISMATCH";
    case 11:
        return "CUBLAS_STATUS_MAPPING_ERROR";
    case 13:
        return "CUBLAS_STATUS_EXECUTION_FAILED";
    case 14:
        return "CUBLAS_STATUS_INTERNAL_ERROR";
    case 15:
        return "CUBLAS_STATUS_NOT_SUPPORTED";
    case 16:
        return "CUBLAS_STATUS_LICENSE_ERROR";
    default:
        return nullptr;
    }
}

cb_status cublas_to_status(cublas::cublasStatus_t s) {
    switch (s) {
    case 0:
        return CB_OK;
    case 3:
        return CB_ERR_OUT_OF_MEMORY;
    case 7:
        return CB_ERR_INVALID_ARGUMENT;
    case 8:
    case 15:
        return CB_ERR_UNSUPPORTED;
    case 1:
        return CB_ERR_NO_DEVICE;  // no usable context / driver
    case 13:
        return CB_ERR_DEVICE_LOST;  // the GEMM kernel failed to run
    default:
        return CB_ERR_INTERNAL;
    }
}

}  // namespace

std::vector<std::string> cublas_library::default_candidates() {
    return {"libcublas.so.13", "libcublas.so.12", "libcublas.so"};
}

cublas_library::cublas_library(const std::vector<std::string>& candidates) {
    auto result =
        load_first(candidates, "cuBLAS", [this](const std::string& c, std::string& why) { return try_load(c, why); });
    if (!result.available) availability_ = result;
}

bool cublas_library::try_load(const std::string& library, std::string& why) {
    api_ = {};
    bound_.clear();
    // Kept loaded once opened, as NVIDIA's own runtime does: cuBLAS links its own static libstdc++,
    // whose exception-handling pool lives as long as the library; unloading it would leave that
    // pool behind as a leak no one can free.
    if (!library_.open(library, /*keep_loaded=*/true)) {
        why = library_.error();
        return false;
    }
    std::vector<std::string> missing;
#define CB_NV_CUBLAS_BIND(member, type, name, required) \
    if (!bind_symbol(library_, api_.member, #member, name, nullptr, bound_) && (required)) missing.emplace_back(name);
    CB_NV_CUBLAS_ENTRY_POINTS(CB_NV_CUBLAS_BIND)
#undef CB_NV_CUBLAS_BIND
    if (!missing.empty()) {
        why = missing_symbols_text(missing, library);
        library_.close();
        return false;
    }
    availability_ = {};
    availability_.available = true;
    availability_.status = CB_OK;
    return true;
}

std::string cublas_library::bound_name(const std::string& api) const { return bound_name_of(bound_, api); }

std::string cublas_library::describe(cublas::cublasStatus_t status) const {
    const char* name = cublas_status_name(status);
    std::string label = name != nullptr ? std::string(name) + " (" + std::to_string(status) + ")"
                                        : "cublasStatus " + std::to_string(status);
    const char* text = api_.cublasGetStatusString != nullptr ? api_.cublasGetStatusString(status) : nullptr;
    return text != nullptr && *text != '\0' && (name == nullptr || std::string(text) != name) ? label + ": " + text
                                                                                              : label;
}

cb_status cublas_library::check(cublas::cublasStatus_t status, const char* what, std::string* message) const {
    cb_status s = cublas_to_status(status);
    if (s != CB_OK && message != nullptr)
        *message = std::string(what != nullptr ? what : "cuBLAS") + ": " + describe(status);
    return s;
}

}  // namespace cudabridge::nv
