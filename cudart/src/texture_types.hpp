// CUDA arrays, texture objects and surface objects as programs built by nvcc see them: the types
// of CUDA 13's driver_types.h, texture_types.h and surface_types.h that cross this library's
// boundary (layouts and values are CUDA's own), and what the library keeps for each array.
#pragma once

#include "cuda_types.hpp"

#include <cstddef>
#include <cstdint>

extern "C" {

typedef int cudaChannelFormatKind;
enum : int {
    cudaChannelFormatKindSigned = 0,
    cudaChannelFormatKindUnsigned = 1,
    cudaChannelFormatKindFloat = 2,
    cudaChannelFormatKindNone = 3
};
struct cudaChannelFormatDesc {
    int x, y, z, w;
    cudaChannelFormatKind f;
};
static_assert(sizeof(cudaChannelFormatDesc) == 20);

typedef const struct cudaArray* cudaArray_const_t;
typedef struct cudaMipmappedArray* cudaMipmappedArray_t;
typedef unsigned long long cudaTextureObject_t;
typedef unsigned long long cudaSurfaceObject_t;

// cudaMalloc3DArray's flags.
inline constexpr unsigned cudaArrayLayered = 0x01, cudaArraySurfaceLoadStore = 0x02, cudaArrayCubemap = 0x04,
                          cudaArrayTextureGather = 0x08;

typedef int cudaResourceType;
enum : int {
    cudaResourceTypeArray = 0,
    cudaResourceTypeMipmappedArray = 1,
    cudaResourceTypeLinear = 2,
    cudaResourceTypePitch2D = 3
};

struct cudaResourceDesc {
    cudaResourceType resType;
    union {
        struct {
            cudaArray_t array;
        } array;
        struct {
            cudaMipmappedArray_t mipmap;
        } mipmap;
        struct {
            void* devPtr;
            cudaChannelFormatDesc desc;
            size_t sizeInBytes;
        } linear;
        struct {
            void* devPtr;
            cudaChannelFormatDesc desc;
            size_t width;
            size_t height;
            size_t pitchInBytes;
        } pitch2D;
        struct {
            int reserved[32];
        } reserved;
    } res;
    unsigned int flags;
};
static_assert(sizeof(cudaResourceDesc) == 144);

struct cudaResourceViewDesc {
    int format;
    size_t width, height, depth;
    unsigned int firstMipmapLevel, lastMipmapLevel, firstLayer, lastLayer;
    unsigned int reserved[16];
};
static_assert(sizeof(cudaResourceViewDesc) == 112);

typedef int cudaTextureAddressMode;  // wrap 0, clamp 1, mirror 2, border 3
typedef int cudaTextureFilterMode;   // point 0, linear 1
typedef int cudaTextureReadMode;     // element type 0, normalized float 1
struct cudaTextureDesc {
    cudaTextureAddressMode addressMode[3];
    cudaTextureFilterMode filterMode;
    cudaTextureReadMode readMode;
    int sRGB;
    float borderColor[4];
    int normalizedCoords;
    unsigned int maxAnisotropy;
    cudaTextureFilterMode mipmapFilterMode;
    float mipmapLevelBias;
    float minMipmapLevelClamp;
    float maxMipmapLevelClamp;
    int disableTrilinearOptimization;
    int seamlessCubemap;
};
static_assert(sizeof(cudaTextureDesc) == 72);

}  // extern "C"

// A CUDA array (what cudaArray_t points at): linear device memory the library owns, rows of
// `width` elements one after another, `height` rows per slice (1 for 1D), slices for a 3D
// array's depth, a layered array's layers and a cubemap's faces.
struct cudaArray {
    uint32_t magic;
    cudaChannelFormatDesc desc;
    cudaExtent extent;  // as the program gave it (height 0: 1D; depth 0: not 3D)
    unsigned flags;
    int device;
    char* memory;
    size_t element_bytes, pitch, rows, slices, slice_pitch;
};

namespace cudabridge::cudart {

inline constexpr uint32_t array_magic = 0x41524243;  // "CBRA"

inline constexpr cudaError_t cudaErrorInvalidChannelDescriptor = 20;

// The live array `a` names, or nullptr.
cudaArray* find_array(const void* a);

// Bytes per element of a channel description; 0 when the library does not offer it.
size_t channel_element_bytes(const cudaChannelFormatDesc& d);

// A cudaMemcpy3D that names arrays as one between pitched pointers: false when it names none;
// otherwise true, with `error` set when an array is unknown or the extent does not fit it.
bool array_copy_parms(const cudaMemcpy3DParms& in, cudaMemcpy3DParms& out, cudaError_t& error);

}  // namespace cudabridge::cudart
