#include "copy_3d_params.hpp"

namespace cudabridge::libcuda {

namespace {

cudaArray_t as_array(CUarray a) { return reinterpret_cast<cudaArray_t>(a); }
void* as_pointer(CUdeviceptr p) { return reinterpret_cast<void*>(static_cast<uintptr_t>(p)); }

size_t element_bytes(cudaArray_t array) {
    cudaChannelFormatDesc d{};
    cudaExtent extent{};
    unsigned flags = 0;
    if (cudaArrayGetInfo(&d, &extent, &flags, array) != cudaSuccess) return 0;
    return size_t(d.x + d.y + d.z + d.w) / 8;
}

// One side of a 3D copy as the runtime describes it: an array and its position in elements, or a
// pitched pointer and its position in bytes.
void side_of(int type, const void* host, CUdeviceptr device, CUarray array, size_t x, size_t y, size_t z, size_t pitch,
             size_t height, cudaArray_t& out_array, cudaPos& pos, cudaPitchedPtr& ptr) {
    if (type == CU_MEMORYTYPE_ARRAY) {
        out_array = as_array(array);
        const size_t bytes = element_bytes(out_array);
        pos = {bytes ? x / bytes : x, y, z};
        return;
    }
    void* base = type == CU_MEMORYTYPE_HOST ? const_cast<void*>(host) : as_pointer(device);
    ptr = {base, pitch, pitch, height};
    pos = {x, y, z};
}

// The other way: an array and its position in bytes, or the pointer as a unified address (the
// driver tells host from device).
void driver_side(cudaArray_t array, const cudaPos& pos, const cudaPitchedPtr& ptr, size_t element, int& type,
                 CUarray& out_array, CUdeviceptr& device, size_t& x, size_t& pitch, size_t& height) {
    if (array) {
        type = CU_MEMORYTYPE_ARRAY;
        out_array = reinterpret_cast<CUarray>(array);
        x = pos.x * element;
        return;
    }
    type = CU_MEMORYTYPE_UNIFIED;
    device = reinterpret_cast<uintptr_t>(ptr.ptr);
    x = pos.x;
    pitch = ptr.pitch;
    height = ptr.ysize;
}

}  // namespace

std::optional<cudaMemcpy3DParms> runtime_copy(const CUDA_MEMCPY3D& c) {
    if (c.srcLOD || c.dstLOD) return std::nullopt;
    cudaMemcpy3DParms p{};
    side_of(c.srcMemoryType, c.srcHost, c.srcDevice, c.srcArray, c.srcXInBytes, c.srcY, c.srcZ, c.srcPitch, c.srcHeight,
            p.srcArray, p.srcPos, p.srcPtr);
    side_of(c.dstMemoryType, c.dstHost, c.dstDevice, c.dstArray, c.dstXInBytes, c.dstY, c.dstZ, c.dstPitch, c.dstHeight,
            p.dstArray, p.dstPos, p.dstPtr);
    const cudaArray_t array = p.srcArray ? p.srcArray : p.dstArray;
    const size_t bytes = array ? element_bytes(array) : 1;
    p.extent = {bytes ? c.WidthInBytes / bytes : c.WidthInBytes, c.Height, c.Depth};
    p.kind = cudaMemcpyDefault;
    return p;
}

CUDA_MEMCPY3D driver_copy(const cudaMemcpy3DParms& p) {
    CUDA_MEMCPY3D c{};
    const cudaArray_t array = p.srcArray ? p.srcArray : p.dstArray;
    const size_t bytes = array ? element_bytes(array) : 1;
    driver_side(p.srcArray, p.srcPos, p.srcPtr, bytes, c.srcMemoryType, c.srcArray, c.srcDevice, c.srcXInBytes,
                c.srcPitch, c.srcHeight);
    driver_side(p.dstArray, p.dstPos, p.dstPtr, bytes, c.dstMemoryType, c.dstArray, c.dstDevice, c.dstXInBytes,
                c.dstPitch, c.dstHeight);
    c.srcY = p.srcPos.y;
    c.srcZ = p.srcPos.z;
    c.dstY = p.dstPos.y;
    c.dstZ = p.dstPos.z;
    c.WidthInBytes = p.extent.width * bytes;
    c.Height = p.extent.height;
    c.Depth = p.extent.depth;
    return c;
}

}  // namespace cudabridge::libcuda
