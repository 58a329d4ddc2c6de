// Device body of the built-in crc32c: one thread per chunk (grid stride), each running the shared
// bitwise CRC-32C (kernels/crc32c_bitwise.hpp) over its bytes. Slow per byte but simple and exact;
// the CPU engine's ISA-L path is the reference it must match.
#pragma once

#include "nvidia_driver/cuda_kernels/nd_index.cuh"
#include "common/kernels/crc32c_bitwise.hpp"

namespace cudabridge::nv::cuda_kernels {

__device__ inline void crc32c_body(std::uint64_t in, std::int64_t n, std::int64_t chunk, std::int64_t chunks,
                                   std::uint64_t out) {
    namespace fn = cudabridge::nv::kernels::fn;
    const std::uint8_t* data = device_ptr<const std::uint8_t>(in);
    std::int64_t* result = device_ptr<std::int64_t>(out);
    for (std::int64_t i = first_index(); i < chunks; i += grid_stride()) {
        const std::int64_t first = i * chunk;
        const std::int64_t length = n - first < chunk ? n - first : chunk;
        result[i] = static_cast<std::int64_t>(~fn::crc32c_raw(0xFFFFFFFFu, data + first, length));
    }
}

}  // namespace cudabridge::nv::cuda_kernels
