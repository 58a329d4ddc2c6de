// Deterministic byte patterns for copy tests (a different stream per seed).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cudabridge::test {

inline std::vector<uint8_t> pattern(size_t size, uint64_t seed) {
    std::vector<uint8_t> v(size);
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto& b : v) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b = static_cast<uint8_t>(x >> 24);
    }
    return v;
}

}  // namespace cudabridge::test
