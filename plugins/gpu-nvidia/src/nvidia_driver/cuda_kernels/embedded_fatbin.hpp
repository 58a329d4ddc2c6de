// The built-in kernels' fatbin, compiled by nvcc at build time and embedded in the library as a
// byte array; the kernel-driver backend hands it to cuModuleLoadData when it opens a device.
// Built without the CUDA toolkit, the image is empty.
#pragma once

#include <cstddef>
#include <cstdint>

namespace cudabridge::nv::cuda_kernels {

struct embedded_image {
    const unsigned char* data = nullptr;
    std::size_t size = 0;  // 0: built without the CUDA toolkit
};

// The first four bytes of a fatbin (little-endian), as fatbinary_section.h defines FATBIN_MAGIC.
inline constexpr std::uint32_t k_fatbin_magic = 0xBA55ED50u;

embedded_image builtin_fatbin();

}  // namespace cudabridge::nv::cuda_kernels
