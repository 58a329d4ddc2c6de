// Device body of the simple matrix product: integer and bool dtypes (cuBLAS has no integer GEMM
// with numpy's wrap-around), and float32/float64 when cuBLAS cannot be loaded. One thread per
// output element, accumulating with the shared functors (wrapping add/multiply; or/and for bool).
#pragma once

#include "nvidia_driver/cuda_kernels/nd_index.cuh"
#include "common/kernels/functors.hpp"

namespace cudabridge::nv::cuda_kernels {

template <class T>
__device__ void matmul_body(std::uint64_t a, std::uint64_t b, std::uint64_t c, std::int64_t n,
                            std::int64_t k, std::int64_t m) {
    namespace fn = cudabridge::nv::kernels::fn;
    const T* pa = device_ptr<const T>(a);
    const T* pb = device_ptr<const T>(b);
    T* pc = device_ptr<T>(c);
    for (std::int64_t idx = first_index(); idx < n * m; idx += grid_stride()) {
        const std::int64_t i = idx / m, j = idx % m;
        T acc = T(0);
        for (std::int64_t p = 0; p < k; ++p) acc = fn::add{}(acc, fn::multiply{}(pa[i * k + p], pb[p * m + j]));
        pc[idx] = acc;
    }
}

}  // namespace cudabridge::nv::cuda_kernels
