// CUDA arrays: cudaMallocArray, cudaMalloc3DArray (layered and cubemap), cudaFreeArray,
// cudaArrayGetInfo, cudaGetChannelDesc, and the copies into, out of and between arrays. An array
// is linear device memory the library owns (texture_types.hpp's cudaArray), so every copy is a 2D
// or 3D copy between pitched memory; kernels reach an array through texture and surface objects
// (api_textures.cpp). Mipmapped arrays are not offered.
#include "errors.hpp"
#include "handles.hpp"
#include "texture_types.hpp"

#include <algorithm>
#include <mutex>
#include <set>

extern "C" {
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaGetDevice(int* device);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy2DAsync(void* dst, size_t dpitch, const void* src, size_t spitch, size_t width, size_t height,
                              cudaMemcpyKind kind, cudaStream_t stream);
cudaError_t cudaMemcpy3DAsync(const cudaMemcpy3DParms* p, cudaStream_t stream);
cudaError_t cudaStreamSynchronize(cudaStream_t stream);
}

using namespace cudabridge::cudart;

namespace {

std::mutex& arrays_mutex() {
    static std::mutex m;
    return m;
}
std::set<const void*>& live_arrays() {
    static std::set<const void*> s;
    return s;
}

cudaError_t make_array(cudaArray_t* out, const cudaChannelFormatDesc* desc, cudaExtent extent, unsigned flags) {
    if (!out || !desc) return record(cudaErrorInvalidValue);
    const size_t element = channel_element_bytes(*desc);
    if (!element) return fail(cudaErrorInvalidChannelDescriptor, "an unsupported channel format");
    const bool layered = flags & cudaArrayLayered, cubemap = flags & cudaArrayCubemap;
    if (flags & ~(cudaArrayLayered | cudaArraySurfaceLoadStore | cudaArrayCubemap | cudaArrayTextureGather))
        return fail(cudaErrorInvalidValue, "array flags the library does not offer");
    if (extent.width == 0) return record(cudaErrorInvalidValue);
    if (cubemap && (extent.width != extent.height || extent.depth == 0 || extent.depth % 6))
        return fail(cudaErrorInvalidValue, "a cubemap array is width x width x 6 (x layers)");
    if (layered && extent.depth == 0) return record(cudaErrorInvalidValue);
    if (!layered && !cubemap && extent.height == 0 && extent.depth != 0) return record(cudaErrorInvalidValue);
    auto* a = new cudaArray{};
    a->magic = array_magic;
    a->desc = *desc;
    a->extent = extent;
    a->flags = flags;
    cudaGetDevice(&a->device);
    a->element_bytes = element;
    a->pitch = extent.width * element;
    a->rows = std::max<size_t>(extent.height, 1);
    a->slices = std::max<size_t>(extent.depth, 1);
    a->slice_pitch = a->pitch * a->rows;
    void* memory = nullptr;
    if (cudaError_t e = cudaMalloc(&memory, a->slice_pitch * a->slices); e != cudaSuccess) {
        delete a;
        return e;
    }
    a->memory = static_cast<char*>(memory);
    std::lock_guard<std::mutex> lock(arrays_mutex());
    live_arrays().insert(a);
    *out = a;
    return cudaSuccess;
}

// A 2D copy's array side: the address of byte wOffset of row hOffset, when width x height bytes fit.
cudaError_t array_at(cudaArray_const_t array, size_t w_offset, size_t h_offset, size_t width, size_t height, char*& at,
                     size_t& pitch) {
    cudaArray* a = find_array(array);
    if (!a) return record(cudaErrorInvalidResourceHandle);
    const size_t rows = a->rows * a->slices;  // 2D copies see slices as more rows
    if (w_offset + width > a->pitch || h_offset + height > rows) return record(cudaErrorInvalidValue);
    at = a->memory + h_offset * a->pitch + w_offset;
    pitch = a->pitch;
    return cudaSuccess;
}

// A linear copy's array side: `count` bytes from (wOffset, hOffset) on, row after row.
cudaError_t array_run(cudaArray_const_t array, size_t w_offset, size_t h_offset, size_t count, char*& at) {
    cudaArray* a = find_array(array);
    if (!a) return record(cudaErrorInvalidResourceHandle);
    const size_t start = h_offset * a->pitch + w_offset, total = a->slice_pitch * a->slices;
    if (w_offset > a->pitch || start > total || count > total - start) return record(cudaErrorInvalidValue);
    at = a->memory + start;
    return cudaSuccess;
}

cudaError_t synchronized(cudaError_t e, cudaStream_t stream) {
    if (e != cudaSuccess) return e;
    return cudaStreamSynchronize(stream);
}

}  // namespace

