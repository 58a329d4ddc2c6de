// Numbers in hexadecimal as people read them in messages and reports: addresses, PCI ids,
// bitmasks. Header-only.
#ifndef CUDABRIDGE_CPP_HEX_TEXT_HPP
#define CUDABRIDGE_CPP_HEX_TEXT_HPP

#include <cstdint>
#include <cstdio>
#include <string>

namespace cudabridge::sdk {

// "0x" and `value` in lower-case hex, zero-padded to at least `min_digits` digits (clamped to
// 1..16): hex_text(0x10de, 4) is "0x10de", hex_text(4, 4) "0x0004", hex_text(0) "0x0".
inline std::string hex_text(std::uint64_t value, int min_digits = 1) {
    const int digits = min_digits < 1 ? 1 : min_digits > 16 ? 16 : min_digits;
    char buf[24];
    std::snprintf(buf, sizeof buf, "0x%0*llx", digits, static_cast<unsigned long long>(value));
    return buf;
}

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_HEX_TEXT_HPP
