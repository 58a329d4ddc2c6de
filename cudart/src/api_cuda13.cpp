// libcudart.so.13's forms of the entry points whose ABI changed in CUDA 13 (versioned_api.hpp).
#include "handles.hpp"
#include "versioned_api.hpp"

using namespace cudabridge::cudart;

extern "C" {

cudaError_t cudaGetDeviceProperties(cudaDeviceProp* prop, int device) { return get_properties(prop, device); }

cudaError_t cudaMemPrefetchAsync(const void* ptr, size_t count, cudaMemLocation location, unsigned flags,
                                 cudaStream_t stream) {
    return prefetch(ptr, count, location, flags, stream);
}
cudaError_t cudaMemPrefetchAsync_ptsz(const void* ptr, size_t count, cudaMemLocation location, unsigned flags,
                                      cudaStream_t s) {
    return prefetch(ptr, count, location, flags, per_thread_if_null(s));
}

cudaError_t cudaMemAdvise(const void* ptr, size_t count, cudaMemoryAdvise advice, cudaMemLocation location) {
    return advise(ptr, count, advice, location);
}

}  // extern "C"
