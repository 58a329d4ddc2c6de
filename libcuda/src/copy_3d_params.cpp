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
    if (p.srcArray) {
        c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
        c.srcArray = reinterpret_cast<CUarray>(p.srcArray);
        c.srcXInBytes = p.srcPos.x * bytes;
    } else {
        c.srcMemoryType = CU_MEMORYTYPE_UNIFIED;
        c.srcDevice = reinterpret_cast<uintptr_t>(p.srcPtr.ptr);
        c.srcXInBytes = p.srcPos.x;
        c.srcPitch = p.srcPtr.pitch;
        c.srcHeight = p.srcPtr.ysize;
    }
    if (p.dstArray) {
        c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
        c.dstArray = reinterpret_cast<CUarray>(p.dstArray);
        c.dstXInBytes = p.dstPos.x * bytes;
    } else {
        c.dstMemoryType = CU_MEMORYTYPE_UNIFIED;
        c.dstDevice = reinterpret_cast<uintptr_t>(p.dstPtr.ptr);
        c.dstXInBytes = p.dstPos.x;
        c.dstPitch = p.dstPtr.pitch;
        c.dstHeight = p.dstPtr.ysize;
    }
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
