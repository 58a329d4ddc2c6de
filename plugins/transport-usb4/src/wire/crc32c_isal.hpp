// Internal: the one ISA-L call behind every CRC-32C here, inline so the per-packet path (a
// 256-byte call, where fixed costs matter) pays no extra call or slicing loop. Measured: calling
// through the out-of-line wrapper cost the whole data path ~15 % of its throughput.
// Only this library's sources include it (ISA-L's header is a private dependency).
#pragma once

#include <isa-l/crc.h>

#include <cstdint>

namespace cudabridge::usb4::detail {

// Continues a raw CRC-32C register over up to INT_MAX bytes. ISA-L's crc32_iscsi returns the raw
// register: the standard value is ~crc32_iscsi(buf, len, ~crc) (docs/link-figures.md §4.3). It takes a
// non-const pointer but only reads.
inline uint32_t isal_crc32c_raw(uint32_t reg, const unsigned char* data, int len) noexcept {
    return crc32_iscsi(const_cast<unsigned char*>(data), len, reg);
}

}  // namespace cudabridge::usb4::detail
