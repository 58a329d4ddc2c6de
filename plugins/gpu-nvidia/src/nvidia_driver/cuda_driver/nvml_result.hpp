// nvmlReturn_t → name and → cb_status, independent of any loaded library.
#pragma once

#include <cudabridge/abi.h>

#include <string>

#include "nvidia_driver/cuda_driver/nvml_types.hpp"

namespace cudabridge::nv {

// "NVML_ERROR_NO_PERMISSION" for 4; nullptr when unknown.
[[nodiscard]] const char* nvml_result_name(nvml::nvmlReturn_t result);
// NO_PERMISSION (4) → CB_ERR_PERMISSION, NOT_SUPPORTED (3) → CB_ERR_UNSUPPORTED, ...
[[nodiscard]] cb_status nvml_to_status(nvml::nvmlReturn_t result);
// "NVML_ERROR_NO_PERMISSION (4)", or "nvmlReturn 1234".
[[nodiscard]] std::string nvml_result_label(nvml::nvmlReturn_t result);

}  // namespace cudabridge::nv