cudaArray* cudabridge::cudart::find_array(const void* a) {
    std::lock_guard<std::mutex> lock(arrays_mutex());
    return live_arrays().count(a) ? const_cast<cudaArray*>(static_cast<const cudaArray*>(a)) : nullptr;
}

size_t cudabridge::cudart::channel_element_bytes(const cudaChannelFormatDesc& d) {
    if (d.f != cudaChannelFormatKindSigned && d.f != cudaChannelFormatKindUnsigned && d.f != cudaChannelFormatKindFloat)
        return 0;
    const int bits[4] = {d.x, d.y, d.z, d.w};
    int total = 0;
    bool ended = false;
    for (int b : bits) {
        if (b != 0 && b != 8 && b != 16 && b != 32) return 0;
        if (b && ended) return 0;  // channels are x, then y, ...: no gap
        if (!b) ended = true;
        if (d.f == cudaChannelFormatKindFloat && b == 8) return 0;
        total += b;
    }
    if (total == 0 || d.x == 0) return 0;
    // Every present channel has the same width, as CUDA's formats do.
    for (int b : bits)
        if (b && b != d.x) return 0;
    return static_cast<size_t>(total / 8);
}

// Turns a 3D copy that names arrays into one between pitched pointers: an array's x position
// and the extent's width count elements, a pitched pointer's x bytes.
bool cudabridge::cudart::array_copy_parms(const cudaMemcpy3DParms& in, cudaMemcpy3DParms& out, cudaError_t& error) {
    out = in;
    if (!in.srcArray && !in.dstArray) return false;
    size_t element = 1;
    for (cudaArray_t array : {in.srcArray, in.dstArray})
        if (array) {
            cudaArray* a = find_array(array);
            if (!a) return error = record(cudaErrorInvalidResourceHandle), true;
            element = a->element_bytes;
        }
    out.extent.width = in.extent.width * element;
    out.extent.height = std::max<size_t>(in.extent.height, 1);
    out.extent.depth = std::max<size_t>(in.extent.depth, 1);
    auto side = [&](cudaArray_t array, cudaPos& pos, cudaPitchedPtr& ptr) {
        if (!array) return true;
        cudaArray* a = find_array(array);
        pos.x *= a->element_bytes;
        if (pos.x + out.extent.width > a->pitch || pos.y + out.extent.height > a->rows ||
            pos.z + out.extent.depth > a->slices)
            return false;
        ptr = {a->memory, a->pitch, a->pitch, a->rows};
        return true;
    };
    out.srcArray = out.dstArray = nullptr;
    if (!side(in.srcArray, out.srcPos, out.srcPtr) || !side(in.dstArray, out.dstPos, out.dstPtr))
        return error = record(cudaErrorInvalidValue), true;
    error = cudaSuccess;
    return true;
}

extern "C" {

cudaError_t cudaMallocArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, size_t width, size_t height,
                            unsigned flags) {
    if (flags & (cudaArrayLayered | cudaArrayCubemap)) return record(cudaErrorInvalidValue);
    return make_array(array, desc, {width, height, 0}, flags);
}

cudaError_t cudaMalloc3DArray(cudaArray_t* array, const cudaChannelFormatDesc* desc, cudaExtent extent,
                              unsigned flags) {
    return make_array(array, desc, extent, flags);
}

cudaError_t cudaFreeArray(cudaArray_t array) {
    if (!array) return cudaSuccess;
    {
        std::lock_guard<std::mutex> lock(arrays_mutex());
        if (!live_arrays().erase(array)) return record(cudaErrorInvalidResourceHandle);
    }
    cudaError_t e = cudaFree(array->memory);
    array->magic = 0;
    delete array;
    return e;
}

cudaError_t cudaArrayGetInfo(cudaChannelFormatDesc* desc, cudaExtent* extent, unsigned* flags, cudaArray_t array) {
    cudaArray* a = find_array(array);
    if (!a) return record(cudaErrorInvalidResourceHandle);
    if (desc) *desc = a->desc;
    if (extent) *extent = a->extent;
    if (flags) *flags = a->flags;
    return cudaSuccess;
}

