#include "wire/crc32c.hpp"

#include "wire/crc32c_isal.hpp"

#include <algorithm>

namespace cudabridge::usb4 {

uint32_t crc32c_raw(uint32_t reg, const void* data, size_t size) noexcept {
    // ISA-L takes an int length: feed it in slices.
    constexpr size_t kMaxSlice = size_t{1} << 30;
    const auto* p = static_cast<const unsigned char*>(data);
    while (size > 0) {
        const size_t n = std::min(size, kMaxSlice);
        reg = detail::isal_crc32c_raw(reg, p, static_cast<int>(n));
        p += n;
        size -= n;
    }
    return reg;
}

uint32_t crc32c(const void* data, size_t size, uint32_t crc) noexcept { return ~crc32c_raw(~crc, data, size); }

}  // namespace cudabridge::usb4
