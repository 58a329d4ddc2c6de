// Texture and surface objects. A handle is the device address of a cb_texture_descriptor
// (cudabridge/texture_descriptor.h) this library writes into device memory when the object is
// created: the resource (an array, linear memory or pitched 2D memory) and the texture
// description. The simulated GPU reads it there when a kernel's tex, tld4, txq, suld or sust
// names the handle. What the program passed is kept too, for the Get*Desc queries.
#include "errors.hpp"
#include "handles.hpp"
#include "texture_types.hpp"

#include <cudabridge/texture_descriptor.h>

#include <cstdint>
#include <map>
#include <mutex>

extern "C" {
cudaError_t cudaMalloc(void** ptr, size_t size);
cudaError_t cudaFree(void* ptr);
cudaError_t cudaMemcpy(void* dst, const void* src, size_t count, cudaMemcpyKind kind);
}

using namespace cudabridge::cudart;

namespace {

struct texture_object {
    cudaResourceDesc resource{};
    cudaTextureDesc texture{};
    cudaResourceViewDesc view{};
    bool surface = false;
};

std::mutex& objects_mutex() {
    static std::mutex m;
    return m;
}
std::map<unsigned long long, texture_object>& objects() {
    static std::map<unsigned long long, texture_object> m;
    return m;
}

void set_channels(const cudaChannelFormatDesc& c, cb_texture_descriptor& d) {
    d.channel_bits[0] = static_cast<uint32_t>(c.x);
    d.channel_bits[1] = static_cast<uint32_t>(c.y);
    d.channel_bits[2] = static_cast<uint32_t>(c.z);
    d.channel_bits[3] = static_cast<uint32_t>(c.w);
    d.channel_kind = static_cast<uint32_t>(c.f);
    d.element_bytes = static_cast<uint32_t>(channel_element_bytes(c));
}

// The descriptor's resource part.
cudaError_t describe(const cudaResourceDesc& r, bool surface, cb_texture_descriptor& d) {
    d = {};
    d.struct_size = sizeof d;
    d.magic = CB_TEXTURE_DESCRIPTOR_MAGIC;
    d.is_surface = surface ? 1 : 0;
    d.height = d.depth = d.layers = 1;
    switch (r.resType) {
    case cudaResourceTypeArray: {
        cudaArray* a = find_array(r.res.array.array);
        if (!a) return fail(cudaErrorInvalidValue, "the resource names no live CUDA array");
        set_channels(a->desc, d);
        d.address = reinterpret_cast<uintptr_t>(a->memory);
        d.pitch = a->pitch;
        d.slice_pitch = a->slice_pitch;
        d.width = static_cast<uint32_t>(a->extent.width);
        d.height = static_cast<uint32_t>(a->rows);
        if (a->flags & cudaArrayCubemap) {
            d.geometry = a->flags & cudaArrayLayered ? CB_TEXTURE_CUBEMAP_LAYERED : CB_TEXTURE_CUBEMAP;
            d.layers = static_cast<uint32_t>(a->extent.depth / 6);
        } else if (a->flags & cudaArrayLayered) {
            d.geometry = a->extent.height ? CB_TEXTURE_2D_LAYERED : CB_TEXTURE_1D_LAYERED;
            d.layers = static_cast<uint32_t>(a->extent.depth);
        } else if (a->extent.depth) {
            d.geometry = CB_TEXTURE_3D;
            d.depth = static_cast<uint32_t>(a->extent.depth);
        } else {
            d.geometry = a->extent.height ? CB_TEXTURE_2D : CB_TEXTURE_1D;
        }
        return cudaSuccess;
    }
    case cudaResourceTypeLinear:
        if (surface) return fail(cudaErrorInvalidValue, "a surface object needs a CUDA array");
        if (!r.res.linear.devPtr) return record(cudaErrorInvalidValue);
        set_channels(r.res.linear.desc, d);
        if (!d.element_bytes) return fail(cudaErrorInvalidChannelDescriptor, "an unsupported channel format");
        d.geometry = CB_TEXTURE_LINEAR;
        d.address = reinterpret_cast<uintptr_t>(r.res.linear.devPtr);
        d.width = static_cast<uint32_t>(r.res.linear.sizeInBytes / d.element_bytes);
        d.pitch = d.slice_pitch = r.res.linear.sizeInBytes;
        return cudaSuccess;
    case cudaResourceTypePitch2D:
        if (surface) return fail(cudaErrorInvalidValue, "a surface object needs a CUDA array");
        if (!r.res.pitch2D.devPtr) return record(cudaErrorInvalidValue);
        set_channels(r.res.pitch2D.desc, d);
        if (!d.element_bytes) return fail(cudaErrorInvalidChannelDescriptor, "an unsupported channel format");
        if (r.res.pitch2D.pitchInBytes < r.res.pitch2D.width * d.element_bytes)
            return record(cudaErrorInvalidPitchValue);
        d.geometry = CB_TEXTURE_2D;
        d.address = reinterpret_cast<uintptr_t>(r.res.pitch2D.devPtr);
        d.width = static_cast<uint32_t>(r.res.pitch2D.width);
        d.height = static_cast<uint32_t>(r.res.pitch2D.height);
        d.pitch = r.res.pitch2D.pitchInBytes;
        d.slice_pitch = d.pitch * d.height;
        return cudaSuccess;
    case cudaResourceTypeMipmappedArray:
        return not_supported("cudaCreateTextureObject (mipmapped arrays)");
    default:
        return record(cudaErrorInvalidValue);
    }
}

// The descriptor is the simulated GPU's format; a real GPU's kernels need the driver's own texture
// objects, which this library does not create yet.
bool simulated_device() {
    int device = 0;
    cbDeviceProp prop{};
    const bool simulated =
        cbGetDevice(&device) == cbSuccess && cbGetDeviceProperties(&prop, device) == cbSuccess && prop.isSimulated;
    (void)cbGetLastError();
    return simulated;
}

cudaError_t create(unsigned long long* handle, const cudaResourceDesc* resource, const cudaTextureDesc* texture,
                   const cudaResourceViewDesc* view, bool surface) {
    if (!handle || !resource || (!surface && !texture)) return record(cudaErrorInvalidValue);
    if (!simulated_device())
        return not_supported(surface ? "cudaCreateSurfaceObject on a real GPU"
                                     : "cudaCreateTextureObject on a real GPU");
    cb_texture_descriptor d;
    if (cudaError_t e = describe(*resource, surface, d); e != cudaSuccess) return e;
    if (texture) {
        for (int i = 0; i < 3; ++i) {
            if (texture->addressMode[i] < 0 || texture->addressMode[i] > 3) return record(cudaErrorInvalidValue);
            d.address_mode[i] = static_cast<uint32_t>(texture->addressMode[i]);
        }
        if (texture->filterMode < 0 || texture->filterMode > 1 || texture->readMode < 0 || texture->readMode > 1)
            return record(cudaErrorInvalidValue);
        d.filter_mode = static_cast<uint32_t>(texture->filterMode);
        d.read_mode = static_cast<uint32_t>(texture->readMode);
        d.normalized_coords = texture->normalizedCoords ? 1 : 0;
        d.srgb = texture->sRGB ? 1 : 0;
        for (int i = 0; i < 4; ++i) d.border_color[i] = texture->borderColor[i];
        // Linear filtering of integers read as integers samples the nearest texel (the
        // simulated GPU filters float results only).
    }
    void* memory = nullptr;
    if (cudaError_t e = cudaMalloc(&memory, sizeof d); e != cudaSuccess) return e;
    if (cudaError_t e = cudaMemcpy(memory, &d, sizeof d, cudaMemcpyHostToDevice); e != cudaSuccess) {
        cudaFree(memory);
        return e;
    }
    texture_object o;
    o.resource = *resource;
    if (texture) o.texture = *texture;
    if (view) o.view = *view;
    o.surface = surface;
    *handle = reinterpret_cast<uintptr_t>(memory);
    std::lock_guard<std::mutex> lock(objects_mutex());
    objects()[*handle] = o;
    return cudaSuccess;
}

cudaError_t destroy(unsigned long long handle, bool surface) {
    if (!handle) return cudaSuccess;
    {
        std::lock_guard<std::mutex> lock(objects_mutex());
        auto it = objects().find(handle);
        if (it == objects().end() || it->second.surface != surface) return record(cudaErrorInvalidValue);
        objects().erase(it);
    }
    return cudaFree(reinterpret_cast<void*>(static_cast<uintptr_t>(handle)));
}

cudaError_t find(unsigned long long handle, bool surface, texture_object& out) {
    std::lock_guard<std::mutex> lock(objects_mutex());
    auto it = objects().find(handle);
    if (it == objects().end() || it->second.surface != surface) return record(cudaErrorInvalidValue);
    out = it->second;
    return cudaSuccess;
}

}  // namespace

