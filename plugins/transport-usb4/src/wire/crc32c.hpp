// CRC-32C (Castagnoli) for the tunnel packets.
//
// Why CRC-32C: it detects every odd-weight error and keeps Hamming distance 4 up to ~256 MiB,
// where the IEEE CRC-32 drops to HD 3 past 11,450 bytes; the Linux Thunderbolt driver uses it for
// control packets (drivers/thunderbolt/ctl.c, tb_crc). See docs/link-figures.md §4.1-4.2.
// Why ISA-L: ~53 GB/s on this class of machine against ~9 GB/s for a single SSE4.2 stream
// (docs/link-figures.md §4.3), so checking every packet costs a small fraction of a core.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>

namespace cudabridge::usb4 {

// Reflected generator 0x82F63B78 (normal form 0x1EDC6F41), docs/link-figures.md §4.1.
inline constexpr uint32_t kCrc32cPolyReflected = 0x82F63B78u;

// The standard CRC-32C (initial value ~0, final inversion): crc32c("123456789") == 0xE3069283.
// Chainable: crc32c(b, nb, crc32c(a, na)) == crc32c(a ++ b).
uint32_t crc32c(const void* data, size_t size, uint32_t crc = 0) noexcept;

// The same CRC in its raw register form (no inversions), for hot loops that start from
// kCrc32cRawInit and invert once at the end. Runs ISA-L's crc32_iscsi (runtime-dispatched).
inline constexpr uint32_t kCrc32cRawInit = 0xFFFFFFFFu;
uint32_t crc32c_raw(uint32_t reg, const void* data, size_t size) noexcept;

namespace detail {
// Slicing-by-4 tables, built at compile time: T[0] is the classic byte table, T[k][n] advances
// T[k-1][n] by one more zero byte.
constexpr std::array<std::array<uint32_t, 256>, 4> make_crc32c_tables() {
    std::array<std::array<uint32_t, 256>, 4> t{};
    for (uint32_t n = 0; n < 256; ++n) {
        uint32_t c = n;
        for (int b = 0; b < 8; ++b) c = (c & 1u) ? (c >> 1) ^ kCrc32cPolyReflected : c >> 1;
        t[0][n] = c;
    }
    for (size_t k = 1; k < 4; ++k)
        for (uint32_t n = 0; n < 256; ++n) t[k][n] = (t[k - 1][n] >> 8) ^ t[0][t[k - 1][n] & 0xffu];
    return t;
}
inline constexpr auto kCrc32cTables = make_crc32c_tables();
}  // namespace detail

// Folds one 32-bit word, taken as its 4 little-endian bytes, into a raw register. Used for the
// 4-byte tunnel header, where a library call would cost more than the arithmetic.
constexpr uint32_t crc32c_raw_u32le(uint32_t reg, uint32_t word) noexcept {
    const auto& t = detail::kCrc32cTables;
    reg ^= word;
    return t[3][reg & 0xffu] ^ t[2][(reg >> 8) & 0xffu] ^ t[1][(reg >> 16) & 0xffu] ^ t[0][reg >> 24];
}

}  // namespace cudabridge::usb4
