/* Texture and surface objects in device memory.
 *
 * A CUDA texture or surface object handle (cudaTextureObject_t, cudaSurfaceObject_t) is, on a
 * simulated GPU, the device address of one cb_texture_descriptor the runtime wrote into device
 * memory. Kernels hand the handle to `tex`, `tld4`, `txq`, `suld` and `sust`; the simulated GPU
 * reads the descriptor there, as it reads any global memory, and then the texels it names.
 *
 * The resource is linear device memory: texel (x, y, z) of slice s lies at
 *   address + s * slice_pitch + y * pitch + x * element_bytes,
 * where a slice is a depth plane of a 3D resource, a layer of a layered one, or a cubemap face
 * (layer l's face f is slice 6 * l + f, faces in CUDA's order +X, -X, +Y, -Y, +Z, -Z).
 * A texel's channels follow each other, channel_bits[i] bits each (0: the channel is absent).
 *
 * The numeric values of the modes are CUDA's own (cudaTextureAddressMode, cudaTextureFilterMode,
 * cudaTextureReadMode, cudaChannelFormatKind), so a runtime copies them as they come.
 *
 * Pure C, plain data: the record starts with struct_size and only grows at its end.
 */
#ifndef CUDABRIDGE_TEXTURE_DESCRIPTOR_H
#define CUDABRIDGE_TEXTURE_DESCRIPTOR_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* "CBTX": the descriptor's magic; a handle whose bytes lack it is not a texture or surface. */
#define CB_TEXTURE_DESCRIPTOR_MAGIC 0x58544243u

/* cb_texture_descriptor.geometry: the resource's shape. */
#define CB_TEXTURE_LINEAR 0u          /* cudaResourceTypeLinear: a 1D run of texels (tex1Dfetch) */
#define CB_TEXTURE_1D 1u              /* a 1D CUDA array */
#define CB_TEXTURE_2D 2u              /* a 2D CUDA array or cudaResourceTypePitch2D */
#define CB_TEXTURE_3D 3u              /* a 3D CUDA array: depth slices */
#define CB_TEXTURE_1D_LAYERED 4u      /* layers of 1D (height 1) */
#define CB_TEXTURE_2D_LAYERED 5u      /* layers of 2D */
#define CB_TEXTURE_CUBEMAP 6u         /* six square faces */
#define CB_TEXTURE_CUBEMAP_LAYERED 7u /* layers of six faces each */

/* cb_texture_descriptor.channel_kind (cudaChannelFormatKind) */
#define CB_CHANNEL_SIGNED 0u
#define CB_CHANNEL_UNSIGNED 1u
#define CB_CHANNEL_FLOAT 2u /* 16 bits: IEEE half; 32 bits: float */

/* cb_texture_descriptor.address_mode[] (cudaTextureAddressMode) */
#define CB_ADDRESS_WRAP 0u
#define CB_ADDRESS_CLAMP 1u
#define CB_ADDRESS_MIRROR 2u
#define CB_ADDRESS_BORDER 3u

/* cb_texture_descriptor.filter_mode (cudaTextureFilterMode) */
#define CB_FILTER_POINT 0u
#define CB_FILTER_LINEAR 1u

/* cb_texture_descriptor.read_mode (cudaTextureReadMode) */
#define CB_READ_ELEMENT_TYPE 0u
#define CB_READ_NORMALIZED_FLOAT 1u

typedef struct cb_texture_descriptor {
    uint32_t struct_size; /* sizeof(cb_texture_descriptor) */
    uint32_t magic;       /* CB_TEXTURE_DESCRIPTOR_MAGIC */
    uint64_t address;     /* device address of texel (0, 0, 0) of slice 0 */
    uint64_t pitch;       /* bytes from one row to the next */
    uint64_t slice_pitch; /* bytes from one slice to the next */
    uint32_t width;       /* texels per row */
    uint32_t height;      /* rows (1 for 1D and linear resources) */
    uint32_t depth;       /* 3D: depth slices; otherwise 1 */
    uint32_t layers;      /* layered and cubemap-layered: layers; otherwise 1 */
    uint32_t geometry;    /* CB_TEXTURE_* */
    uint32_t is_surface;  /* 1: a surface object (suld/sust address bytes in x); 0: a texture */
    uint32_t channel_bits[4];
    uint32_t channel_kind;  /* CB_CHANNEL_* */
    uint32_t element_bytes; /* bytes per texel: the channels' bits together, over 8 */
    /* The texture description (textures only). */
    uint32_t address_mode[3]; /* per dimension, CB_ADDRESS_* */
    uint32_t filter_mode;     /* CB_FILTER_* */
    uint32_t read_mode;       /* CB_READ_* */
    uint32_t normalized_coords;
    uint32_t srgb;         /* 1: sRGB to linear on read (8-bit unsigned channels) */
    uint32_t reserved0;    /* 0 */
    float border_color[4]; /* CB_ADDRESS_BORDER's texel */
    uint32_t reserved[8];  /* 0 */
} cb_texture_descriptor;

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_TEXTURE_DESCRIPTOR_H */
