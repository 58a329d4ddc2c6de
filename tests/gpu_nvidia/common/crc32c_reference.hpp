// An independent CRC-32C for the tests: the Castagnoli polynomial 0x1EDC6F41 processed MSB-first
// on bit-reversed bytes (the textbook non-reflected form), so it shares no code and no table with
// ISA-L or the plugin's reflected bitwise loop. Slow; tests keep its inputs to a few MiB.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cb_test {

inline uint8_t reverse_bits8(uint8_t b) {
    uint8_t r = 0;
    for (int i = 0; i < 8; ++i) r = static_cast<uint8_t>(r | (((b >> i) & 1u) << (7 - i)));
    return r;
}

inline uint32_t reverse_bits32(uint32_t v) {
    uint32_t r = 0;
    for (int i = 0; i < 32; ++i) r |= ((v >> i) & 1u) << (31 - i);
    return r;
}

// The standard CRC-32C (init 0xFFFFFFFF, reflected in and out, final xor 0xFFFFFFFF).
inline uint32_t crc32c_reference(const uint8_t* data, size_t n) {
    uint32_t reg = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; ++i) {
        reg ^= static_cast<uint32_t>(reverse_bits8(data[i])) << 24;
        for (int bit = 0; bit < 8; ++bit) reg = (reg & 0x80000000u) ? (reg << 1) ^ 0x1EDC6F41u : reg << 1;
    }
    return reverse_bits32(reg) ^ 0xFFFFFFFFu;
}

// What the built-in returns: one CRC per chunk, as int64.
inline std::vector<int64_t> crc32c_chunks_reference(const std::vector<uint8_t>& data, int64_t chunk) {
    std::vector<int64_t> out;
    for (size_t first = 0; first < data.size(); first += static_cast<size_t>(chunk)) {
        const size_t length = std::min(data.size() - first, static_cast<size_t>(chunk));
        out.push_back(static_cast<int64_t>(crc32c_reference(data.data() + first, length)));
    }
    return out;
}

// Deterministic bytes (a 64-bit LCG's high byte).
inline std::vector<uint8_t> test_bytes(size_t n, uint64_t seed) {
    std::vector<uint8_t> v(n);
    uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
    for (auto& b : v) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        b = static_cast<uint8_t>(x >> 56);
    }
    return v;
}

}  // namespace cb_test
