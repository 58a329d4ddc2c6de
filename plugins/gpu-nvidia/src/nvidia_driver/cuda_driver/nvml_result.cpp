#include "nvidia_driver/cuda_driver/nvml_result.hpp"

namespace cudabridge::nv {

const char* nvml_result_name(nvml::nvmlReturn_t result) {
    switch (result) {
    case 0:
        return "NVML_SUCCESS";
    case 1:
        return "NVML_ERROR_UNINITIALIZED";
    case 2:
        return "NVML_ERROR_INVALID_ARGUMENT";
    case 3:
        return "NVML_ERROR_NOT_SUPPORTED";
    case 4:
        return "NVML_ERROR_NO_PERMISSION";
    case 5:
        return "NVML_ERROR_ALREADY_INITIALIZED";
    case 6:
        return "NVML_ERROR_NOT_FOUND";
    case 7:
        return "NVML_ERROR_INSUFFICIENT_SIZE";
    case 8:
        return "NVML_ERROR_INSUFFICIENT_POWER";
    case 9:
        return "NVML_ERROR_DRIVER_NOT_LOADED";
    case 10:
        return "NVML_ERROR_TIMEOUT";
    case 11:
        return "NVML_ERROR_IRQ_ISSUE";
    case 12:
        return "NVML_ERROR_LIBRARY_NOT_FOUND";
    case 13:
        return "NVML_ERROR_FUNCTION_NOT_FOUND";
    case 14:
        return "NVML_ERROR_CORRUPTED_INFOROM";
    case 15:
        return "NVML_ERROR_GPU_IS_LOST";
    case 16:
        return "NVML_ERROR_RESET_REQUIRED";
    case 17:
        return "NVML_ERROR_OPERATING_SYSTEM";
    case 18:
        return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
    case 19:
        return "NVML_ERROR_IN_USE";
    case 20:
        return "NVML_ERROR_MEMORY";
    case 21:
        return "NVML_ERROR_NO_DATA";
    case 22:
        return "NVML_ERROR_VGPU_ECC_NOT_SUPPORTED";
    case 23:
        return "NVML_ERROR_INSUFFICIENT_RESOURCES";
    case 24:
        return "NVML_ERROR_FREQ_NOT_SUPPORTED";
    case 25:
        return "NVML_ERROR_ARGUMENT_VERSION_MISMATCH";
    case 26:
        return "NVML_ERROR_DEPRECATED";
    case 27:
        return "NVML_ERROR_NOT_READY";
    case 28:
        return "NVML_ERROR_GPU_NOT_FOUND";
    case 29:
        return "NVML_ERROR_INVALID_STATE";
    case 30:
        return "NVML_ERROR_RESET_TYPE_NOT_SUPPORTED";
    case 999:
        return "NVML_ERROR_UNKNOWN";
    default:
        return nullptr;
    }
}

cb_status nvml_to_status(nvml::nvmlReturn_t result) {
    switch (result) {
    case 0:
        return CB_OK;
    case 2:
    case 7:
    case 24:
        return CB_ERR_INVALID_ARGUMENT;
    case 3:
    case 13:
    case 22:
    case 26:
    case 30:
        return CB_ERR_UNSUPPORTED;
    case 4:
        return CB_ERR_PERMISSION;
    case 6:
    case 21:
        return CB_ERR_NOT_FOUND;
    case 9:
    case 12:
    case 28:
        return CB_ERR_NO_DEVICE;
    case 10:
        return CB_ERR_TIMEOUT;
    case 14:
        return CB_ERR_INTEGRITY;
    case 15:
    case 16:
        return CB_ERR_DEVICE_LOST;
    case 18:
    case 25:
        return CB_ERR_ABI_MISMATCH;
    case 19:
    case 23:
    case 27:
        return CB_ERR_BUSY;
    case 20:
        return CB_ERR_OUT_OF_MEMORY;
    default:
        return CB_ERR_INTERNAL;  // 1, 5, 8, 11, 17, 29, 999, unknown
    }
}

std::string nvml_result_label(nvml::nvmlReturn_t result) {
    const char* name = nvml_result_name(result);
    if (name == nullptr) return "nvmlReturn " + std::to_string(result);
    return std::string(name) + " (" + std::to_string(result) + ")";
}

}  // namespace cudabridge::nv
