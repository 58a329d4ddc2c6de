// CUresult → name and → cb_status, independent of any loaded library.
#pragma once

#include <cudabridge/abi.h>

#include <string>

#include "nvidia_driver/cuda_driver/cuda_types.hpp"

namespace cudabridge::nv {

// "CUDA_ERROR_OUT_OF_MEMORY" for 2; nullptr for a code this table does not know.
[[nodiscard]] const char* cuda_result_name(cu::CUresult result);

// The cb_status a CUresult becomes (0 → CB_OK, 2 → CB_ERR_OUT_OF_MEMORY, 100 → CB_ERR_NO_DEVICE, ...).
[[nodiscard]] cb_status cuda_to_status(cu::CUresult result);

// "CUDA_ERROR_OUT_OF_MEMORY (2)", or "CUresult 12345" for an unknown code.
[[nodiscard]] std::string cuda_result_label(cu::CUresult result);

}  // namespace cudabridge::nv