extern "C" {

cudaError_t cudaCreateTextureObject(cudaTextureObject_t* object, const cudaResourceDesc* resource,
                                    const cudaTextureDesc* texture, const cudaResourceViewDesc* view) {
    return create(object, resource, texture, view, false);
}

cudaError_t cudaDestroyTextureObject(cudaTextureObject_t object) { return destroy(object, false); }

cudaError_t cudaGetTextureObjectResourceDesc(cudaResourceDesc* resource, cudaTextureObject_t object) {
    texture_object o;
    if (!resource) return record(cudaErrorInvalidValue);
    if (cudaError_t e = find(object, false, o); e != cudaSuccess) return e;
    *resource = o.resource;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectTextureDesc(cudaTextureDesc* texture, cudaTextureObject_t object) {
    texture_object o;
    if (!texture) return record(cudaErrorInvalidValue);
    if (cudaError_t e = find(object, false, o); e != cudaSuccess) return e;
    *texture = o.texture;
    return cudaSuccess;
}

cudaError_t cudaGetTextureObjectResourceViewDesc(cudaResourceViewDesc* view, cudaTextureObject_t object) {
    texture_object o;
    if (!view) return record(cudaErrorInvalidValue);
    if (cudaError_t e = find(object, false, o); e != cudaSuccess) return e;
    *view = o.view;
    return cudaSuccess;
}

cudaError_t cudaCreateSurfaceObject(cudaSurfaceObject_t* object, const cudaResourceDesc* resource) {
    return create(object, resource, nullptr, nullptr, true);
}

cudaError_t cudaDestroySurfaceObject(cudaSurfaceObject_t object) { return destroy(object, true); }

cudaError_t cudaGetSurfaceObjectResourceDesc(cudaResourceDesc* resource, cudaSurfaceObject_t object) {
    texture_object o;
    if (!resource) return record(cudaErrorInvalidValue);
    if (cudaError_t e = find(object, true, o); e != cudaSuccess) return e;
    *resource = o.resource;
    return cudaSuccess;
}

}  // extern "C"
