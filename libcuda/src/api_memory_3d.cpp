// The copies and fills the driver describes in more than one dimension, and the 1D copies to and
// from CUDA arrays: translated to the runtime's (whose array positions and widths count elements
// where the driver's count bytes).
#include "contexts.hpp"
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

size_t element_bytes(CUarray array) {
    cudaChannelFormatDesc d{};
    cudaExtent extent{};
    unsigned flags = 0;
    if (cudaArrayGetInfo(&d, &extent, &flags, as_array(array)) != cudaSuccess) return 0;
    return size_t(d.x + d.y + d.z + d.w) / 8;
}

// One side of a 3D copy as the runtime describes it: an array and its position in elements, or a
// pitched pointer and its position in bytes.
void side_of(int type, const void* host, CUdeviceptr device, CUarray array, size_t x, size_t y, size_t z, size_t pitch,
             size_t height, cudaArray_t& out_array, cudaPos& pos, cudaPitchedPtr& ptr) {
    if (type == CU_MEMORYTYPE_ARRAY) {
        out_array = as_array(array);
        const size_t bytes = element_bytes(array);
        pos = {bytes ? x / bytes : x, y, z};
        return;
    }
    void* base = type == CU_MEMORYTYPE_HOST ? const_cast<void*>(host) : as_pointer(device);
    ptr = {base, pitch, pitch, height};
    pos = {x, y, z};
}

CUresult copy_3d(const CUDA_MEMCPY3D* c, CUstream stream, bool synchronous) {
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    if (c->srcLOD || c->dstLOD) return not_supported("cuMemcpy3D of a mipmap level");
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaMemcpy3DParms p{};
    side_of(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcArray, c->srcXInBytes, c->srcY, c->srcZ, c->srcPitch,
            c->srcHeight, p.srcArray, p.srcPos, p.srcPtr);
    side_of(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstArray, c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch,
            c->dstHeight, p.dstArray, p.dstPos, p.dstPtr);
    const CUarray array = c->srcMemoryType == CU_MEMORYTYPE_ARRAY   ? c->srcArray
                          : c->dstMemoryType == CU_MEMORYTYPE_ARRAY ? c->dstArray
                                                                    : nullptr;
    const size_t bytes = array ? element_bytes(array) : 1;
    p.extent = {bytes ? c->WidthInBytes / bytes : c->WidthInBytes, c->Height, c->Depth};
    p.kind = cudaMemcpyDefault;
    const cudaError_t e = cudaMemcpy3DAsync(&p, synchronous ? nullptr : as_stream(stream));
    return synchronous ? then_synchronize(e) : from_runtime(e);
}

// Rows of `width` elements `pitch` bytes apart, each filled as cuMemsetD16/D32 fill a range.
template <typename T>
CUresult fill_rows(CUdeviceptr dst, size_t pitch, T value, size_t width, size_t height, CUstream stream,
                   CUresult (*fill_row)(CUdeviceptr, T, size_t, CUstream)) {
    for (size_t row = 0; row < height; ++row)
        if (CUresult r = fill_row(dst + row * pitch, value, width, stream); r != CUDA_SUCCESS) return r;
    return CUDA_SUCCESS;
}

}  // namespace

extern "C" {

CUresult cuMemcpy3D_v2(const CUDA_MEMCPY3D* copy) { return copy_3d(copy, nullptr, true); }
CUresult cuMemcpy3DAsync_v2(const CUDA_MEMCPY3D* copy, CUstream stream) { return copy_3d(copy, stream, false); }

CUresult cuMemsetD2D8Async(CUdeviceptr dst, size_t pitch, unsigned char value, size_t width, size_t height,
                           CUstream stream) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaMemset2DAsync(as_pointer(dst), pitch, value, width, height, as_stream(stream)));
}
CUresult cuMemsetD2D8_v2(CUdeviceptr dst, size_t pitch, unsigned char value, size_t width, size_t height) {
    if (CUresult r = cuMemsetD2D8Async(dst, pitch, value, width, height, nullptr); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamSynchronize(nullptr));
}
CUresult cuMemsetD2D16Async(CUdeviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height,
                            CUstream stream) {
    return fill_rows<unsigned short>(dst, pitch, value, width, height, stream, &cuMemsetD16Async);
}
CUresult cuMemsetD2D16_v2(CUdeviceptr dst, size_t pitch, unsigned short value, size_t width, size_t height) {
    if (CUresult r = cuMemsetD2D16Async(dst, pitch, value, width, height, nullptr); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamSynchronize(nullptr));
}
CUresult cuMemsetD2D32Async(CUdeviceptr dst, size_t pitch, unsigned value, size_t width, size_t height,
                            CUstream stream) {
    return fill_rows<unsigned>(dst, pitch, value, width, height, stream, &cuMemsetD32Async);
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
