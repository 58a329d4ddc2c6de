#include "element_fill.hpp"

#include <algorithm>
#include <cstring>
#include <vector>

extern "C" {
cudaError_t cudaMemset2DAsync(void* ptr, size_t pitch, int value, size_t width, size_t height, cudaStream_t stream);
cudaError_t cudaMemcpyAsync(void* dst, const void* src, size_t count, cudaMemcpyKind kind, cudaStream_t stream);
}

namespace cudabridge::cudart {

namespace {

// The row's bytes from a host buffer of the repeated element, in pieces of at most 4 MiB. A copy
// from pageable memory has taken its bytes when it returns, so the buffer may go at once.
cudaError_t write_pattern(char* row, const std::vector<unsigned char>& pattern, size_t bytes, cudaStream_t stream) {
    for (size_t done = 0; done < bytes; done += pattern.size()) {
        const size_t n = std::min(pattern.size(), bytes - done);
        if (cudaError_t e = cudaMemcpyAsync(row + done, pattern.data(), n, cudaMemcpyHostToDevice, stream);
            e != cudaSuccess)
            return e;
    }
    return cudaSuccess;
}

}  // namespace

cudaError_t fill_elements(void* dst, size_t pitch, unsigned value, unsigned element_size, size_t width, size_t height,
                          cudaStream_t stream) {
    if (element_size != 1 && element_size != 2 && element_size != 4) return cudaErrorInvalidValue;
    unsigned char element[4];
    std::memcpy(element, &value, sizeof element);  // little-endian: the element's low bytes first
    const size_t row_bytes = width * element_size;
    const size_t rows = std::max<size_t>(height, 1);
    const size_t stride = rows > 1 ? pitch : row_bytes;
    if (std::all_of(element, element + element_size, [&](unsigned char b) { return b == element[0]; }))
        return cudaMemset2DAsync(dst, stride, element[0], row_bytes, rows, stream);
    constexpr size_t piece = 4u << 20;
    std::vector<unsigned char> pattern(std::min(row_bytes, piece) / element_size * element_size);
    for (size_t i = 0; i < pattern.size(); ++i) pattern[i] = element[i % element_size];
    for (size_t r = 0; r < rows; ++r)
        if (cudaError_t e = write_pattern(static_cast<char*>(dst) + r * stride, pattern, row_bytes, stream);
            e != cudaSuccess)
            return e;
    return cudaSuccess;
}

}  // namespace cudabridge::cudart
