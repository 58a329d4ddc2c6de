// Text into caller buffers, kept in one place. The string-getter contract: every C entry that fills
// a caller's char buffer (the host services' param_get, setting_get and get_path; the transport's
// and the GPU family's `control` replies) answers through copy_text_out. Fixed-size char fields of
// ABI records (names, UUIDs, reasons) are filled through copy_text. Header-only.
#ifndef CUDABRIDGE_CPP_TEXT_OUT_HPP
#define CUDABRIDGE_CPP_TEXT_OUT_HPP

#include <cudabridge/abi.h>

#include <cstddef>
#include <cstring>
#include <string_view>

namespace cudabridge::sdk {

// Copies `text` into the caller's buffer `buf` of `size` bytes:
//   - *needed, when `needed` is not NULL, receives the full length plus one (the terminator);
//   - a NULL `buf` or a zero `size` writes nothing: the caller asks for the length only, or
//     (for `control`) wants the request carried out and no reply;
//   - otherwise at most `size` bytes are written, the terminator included: text that does not
//     fit is cut and still terminated;
//   - it returns CB_OK in every case; a caller sees a cut by comparing *needed with `size`.
inline cb_status copy_text_out(std::string_view text, char* buf, std::size_t size, std::size_t* needed) noexcept {
    if (needed != nullptr) *needed = text.size() + 1;
    if (buf == nullptr || size == 0) return CB_OK;
    const std::size_t n = text.size() < size - 1 ? text.size() : size - 1;
    if (n > 0) std::memcpy(buf, text.data(), n);
    buf[n] = '\0';
    return CB_OK;
}

// Copies `text` into the fixed field `out` of `size` bytes, always terminated. Text that does not
// fit is cut before the UTF-8 character it would split ("°C" never becomes a lone lead byte a
// reader would choke on). A NULL `out` or a zero `size` writes nothing.
inline void copy_text(std::string_view text, char* out, std::size_t size) noexcept {
    if (out == nullptr || size == 0) return;
    std::size_t n = text.size() < size - 1 ? text.size() : size - 1;
    if (n < text.size()) {
        // Step back over continuation bytes (10xxxxxx) so the cut lands before a lead byte.
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0u) == 0x80u) --n;
    }
    if (n > 0) std::memcpy(out, text.data(), n);
    out[n] = '\0';
}

// The same for a char array field, its size taken from its type.
template <std::size_t N>
void copy_text(char (&out)[N], std::string_view text) noexcept {
    copy_text(text, out, N);
}

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_TEXT_OUT_HPP
