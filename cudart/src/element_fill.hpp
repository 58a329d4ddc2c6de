// Filling device memory with elements of 1, 2 or 4 bytes (cuMemsetD16/D32, cuMemsetD2D32, a
// graph's memset node): one byte fill when the element's bytes are all alike, else the element's
// pattern written row by row from the host.
#pragma once

#include "cuda_types.hpp"

#include <cstddef>

namespace cudabridge::cudart {

// `height` rows of `width` elements, `pitch` bytes apart (pitch is ignored for one row), queued
// on `stream`; element_size other than 1, 2 or 4 is cudaErrorInvalidValue.
cudaError_t fill_elements(void* dst, size_t pitch, unsigned value, unsigned element_size, size_t width, size_t height,
                          cudaStream_t stream);

}  // namespace cudabridge::cudart
