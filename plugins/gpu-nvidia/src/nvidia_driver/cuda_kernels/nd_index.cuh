// Device-side walk of an nd_layout: a grid-stride loop over the flat index that hands each
// operand's element offset to the body.
#pragma once

#include "nvidia_driver/cuda_kernels/kernel_abi.hpp"

namespace cudabridge::nv::cuda_kernels {

__device__ inline std::int64_t first_index() {
    return std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
}
__device__ inline std::int64_t grid_stride() { return std::int64_t(gridDim.x) * blockDim.x; }

// Calls body(off[0..K-1]) for every flat index i < n of the layout (row-major order of its shape).
template <int K, class Body>
__device__ void for_each_element(const nd_layout& L, std::int64_t n, Body body) {
    for (std::int64_t i = first_index(); i < n; i += grid_stride()) {
        std::int64_t off[K];
        if (L.ndim == 1) {  // the common case after merging: no division
#pragma unroll
            for (int k = 0; k < K; ++k) off[k] = i * L.strides[k][0];
        } else {
#pragma unroll
            for (int k = 0; k < K; ++k) off[k] = 0;
            std::int64_t rem = i;
            for (int d = L.ndim - 1; d >= 0; --d) {
                const std::int64_t extent = L.shape[d];
                const std::int64_t idx = rem % extent;
                rem /= extent;
#pragma unroll
                for (int k = 0; k < K; ++k) off[k] += idx * L.strides[k][d];
            }
        }
        body(off);
    }
}

template <class T>
__device__ inline T* device_ptr(std::uint64_t address) {
    return reinterpret_cast<T*>(static_cast<std::uintptr_t>(address));
}

}  // namespace cudabridge::nv::cuda_kernels
