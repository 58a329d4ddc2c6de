// A 3D copy as the driver describes it (CUDA_MEMCPY3D: positions and widths in bytes, a memory
// type per side) and as the runtime does (cudaMemcpy3DParms: array positions and widths in
// elements), both ways: cuMemcpy3D and the graphs' memcpy nodes.
#pragma once

#include "driver_types.hpp"
#include "runtime_calls.hpp"

#include <optional>

namespace cudabridge::libcuda {

// Null when a side is a mipmap level (not offered).
std::optional<cudaMemcpy3DParms> runtime_copy(const CUDA_MEMCPY3D& copy);
// Each pointer side as a unified address (CU_MEMORYTYPE_UNIFIED: the driver tells host from
// device), each array side with its position in bytes.
CUDA_MEMCPY3D driver_copy(const cudaMemcpy3DParms& copy);

}  // namespace cudabridge::libcuda
