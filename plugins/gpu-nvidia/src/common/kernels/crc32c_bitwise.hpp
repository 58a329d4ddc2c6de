// CRC-32C (Castagnoli, reflected polynomial 0x82F63B78) one bit at a time, CB_NV_HD so the CUDA
// kernel of the built-in `crc32c` compiles it; the CPU engine runs ISA-L instead (crc32c.hpp).
// Works on the raw register: the standard CRC of a buffer is ~crc32c_raw(~0u, data, n).
#pragma once

#include <cstdint>

#include "common/kernels/hd.hpp"

namespace cudabridge::nv::kernels::fn {

inline constexpr std::uint32_t crc32c_polynomial_reflected = 0x82F63B78u;

CB_NV_HD inline std::uint32_t crc32c_raw(std::uint32_t reg, const std::uint8_t* data, std::int64_t n) {
    for (std::int64_t i = 0; i < n; ++i) {
        reg ^= data[i];
        for (int bit = 0; bit < 8; ++bit) reg = (reg >> 1) ^ (crc32c_polynomial_reflected & (0u - (reg & 1u)));
    }
    return reg;
}

}  // namespace cudabridge::nv::kernels::fn
