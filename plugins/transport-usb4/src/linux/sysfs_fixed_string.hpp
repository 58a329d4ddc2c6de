// Copying into the fixed char arrays of the C ABI records: always NUL-terminated, truncated at
// a UTF-8 character boundary so a cut name is still valid text.
#pragma once

#include <cstddef>
#include <cstring>
#include <string_view>

namespace cudabridge::usb4::linux_sysfs {

inline void copy_fixed(char* out, std::size_t capacity, std::string_view text) {
    if (capacity == 0) return;
    std::size_t n = text.size() < capacity - 1 ? text.size() : capacity - 1;
    // Step back over UTF-8 continuation bytes (10xxxxxx) so no character is split.
    if (n < text.size())
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xc0u) == 0x80u) --n;
    std::memcpy(out, text.data(), n);
    std::memset(out + n, 0, capacity - n);
}

template <std::size_t N>
void copy_fixed(char (&out)[N], std::string_view text) {
    copy_fixed(out, N, text);
}

}  // namespace cudabridge::usb4::linux_sysfs
