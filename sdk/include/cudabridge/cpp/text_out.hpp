// The string-getter contract, kept in one place: every C entry that fills a caller's char
// buffer (the host services' param_get, setting_get and get_path; the transport's and the GPU
// family's `control` replies) answers through copy_text_out. Header-only.
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

}  // namespace cudabridge::sdk

#endif  // CUDABRIDGE_CPP_TEXT_OUT_HPP
