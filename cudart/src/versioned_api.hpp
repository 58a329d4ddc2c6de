// The entry points whose ABI differs between CUDA 12 and CUDA 13: implemented once here, exported
// by api_cuda13.cpp (libcudart.so.13) and api_cuda12.cpp (libcudart.so.12) in each one's form.
#pragma once

#include "cuda_types.hpp"

namespace cudabridge::cudart {

// CUDA 13's cudaGetDeviceProperties (CUDA 13's cudaDeviceProp).
cudaError_t get_properties(cudaDeviceProp* prop, int device);
// CUDA 13's cudaMemPrefetchAsync and cudaMemAdvise (a cudaMemLocation).
cudaError_t prefetch(const void* ptr, size_t count, cudaMemLocation location, unsigned flags, cudaStream_t stream);
cudaError_t advise(const void* ptr, size_t count, cudaMemoryAdvise advice, cudaMemLocation location);

}  // namespace cudabridge::cudart
