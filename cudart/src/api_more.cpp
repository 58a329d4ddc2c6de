// The rest of what ordinary programs call: pitched and stream-ordered allocation expressed with
// the runtime's own calls, the profiler markers, and the functions this library does not offer,
// each of which answers cudaErrorNotSupported (named once on stderr) instead of leaving the
// program unable to load.
#include "errors.hpp"
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

// Stream-ordered allocation: the memory is ready at once (stronger than CUDA promises), and a
// free waits for the stream's earlier work before the memory goes back.
cudaError_t cudaMallocAsync(void** ptr, size_t size, cudaStream_t /*stream*/) { return cudaMalloc(ptr, size); }

cudaError_t cudaFreeAsync(void* ptr, cudaStream_t stream) {
    if (cudaError_t e = ensure_runtime(); e != cudaSuccess) return e;
    if (cbError_t e = cbStreamSynchronize(ordered(stream)); e != cbSuccess) return record(e);
    return cudaFree(ptr);
}

cudaError_t cudaProfilerStart(void) { return cudaSuccess; }
cudaError_t cudaProfilerStop(void) { return cudaSuccess; }

#define CB_CUDART_NOT_SUPPORTED(name) \
    cudaError_t name() { return not_supported(#name); }

CB_CUDART_NOT_SUPPORTED(cudaMemcpy3D)
CB_CUDART_NOT_SUPPORTED(cudaMemcpy3DAsync)
CB_CUDART_NOT_SUPPORTED(cudaMalloc3D)
CB_CUDART_NOT_SUPPORTED(cudaMallocArray)
CB_CUDART_NOT_SUPPORTED(cudaFreeArray)
CB_CUDART_NOT_SUPPORTED(cudaMemcpyToArray)
CB_CUDART_NOT_SUPPORTED(cudaMemcpy2DToArray)
CB_CUDART_NOT_SUPPORTED(cudaMemcpy2DFromArray)
CB_CUDART_NOT_SUPPORTED(cudaMemRangeGetAttribute)
CB_CUDART_NOT_SUPPORTED(cudaMemRangeGetAttributes)
CB_CUDART_NOT_SUPPORTED(cudaMemPrefetchBatchAsync)
CB_CUDART_NOT_SUPPORTED(cudaDeviceCanAccessPeer)
CB_CUDART_NOT_SUPPORTED(cudaDeviceEnablePeerAccess)
CB_CUDART_NOT_SUPPORTED(cudaMemcpyPeer)
CB_CUDART_NOT_SUPPORTED(cudaMemcpyPeerAsync)
CB_CUDART_NOT_SUPPORTED(cudaIpcGetMemHandle)
CB_CUDART_NOT_SUPPORTED(cudaIpcOpenMemHandle)
CB_CUDART_NOT_SUPPORTED(cudaIpcCloseMemHandle)
CB_CUDART_NOT_SUPPORTED(cudaCreateTextureObject)
CB_CUDART_NOT_SUPPORTED(cudaDestroyTextureObject)
CB_CUDART_NOT_SUPPORTED(cudaCreateSurfaceObject)
CB_CUDART_NOT_SUPPORTED(cudaDestroySurfaceObject)
CB_CUDART_NOT_SUPPORTED(cudaCreateChannelDesc)
CB_CUDART_NOT_SUPPORTED(cudaGraphCreate)
CB_CUDART_NOT_SUPPORTED(cudaGraphInstantiate)
CB_CUDART_NOT_SUPPORTED(cudaGraphLaunch)
CB_CUDART_NOT_SUPPORTED(cudaGraphDestroy)
CB_CUDART_NOT_SUPPORTED(cudaGraphExecDestroy)
CB_CUDART_NOT_SUPPORTED(cudaStreamBeginCapture)
CB_CUDART_NOT_SUPPORTED(cudaStreamEndCapture)
CB_CUDART_NOT_SUPPORTED(cudaLaunchCooperativeKernel)
CB_CUDART_NOT_SUPPORTED(cudaLaunchKernelExC)
CB_CUDART_NOT_SUPPORTED(cudaMemPoolCreate)
CB_CUDART_NOT_SUPPORTED(cudaDeviceGetDefaultMemPool)
CB_CUDART_NOT_SUPPORTED(cudaGetDriverEntryPoint)
CB_CUDART_NOT_SUPPORTED(cudaGetDriverEntryPointByVersion)

}  // extern "C"