cudaError_t cudaGetChannelDesc(cudaChannelFormatDesc* desc, cudaArray_const_t array) {
    cudaArray* a = find_array(array);
    if (!a) return record(cudaErrorInvalidResourceHandle);
    if (!desc) return record(cudaErrorInvalidValue);
    *desc = a->desc;
    return cudaSuccess;
}

cudaError_t cudaMemcpy2DToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t spitch,
                                     size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t stream) {
    char* at = nullptr;
    size_t pitch = 0;
    if (cudaError_t e = array_at(dst, w_offset, h_offset, width, height, at, pitch); e != cudaSuccess) return e;
    return cudaMemcpy2DAsync(at, pitch, src, spitch, width, height, kind, stream);
}

cudaError_t cudaMemcpy2DToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t spitch,
                                size_t width, size_t height, cudaMemcpyKind kind) {
    return synchronized(cudaMemcpy2DToArrayAsync(dst, w_offset, h_offset, src, spitch, width, height, kind, nullptr),
                        nullptr);
}

cudaError_t cudaMemcpy2DFromArrayAsync(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset,
                                       size_t h_offset, size_t width, size_t height, cudaMemcpyKind kind,
                                       cudaStream_t stream) {
    char* at = nullptr;
    size_t pitch = 0;
    if (cudaError_t e = array_at(src, w_offset, h_offset, width, height, at, pitch); e != cudaSuccess) return e;
    return cudaMemcpy2DAsync(dst, dpitch, at, pitch, width, height, kind, stream);
}

cudaError_t cudaMemcpy2DFromArray(void* dst, size_t dpitch, cudaArray_const_t src, size_t w_offset, size_t h_offset,
                                  size_t width, size_t height, cudaMemcpyKind kind) {
    return synchronized(cudaMemcpy2DFromArrayAsync(dst, dpitch, src, w_offset, h_offset, width, height, kind, nullptr),
                        nullptr);
}

cudaError_t cudaMemcpy2DArrayToArray(cudaArray_t dst, size_t w_dst, size_t h_dst, cudaArray_const_t src, size_t w_src,
                                     size_t h_src, size_t width, size_t height, cudaMemcpyKind kind) {
    char *to = nullptr, *from = nullptr;
    size_t dpitch = 0, spitch = 0;
    if (cudaError_t e = array_at(dst, w_dst, h_dst, width, height, to, dpitch); e != cudaSuccess) return e;
    if (cudaError_t e = array_at(src, w_src, h_src, width, height, from, spitch); e != cudaSuccess) return e;
    if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) return record(cudaErrorInvalidMemcpyDirection);
    return synchronized(cudaMemcpy2DAsync(to, dpitch, from, spitch, width, height, kind, nullptr), nullptr);
}

cudaError_t cudaMemcpyToArrayAsync(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t count,
                                   cudaMemcpyKind kind, cudaStream_t stream) {
    char* at = nullptr;
    if (cudaError_t e = array_run(dst, w_offset, h_offset, count, at); e != cudaSuccess) return e;
    return cudaMemcpyAsync(at, src, count, kind, stream);
}

cudaError_t cudaMemcpyToArray(cudaArray_t dst, size_t w_offset, size_t h_offset, const void* src, size_t count,
                              cudaMemcpyKind kind) {
    return synchronized(cudaMemcpyToArrayAsync(dst, w_offset, h_offset, src, count, kind, nullptr), nullptr);
}

cudaError_t cudaMemcpyFromArrayAsync(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset, size_t count,
                                     cudaMemcpyKind kind, cudaStream_t stream) {
    char* at = nullptr;
    if (cudaError_t e = array_run(src, w_offset, h_offset, count, at); e != cudaSuccess) return e;
    return cudaMemcpyAsync(dst, at, count, kind, stream);
}

cudaError_t cudaMemcpyFromArray(void* dst, cudaArray_const_t src, size_t w_offset, size_t h_offset, size_t count,
                                cudaMemcpyKind kind) {
    return synchronized(cudaMemcpyFromArrayAsync(dst, src, w_offset, h_offset, count, kind, nullptr), nullptr);
}

