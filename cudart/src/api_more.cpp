// The rest of what ordinary programs call: pitched allocation expressed with the runtime's own
// calls, the profiler markers, and texture channel descriptions.
#include "errors.hpp"
#include "texture_types.hpp"
#include "handles.hpp"
#include "host_functions.hpp"
#include "run_summary.hpp"

using namespace cudabridge::cudart;

extern "C" {

cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);

cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height) {
    if (!ptr || !pitch) return record(cudaErrorInvalidValue);
    constexpr size_t alignment = 512;  // cudaDeviceProp::texturePitchAlignment's multiple, as CUDA pads rows
    *pitch = (width + alignment - 1) / alignment * alignment;
    return cudaMalloc(ptr, *pitch * height);
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

// Texture channel descriptions are plain data (texture_types.hpp), returned by value.
cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w, int f) { return {x, y, z, w, f}; }

}  // extern "C"
