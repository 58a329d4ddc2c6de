// CUDA arrays, 2D copies, pitched memory, texture and surface objects through the driver API:
// the driver's descriptors translated to the runtime's (formats to channel descriptions, texture
// flags to the runtime's fields), over the same arrays and objects.
#include "contexts.hpp"
#include "results.hpp"
#include "runtime_calls.hpp"
#include "texture_types.hpp"

#include <cstring>

using namespace cudabridge::libcuda;

namespace {

cudaArray_t as_array(CUarray a) { return reinterpret_cast<cudaArray_t>(a); }

// An element of `channels` channels of an array format, as the runtime describes it.
bool channel_format(CUarray_format format, unsigned channels, cudaChannelFormatDesc& out) {
    int bits = 0, kind = 0;
    switch (format) {
    case CU_AD_FORMAT_UNSIGNED_INT8:
        bits = 8, kind = cudaChannelFormatKindUnsigned;
        break;
    case CU_AD_FORMAT_UNSIGNED_INT16:
        bits = 16, kind = cudaChannelFormatKindUnsigned;
        break;
    case CU_AD_FORMAT_UNSIGNED_INT32:
        bits = 32, kind = cudaChannelFormatKindUnsigned;
        break;
    case CU_AD_FORMAT_SIGNED_INT8:
        bits = 8, kind = cudaChannelFormatKindSigned;
        break;
    case CU_AD_FORMAT_SIGNED_INT16:
        bits = 16, kind = cudaChannelFormatKindSigned;
        break;
    case CU_AD_FORMAT_SIGNED_INT32:
        bits = 32, kind = cudaChannelFormatKindSigned;
        break;
    case CU_AD_FORMAT_HALF:
        bits = 16, kind = cudaChannelFormatKindFloat;
        break;
    case CU_AD_FORMAT_FLOAT:
        bits = 32, kind = cudaChannelFormatKindFloat;
        break;
    default:
        return false;  // block-compressed, video and packed formats
    }
    if (channels != 1 && channels != 2 && channels != 4) return false;
    out = {bits, channels > 1 ? bits : 0, channels > 2 ? bits : 0, channels > 2 ? bits : 0, kind};
    return true;
}

void array_format(const cudaChannelFormatDesc& d, CUarray_format& format, unsigned& channels) {
    channels = 1 + (d.y > 0) + (d.z > 0) + (d.w > 0);
    const bool is_float = d.f == cudaChannelFormatKindFloat, is_signed = d.f == cudaChannelFormatKindSigned;
    if (is_float)
        format = d.x == 16 ? CU_AD_FORMAT_HALF : CU_AD_FORMAT_FLOAT;
    else if (d.x == 8)
        format = is_signed ? CU_AD_FORMAT_SIGNED_INT8 : CU_AD_FORMAT_UNSIGNED_INT8;
    else if (d.x == 16)
        format = is_signed ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT16;
    else
        format = is_signed ? CU_AD_FORMAT_SIGNED_INT32 : CU_AD_FORMAT_UNSIGNED_INT32;
}

CUresult unsupported_format(const char* function) {
    return fail(CUDA_ERROR_NOT_SUPPORTED, std::string(function) +
                                              ": only 8/16/32-bit integer, half and float formats of 1, 2 or 4 "
                                              "channels are offered");
}

// Where one side of a 2D copy starts, for a linear side.
const char* linear_start(int type, const void* host, CUdeviceptr device, size_t x, size_t y, size_t pitch) {
    const char* base = type == CU_MEMORYTYPE_HOST ? static_cast<const char*>(host)
                                                  : reinterpret_cast<const char*>(static_cast<uintptr_t>(device));
    return base + y * pitch + x;
}

CUresult copy_2d(const CUDA_MEMCPY2D* c, CUstream stream) {
    if (!c) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    const auto s = reinterpret_cast<cudaStream_t>(stream);
    const bool src_array = c->srcMemoryType == CU_MEMORYTYPE_ARRAY, dst_array = c->dstMemoryType == CU_MEMORYTYPE_ARRAY;
    const char* src =
        src_array ? nullptr
                  : linear_start(c->srcMemoryType, c->srcHost, c->srcDevice, c->srcXInBytes, c->srcY, c->srcPitch);
    char* dst = dst_array ? nullptr
                          : const_cast<char*>(linear_start(c->dstMemoryType, c->dstHost, c->dstDevice, c->dstXInBytes,
                                                           c->dstY, c->dstPitch));
    cudaError_t e = cudaSuccess;
    if (src_array && dst_array)
        e = cudaMemcpy2DArrayToArray(as_array(c->dstArray), c->dstXInBytes, c->dstY, as_array(c->srcArray),
                                     c->srcXInBytes, c->srcY, c->WidthInBytes, c->Height, cudaMemcpyDefault);
    else if (dst_array)
        e = cudaMemcpy2DToArrayAsync(as_array(c->dstArray), c->dstXInBytes, c->dstY, src, c->srcPitch, c->WidthInBytes,
                                     c->Height, cudaMemcpyDefault, s);
    else if (src_array)
        e = cudaMemcpy2DFromArrayAsync(dst, c->dstPitch, as_array(c->srcArray), c->srcXInBytes, c->srcY,
                                       c->WidthInBytes, c->Height, cudaMemcpyDefault, s);
    else
        e = cudaMemcpy2DAsync(dst, c->dstPitch, src, c->srcPitch, c->WidthInBytes, c->Height, cudaMemcpyDefault, s);
    return from_runtime(e);
}

// The driver's resource description as the runtime's.
CUresult runtime_resource(const CUDA_RESOURCE_DESC& in, cudaResourceDesc& out, const char* function) {
    out = cudaResourceDesc{};
    out.resType = in.resType;
    switch (in.resType) {
    case CU_RESOURCE_TYPE_ARRAY:
        out.res.array.array = as_array(in.res.array.hArray);
        return CUDA_SUCCESS;
    case CU_RESOURCE_TYPE_LINEAR:
        if (!channel_format(in.res.linear.format, in.res.linear.numChannels, out.res.linear.desc))
            return unsupported_format(function);
        out.res.linear.devPtr = reinterpret_cast<void*>(static_cast<uintptr_t>(in.res.linear.devPtr));
        out.res.linear.sizeInBytes = in.res.linear.sizeInBytes;
        return CUDA_SUCCESS;
    case CU_RESOURCE_TYPE_PITCH2D:
        if (!channel_format(in.res.pitch2D.format, in.res.pitch2D.numChannels, out.res.pitch2D.desc))
            return unsupported_format(function);
        out.res.pitch2D.devPtr = reinterpret_cast<void*>(static_cast<uintptr_t>(in.res.pitch2D.devPtr));
        out.res.pitch2D.width = in.res.pitch2D.width;
        out.res.pitch2D.height = in.res.pitch2D.height;
        out.res.pitch2D.pitchInBytes = in.res.pitch2D.pitchInBytes;
        return CUDA_SUCCESS;
    default:
        return fail(CUDA_ERROR_NOT_SUPPORTED, std::string(function) + ": mipmapped arrays are not offered");
    }
}

// The format a texture reads: integers of 8 or 16 bits become floats in [0, 1] ([-1, 1] signed)
// unless CU_TRSF_READ_AS_INTEGER says otherwise, as the driver promotes them.
int read_mode(const cudaResourceDesc& r, unsigned flags) {
    if (flags & CU_TRSF_READ_AS_INTEGER) return 0;
    cudaChannelFormatDesc d{};
    if (r.resType == CU_RESOURCE_TYPE_ARRAY) {
        cudaExtent extent{};
        unsigned array_flags = 0;
        if (cudaArrayGetInfo(&d, &extent, &array_flags, r.res.array.array) != cudaSuccess) return 0;
    } else {
        d = r.resType == CU_RESOURCE_TYPE_LINEAR ? r.res.linear.desc : r.res.pitch2D.desc;
    }
    return d.f != cudaChannelFormatKindFloat && d.x <= 16 ? 1 : 0;
}

}  // namespace