cudaError_t cudaMemcpyArrayToArray(cudaArray_t dst, size_t w_dst, size_t h_dst, cudaArray_const_t src, size_t w_src,
                                   size_t h_src, size_t count, cudaMemcpyKind kind) {
    char *to = nullptr, *from = nullptr;
    if (cudaError_t e = array_run(dst, w_dst, h_dst, count, to); e != cudaSuccess) return e;
    if (cudaError_t e = array_run(src, w_src, h_src, count, from); e != cudaSuccess) return e;
    if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) return record(cudaErrorInvalidMemcpyDirection);
    return synchronized(cudaMemcpyAsync(to, from, count, kind, nullptr), nullptr);
}

// Per-thread default stream forms.
cudaError_t cudaMemcpy2DToArrayAsync_ptsz(cudaArray_t dst, size_t w, size_t h, const void* src, size_t spitch,
                                          size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t s) {
    return cudaMemcpy2DToArrayAsync(dst, w, h, src, spitch, width, height, kind, per_thread_if_null(s));
}
cudaError_t cudaMemcpy2DToArray_ptds(cudaArray_t dst, size_t w, size_t h, const void* src, size_t spitch, size_t width,
                                     size_t height, cudaMemcpyKind kind) {
    cudaStream_t s = per_thread_if_null(nullptr);
    return synchronized(cudaMemcpy2DToArrayAsync(dst, w, h, src, spitch, width, height, kind, s), s);
}
cudaError_t cudaMemcpy2DFromArrayAsync_ptsz(void* dst, size_t dpitch, cudaArray_const_t src, size_t w, size_t h,
                                            size_t width, size_t height, cudaMemcpyKind kind, cudaStream_t s) {
    return cudaMemcpy2DFromArrayAsync(dst, dpitch, src, w, h, width, height, kind, per_thread_if_null(s));
}
cudaError_t cudaMemcpy2DFromArray_ptds(void* dst, size_t dpitch, cudaArray_const_t src, size_t w, size_t h,
                                       size_t width, size_t height, cudaMemcpyKind kind) {
    cudaStream_t s = per_thread_if_null(nullptr);
    return synchronized(cudaMemcpy2DFromArrayAsync(dst, dpitch, src, w, h, width, height, kind, s), s);
}
cudaError_t cudaMemcpy2DArrayToArray_ptds(cudaArray_t dst, size_t w_dst, size_t h_dst, cudaArray_const_t src,
                                          size_t w_src, size_t h_src, size_t width, size_t height,
                                          cudaMemcpyKind kind) {
    cudaStreamSynchronize(per_thread_if_null(nullptr));
    return cudaMemcpy2DArrayToArray(dst, w_dst, h_dst, src, w_src, h_src, width, height, kind);
}
cudaError_t cudaMemcpyToArrayAsync_ptsz(cudaArray_t dst, size_t w, size_t h, const void* src, size_t count,
                                        cudaMemcpyKind kind, cudaStream_t s) {
    return cudaMemcpyToArrayAsync(dst, w, h, src, count, kind, per_thread_if_null(s));
}
cudaError_t cudaMemcpyToArray_ptds(cudaArray_t dst, size_t w, size_t h, const void* src, size_t count,
                                   cudaMemcpyKind kind) {
    cudaStream_t s = per_thread_if_null(nullptr);
    return synchronized(cudaMemcpyToArrayAsync(dst, w, h, src, count, kind, s), s);
}
cudaError_t cudaMemcpyFromArrayAsync_ptsz(void* dst, cudaArray_const_t src, size_t w, size_t h, size_t count,
                                          cudaMemcpyKind kind, cudaStream_t s) {
    return cudaMemcpyFromArrayAsync(dst, src, w, h, count, kind, per_thread_if_null(s));
}
cudaError_t cudaMemcpyFromArray_ptds(void* dst, cudaArray_const_t src, size_t w, size_t h, size_t count,
                                     cudaMemcpyKind kind) {
    cudaStream_t s = per_thread_if_null(nullptr);
    return synchronized(cudaMemcpyFromArrayAsync(dst, src, w, h, count, kind, s), s);
}
cudaError_t cudaMemcpyArrayToArray_ptds(cudaArray_t dst, size_t w_dst, size_t h_dst, cudaArray_const_t src,
                                        size_t w_src, size_t h_src, size_t count, cudaMemcpyKind kind) {
    cudaStreamSynchronize(per_thread_if_null(nullptr));
    return cudaMemcpyArrayToArray(dst, w_dst, h_dst, src, w_src, h_src, count, kind);
}

}  // extern "C"
