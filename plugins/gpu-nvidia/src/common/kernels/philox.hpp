// Philox4x32-10 (Salmon et al., "Parallel random numbers: as easy as 1, 2, 3", SC'11; Random123).
// Counter-based: element i of a stream depends only on (seed, offset, i), so the CPU engine and a
// GPU produce the same numbers however the work is split.
#pragma once

#include <cstdint>

#include "common/kernels/hd.hpp"

namespace cudabridge::nv::kernels::philox {

struct u32x4 {
    std::uint32_t v[4];
};
struct u32x2 {
    std::uint32_t v[2];
};

inline constexpr std::uint32_t k_mul0 = 0xD2511F53u;
inline constexpr std::uint32_t k_mul1 = 0xCD9E8D57u;
inline constexpr std::uint32_t k_weyl0 = 0x9E3779B9u;
inline constexpr std::uint32_t k_weyl1 = 0xBB67AE85u;

CB_NV_HD constexpr u32x4 round(u32x4 c, u32x2 k) {
    std::uint64_t p0 = std::uint64_t(k_mul0) * c.v[0];
    std::uint64_t p1 = std::uint64_t(k_mul1) * c.v[2];
    return {{std::uint32_t(p1 >> 32) ^ c.v[1] ^ k.v[0], std::uint32_t(p1), std::uint32_t(p0 >> 32) ^ c.v[3] ^ k.v[1],
             std::uint32_t(p0)}};
}

CB_NV_HD constexpr u32x4 philox4x32_10(u32x4 c, u32x2 k) {
    for (int r = 0; r < 10; ++r) {
        if (r) k = {{k.v[0] + k_weyl0, k.v[1] + k_weyl1}};
        c = round(c, k);
    }
    return c;
}

// The stream layout of the uniform kernel: block b of stream (seed, offset) is
// philox(counter = {lo(b), hi(b), lo(offset), hi(offset)}, key = {lo(seed), hi(seed)}).
// float32 element i uses word i%4 of block i/4; float64 element i uses words 2(i%2), 2(i%2)+1
// of block i/2.
CB_NV_HD constexpr u32x4 block(std::uint64_t seed, std::uint64_t offset, std::uint64_t b) {
    return philox4x32_10(
        {{std::uint32_t(b), std::uint32_t(b >> 32), std::uint32_t(offset), std::uint32_t(offset >> 32)}},
        {{std::uint32_t(seed), std::uint32_t(seed >> 32)}});
}

// [0,1) with all 24 / 53 mantissa bits random.
CB_NV_HD constexpr float to_float(std::uint32_t x) { return float(x >> 8) * (1.0f / 16777216.0f); }
CB_NV_HD constexpr double to_double(std::uint32_t hi, std::uint32_t lo) {
    return double(((std::uint64_t(hi) << 32) | lo) >> 11) * (1.0 / 9007199254740992.0);
}

}  // namespace cudabridge::nv::kernels::philox