extern "C" {

CUresult cuArrayCreate_v2(CUarray* array, const CUDA_ARRAY_DESCRIPTOR* d) {
    if (!array || !d) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaChannelFormatDesc desc{};
    if (!channel_format(d->Format, d->NumChannels, desc)) return unsupported_format("cuArrayCreate");
    cudaArray_t a = nullptr;
    if (cudaError_t e = cudaMallocArray(&a, &desc, d->Width, d->Height, 0); e != cudaSuccess) return from_runtime(e);
    *array = reinterpret_cast<CUarray>(a);
    return CUDA_SUCCESS;
}

// CUDA_ARRAY3D_* and cudaArray* flags share their bits (layered, surface load/store, cubemap,
// texture gather).
CUresult cuArray3DCreate_v2(CUarray* array, const CUDA_ARRAY3D_DESCRIPTOR* d) {
    if (!array || !d) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaChannelFormatDesc desc{};
    if (!channel_format(d->Format, d->NumChannels, desc)) return unsupported_format("cuArray3DCreate");
    cudaArray_t a = nullptr;
    if (cudaError_t e = cudaMalloc3DArray(&a, &desc, {d->Width, d->Height, d->Depth}, d->Flags); e != cudaSuccess)
        return from_runtime(e);
    *array = reinterpret_cast<CUarray>(a);
    return CUDA_SUCCESS;
}

CUresult cuArrayDestroy(CUarray array) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaFreeArray(as_array(array)));
}

CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR* d, CUarray array) {
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaChannelFormatDesc desc{};
    cudaExtent extent{};
    unsigned flags = 0;
    if (cudaError_t e = cudaArrayGetInfo(&desc, &extent, &flags, as_array(array)); e != cudaSuccess)
        return from_runtime(e);
    *d = CUDA_ARRAY3D_DESCRIPTOR{extent.width, extent.height, extent.depth, 0, 0, flags};
    array_format(desc, d->Format, d->NumChannels);
    return CUDA_SUCCESS;
}

CUresult cuArrayGetDescriptor_v2(CUDA_ARRAY_DESCRIPTOR* d, CUarray array) {
    if (!d) return CUDA_ERROR_INVALID_VALUE;
    CUDA_ARRAY3D_DESCRIPTOR d3{};
    if (CUresult r = cuArray3DGetDescriptor_v2(&d3, array); r != CUDA_SUCCESS) return r;
    *d = CUDA_ARRAY_DESCRIPTOR{d3.Width, d3.Height, d3.Format, d3.NumChannels};
    return CUDA_SUCCESS;
}

CUresult cuMemcpy2D_v2(const CUDA_MEMCPY2D* copy) {
    // Ordered with the legacy stream and complete on return, as CUDA's synchronous copy.
    if (CUresult r = copy_2d(copy, nullptr); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaStreamSynchronize(nullptr));
}
CUresult cuMemcpy2DUnaligned_v2(const CUDA_MEMCPY2D* copy) { return cuMemcpy2D_v2(copy); }
CUresult cuMemcpy2DAsync_v2(const CUDA_MEMCPY2D* copy, CUstream stream) { return copy_2d(copy, stream); }

// The element size only tunes the pitch's alignment on a GPU; the runtime's pitch serves any.
CUresult cuMemAllocPitch_v2(CUdeviceptr* ptr, size_t* pitch, size_t width_bytes, size_t height,
                            unsigned element_bytes) {
    if (!ptr || !pitch) return CUDA_ERROR_INVALID_VALUE;
    if (element_bytes != 4 && element_bytes != 8 && element_bytes != 16)
        return fail(CUDA_ERROR_INVALID_VALUE, "cuMemAllocPitch: the element size must be 4, 8 or 16 bytes");
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    void* p = nullptr;
    if (cudaError_t e = cudaMallocPitch(&p, pitch, width_bytes, height); e != cudaSuccess) return from_runtime(e);
    *ptr = reinterpret_cast<CUdeviceptr>(p);
    return CUDA_SUCCESS;
}

CUresult cuTexObjectCreate(CUtexObject* object, const CUDA_RESOURCE_DESC* resource, const CUDA_TEXTURE_DESC* texture,
                           const void* view) {
    if (!object || !resource || !texture) return CUDA_ERROR_INVALID_VALUE;
    if (view) return not_supported("cuTexObjectCreate with a resource view");
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaResourceDesc res{};
    if (CUresult r = runtime_resource(*resource, res, "cuTexObjectCreate"); r != CUDA_SUCCESS) return r;
    cudaTextureDesc tex{};
    std::memcpy(tex.addressMode, texture->addressMode, sizeof tex.addressMode);
    tex.filterMode = texture->filterMode;
    tex.readMode = read_mode(res, texture->flags);
    tex.sRGB = (texture->flags & CU_TRSF_SRGB) != 0;
    std::memcpy(tex.borderColor, texture->borderColor, sizeof tex.borderColor);
    tex.normalizedCoords = (texture->flags & CU_TRSF_NORMALIZED_COORDINATES) != 0;
    tex.maxAnisotropy = texture->maxAnisotropy;
    tex.mipmapFilterMode = texture->mipmapFilterMode;
    tex.mipmapLevelBias = texture->mipmapLevelBias;
    tex.minMipmapLevelClamp = texture->minMipmapLevelClamp;
    tex.maxMipmapLevelClamp = texture->maxMipmapLevelClamp;
    tex.disableTrilinearOptimization = (texture->flags & CU_TRSF_DISABLE_TRILINEAR_OPTIMIZATION) != 0;
    tex.seamlessCubemap = (texture->flags & CU_TRSF_SEAMLESS_CUBEMAP) != 0;
    return from_runtime(cudaCreateTextureObject(object, &res, &tex, nullptr));
}

CUresult cuTexObjectDestroy(CUtexObject object) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDestroyTextureObject(object));
}

CUresult cuSurfObjectCreate(CUsurfObject* object, const CUDA_RESOURCE_DESC* resource) {
    if (!object || !resource) return CUDA_ERROR_INVALID_VALUE;
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    cudaResourceDesc res{};
    if (CUresult r = runtime_resource(*resource, res, "cuSurfObjectCreate"); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaCreateSurfaceObject(object, &res));
}

CUresult cuSurfObjectDestroy(CUsurfObject object) {
    if (CUresult r = enter_current(); r != CUDA_SUCCESS) return r;
    return from_runtime(cudaDestroySurfaceObject(object));
}

}  // extern "C"
