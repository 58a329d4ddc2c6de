// The driver API's results over the runtime objects' (cudaError_t) and the CudaBridge runtime's
// (cbError_t): the numbers CUDA shares between its two APIs stay, the runtime-only ones map to
// the driver's nearest meaning. With CUDABRIDGE_CUDART_VERBOSE=1 each failure says why on stderr.
#pragma once

#include "driver_types.hpp"

#include "cuda_types.hpp"

#include <cudabridge.h>

#include <string>

namespace cudabridge::libcuda {

CUresult to_driver(cudaError_t e);
CUresult to_driver(cbError_t e);

// Returns `e`; prints `message` when verbose (and e is not CUDA_SUCCESS).
CUresult fail(CUresult e, const std::string& message);

// A result of the runtime objects (which say why themselves when verbose) or of the CudaBridge
// runtime (whose reason is printed here when verbose), as the driver's.
CUresult from_runtime(cudaError_t e);
CUresult from_runtime(cbError_t e);

// For a function this library does not implement: its name once on stderr, CUDA_ERROR_NOT_SUPPORTED.
CUresult not_supported(const char* function);

const char* result_name(CUresult e);    // nullptr for a number that is no CUresult
const char* result_string(CUresult e);  // nullptr likewise

}  // namespace cudabridge::libcuda
