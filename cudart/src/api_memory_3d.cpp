// Pitched 3D memory: cudaMalloc3D, cudaMemcpy3D and cudaMemset3D (and their async forms) on linear
// memory, as 2D copies and memsets slice by slice; a copy to or from a CUDA array copies its memory.
#include "errors.hpp"
#include "handles.hpp"
#include "texture_types.hpp"

extern "C" {
cudaError_t cudaMallocPitch(void** ptr, size_t* pitch, size_t width, size_t height);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
}

using namespace cudabridge::cudart;

namespace {

// Where slice z, row y, byte x of a pitched allocation lies.
char* at(const cudaPitchedPtr& p, const cudaPos& pos, size_t z) {
    return static_cast<char*>(p.ptr) + pos.x + pos.y * p.pitch + (pos.z + z) * p.pitch * p.ysize;
}

}  // namespace

extern "C" {

cudaError_t cudaMalloc3D(cudaPitchedPtr* out, cudaExtent extent) {
    if (!out) return record(cudaErrorInvalidValue);
    size_t pitch = 0;
    void* p = nullptr;
    const size_t rows = extent.height * (extent.depth ? extent.depth : 1);
    if (cudaError_t e = cudaMallocPitch(&p, &pitch, extent.width, rows); e != cudaSuccess) return e;
    *out = {p, pitch, extent.width, extent.height};
    return cudaSuccess;
}

cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream) {
    if (!p) return record(cudaErrorInvalidValue);
    cudaMemcpy3DParms linear;
    cudaError_t error = cudaSuccess;
    if (array_copy_parms(*p, linear, error)) {  // CUDA arrays: their memory, pitched (api_arrays.cpp)
        if (error != cudaSuccess) return error;
        p = &linear;
    }
    for (size_t z = 0; z < p->extent.depth; ++z)
        if (cudaError_t e = cudaMemcpy2DAsync(at(p->dstPtr, p->dstPos, z), p->dstPtr.pitch, at(p->srcPtr, p->srcPos, z),
                                              p->srcPtr.pitch, p->extent.width, p->extent.height, p->kind, stream);
            e != cudaSuccess)
            return e;
    return cudaSuccess;
}

cudaError_t cudaMemcpy3D(const cudaMemcpy3DParms* p) {
    if (cudaError_t e = cudaMemcpy3DAsync(p, nullptr); e != cudaSuccess) return e;
    return cudaStreamSynchronize(nullptr);
}

cudaError_t cudaMemset3DAsync(cudaPitchedPtr p, int value, cudaExtent extent, cudaStream_t stream) {
    for (size_t z = 0; z < extent.depth; ++z)
        if (cudaError_t e = cudaMemset2DAsync(at(p, {0, 0, 0}, z), p.pitch, value, extent.width, extent.height, stream);
            e != cudaSuccess)
            return e;
    return cudaSuccess;
}

cudaError_t cudaMemset3D(cudaPitchedPtr p, int value, cudaExtent extent) {
    if (cudaError_t e = cudaMemset3DAsync(p, value, extent, nullptr); e != cudaSuccess) return e;
    return cudaStreamSynchronize(nullptr);
}

cudaError_t cudaMemcpy3DAsync_ptsz(const cudaMemcpy3DParms* p, cudaStream_t s) {
    return cudaMemcpy3DAsync(p, per_thread_if_null(s));
}
cudaError_t cudaMemcpy3D_ptds(const cudaMemcpy3DParms* p) {
    if (cudaError_t e = cudaMemcpy3DAsync(p, per_thread_if_null(nullptr)); e != cudaSuccess) return e;
    return cudaStreamSynchronize(per_thread_if_null(nullptr));
}
cudaError_t cudaMemset3DAsync_ptsz(cudaPitchedPtr p, int value, cudaExtent extent, cudaStream_t s) {
    return cudaMemset3DAsync(p, value, extent, per_thread_if_null(s));
}
cudaError_t cudaMemset3D_ptds(cudaPitchedPtr p, int value, cudaExtent extent) {
    if (cudaError_t e = cudaMemset3DAsync(p, value, extent, per_thread_if_null(nullptr)); e != cudaSuccess) return e;
    return cudaStreamSynchronize(per_thread_if_null(nullptr));
}
cudaError_t cudaMemset2DAsync_ptsz(void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t s) {
    return cudaMemset2DAsync(ptr, pitch, value, width, height, per_thread_if_null(s));
}
cudaError_t cudaMemset2D_ptds(void* ptr, size_t pitch, int value, size_t width, size_t height) {
    if (cudaError_t e = cudaMemset2DAsync(ptr, pitch, value, width, height, per_thread_if_null(nullptr));
        e != cudaSuccess)
        return e;
    return cudaStreamSynchronize(per_thread_if_null(nullptr));
}

}  // extern "C"
