// The copies and fills the driver describes in more than one dimension, and the 1D copies to and
// from CUDA arrays: translated to the runtime's (whose array positions and widths count elements
// where the driver's count bytes).
#include "contexts.hpp"
#include "copy_3d_params.hpp"
#include "element_fill.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"
#include "texture_types.hpp"

using namespace cudabridge::libcuda;

namespace {

cudaStream_t as_stream(CUstream s) { return reinterpret_cast<cudaStream_t>(s); }
cudaArray_t as_array(CUarray a) { return reinterpret_cast<cudaArray_t>(a); }
void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

// A synchronous call: the copy queued on the legacy stream, then that stream drained.
CUresult then_synchronize(cudaError_t queued) {
    if (queued != cudaSuccess) return from_runtime(queued);
    return from_runtime(cudaStreamSynchronize(nullptr));
}

CUresult copy_3d(const CUDA_MEMCPY3D* c, CUstream stream, bool synchronous) {
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    const std::optional<cudaMemcpy3DParms> p = runtime_copy(*c);
    if (!p) return not_supported("cuMemcpy3D of a mipmap level");
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    const cudaError_t e = cudaMemcpy3DAsync(&*p, synchronous ? nullptr : as_stream(stream));
    return synchronous ? then_synchronize(e) : from_runtime(e);
}

// Rows of `width` elements of `element` bytes, `pitch` bytes apart (cudart's fill_elements).
CUresult fill_rows(CUdeviceptr dst, size_t pitch, unsigned value, unsigned element, size_t width, size_t height,
                   CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    if (dst % element || pitch % element)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemsetD2D16/D2D32: the address or pitch is not aligned");
    return from_runtime(
        cudabridge::cudart::fill_elements(as_pointer(dst), pitch, value, element, width, height, as_stream(stream)));
}

}  // namespace

extern "C" {

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* copy) { return copy_3d(copy, nullptr, true); }
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* copy, CUstream stream) { return copy_3d(copy, stream, false); }

CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char value, size_t width, size_t height,
                           CUstream stream) {
    return fill_rows(dst, pitch, value, 1, width, height, stream);
}
CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char value, size_t width, size_t height) {
    if (CUresult r = cuMemsetD2D8Async(dst, pitch, value, width, height, nullptr); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamSynchronize(nullptr));
}
CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height,
                            CUstream stream) {
    return fill_rows(dst, pitch, value, 2, width, height, stream);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height) {
    if (CUresult r = cuMemsetD2D16Async(dst, pitch, value, width, height, nullptr); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamSynchronize(nullptr));
}
CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned value, size_t width, size_t height,
                            CUstream stream) {
    return fill_rows(dst, pitch, value, 4, width, height, stream);
}
CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned value, size_t width, size_t height) {
    if (CUresult r = cuMemsetD2D32Async(dst, pitch, value, width, height, nullptr); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamSynchronize(nullptr));
}

// 1D copies with an array on one side or both; offsets in bytes from the array's start.
CUresult cuMemcpyHtoAAsync_v2(CUarray dst, size_t offset, const void* src, size_t bytes, CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(
        cudaMemcpyToArrayAsync(as_array(dst), offset, 0, src, bytes, cudaMemcpyHostToDevice, as_stream(stream)));
}
CUresult cuMemcpyHtoA_v2(CUarray dst, size_t offset, const void* src, size_t bytes) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return then_synchronize(
        cudaMemcpyToArrayAsync(as_array(dst), offset, 0, src, bytes, cudaMemcpyHostToDevice, nullptr));
}
CUresult cuMemcpyAtoHAsync_v2(void* dst, CUarray src, size_t offset, size_t bytes, CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(
        cudaMemcpyFromArrayAsync(dst, as_array(src), offset, 0, bytes, cudaMemcpyDeviceToHost, as_stream(stream)));
}
CUresult cuMemcpyAtoH_v2(void* dst, CUarray src, size_t offset, size_t bytes) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return then_synchronize(
        cudaMemcpyFromArrayAsync(dst, as_array(src), offset, 0, bytes, cudaMemcpyDeviceToHost, nullptr));
}
CUresult cuMemcpyDtoA_v2(CUarray dst, size_t offset, CUdeviceptr src, size_t bytes) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return then_synchronize(
        cudaMemcpyToArrayAsync(as_array(dst), offset, 0, as_pointer(src), bytes, cudaMemcpyDeviceToDevice, nullptr));
}
CUresult cuMemcpyAtoD_v2(CUdeviceptr dst, CUarray src, size_t offset, size_t bytes) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return then_synchronize(
        cudaMemcpyFromArrayAsync(as_pointer(dst), as_array(src), offset, 0, bytes, cudaMemcpyDeviceToDevice, nullptr));
}
CUresult cuMemcpyAtoA_v2(CUarray dst, size_t dst_offset, CUarray src, size_t src_offset, size_t bytes) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaMemcpyArrayToArray(as_array(dst), dst_offset, 0, as_array(src), src_offset, 0, bytes,
                                               cudaMemcpyDeviceToDevice));
}

// Contexts are devices here: a peer copy is a copy between their devices.
CUresult cuMemcpyPeerAsync(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context, size_t bytes,
                           CUstream stream) {
    if (!live(dst_context) || !live(src_context))
        return fail(CUDA_ERROR_INVALID_CONTEXT, "cuMemcpyPeer: no such context");
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaMemcpyPeerAsync(as_pointer(dst), dst_context->device, as_pointer(src), src_context->device,
                                            bytes, as_stream(stream)));
}
CUresult cuMemcpyPeer(CUdeviceptr dst, CUcontext dst_context, CUdeviceptr src, CUcontext src_context, size_t bytes) {
    if (CUresult r = cuMemcpyPeerAsync(dst, dst_context, src, src_context, bytes, nullptr); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamSynchronize(nullptr));
}

}  // extern "C"
