// The per-element rules of the indexing and sorting kernels, compiled by the CPU engine and, under
// nvcc, by the CUDA kernels: numpy's take/put index wrap (mode='wrap') and numpy's sort order.
#pragma once

#include <cstdint>
#include <type_traits>

#include "common/kernels/functors.hpp"
#include "common/kernels/hd.hpp"

namespace cudabridge::nv::kernels::fn {

// i wrapped into [0, n), as numpy's take(..., mode='wrap'): -1 is the last element. n > 0.
CB_NV_HD constexpr std::int64_t wrap_index(std::int64_t i, std::int64_t n) {
    const std::int64_t r = i % n;
    return r < 0 ? r + n : r;
}

// numpy's ascending sort order: NaN after every number (and equal to another NaN), -0.0 == 0.0,
// false before true.
template <class T>
CB_NV_HD constexpr bool sort_less(T a, T b) {
    if constexpr (is_float_v<T>)
        return a < b || (b != b && a == a);
    else
        return a < b;
}

}  // namespace cudabridge::nv::kernels::fn
