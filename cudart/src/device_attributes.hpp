// cudaDeviceGetAttribute's answers: every cudaDeviceAttr of CUDA 13 (driver_types.h), read from
// the device's cudaDeviceProp, which is filled from the GPU's profile (device_limits.cpp).
#pragma once

#include "cuda_types.hpp"

#include <cudabridge.h>

namespace cudabridge::cudart {

// The value of `attribute` for a device whose CUDA properties are `prop` (and the runtime's, for
// what CUDA 13 removed from cudaDeviceProp: clock rates); false for a number that is no
// cudaDeviceAttr (CUDA answers cudaErrorInvalidValue).
bool attribute_of(const cudaDeviceProp& prop, const cbDeviceProp& runtime_prop, int attribute, int& value);

}  // namespace cudabridge::cudart
