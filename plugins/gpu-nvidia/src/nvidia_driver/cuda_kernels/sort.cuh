// Device bodies of sort and argsort: one block per row of the last axis (rows stride over the
// grid), a bitonic network over the row in global memory whose comparators all point up (the
// first step of each merge compares mirrored positions), so the row is sorted in place with the
// positions past its end standing for +infinity and never touched. Order: kernels::fn::sort_less
// (NaN last), as the CPU engine's std::sort; argsort breaks ties by index, giving the stable
// order of the CPU engine's std::stable_sort.
#pragma once

#include "nvidia_driver/cuda_kernels/nd_index.cuh"
#include "common/kernels/indexing_functors.hpp"

namespace cudabridge::nv::cuda_kernels {

// Runs the network over positions [0, n) of one row; before(a, b) says whether the element at
// position b belongs before the one at position a (then they swap).
template <class Before, class Swap>
__device__ void bitonic_row(std::int64_t n, Before before, Swap swap) {
    std::int64_t size = 1;
    while (size < n) size <<= 1;
    for (std::int64_t k = 2; k <= size; k <<= 1)
        for (std::int64_t j = k >> 1; j > 0; j >>= 1) {
            for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) {
                const std::int64_t p = j == (k >> 1) ? (i ^ (k - 1)) : (i ^ j);
                if (p > i && p < n && before(i, p)) swap(i, p);
            }
            __syncthreads();
        }
}

template <class T>
__device__ void sort_body(std::uint64_t in, std::uint64_t out, std::int64_t rows, std::int64_t n) {
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* x = device_ptr<const T>(in) + r * n;
        T* o = device_ptr<T>(out) + r * n;
        for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) o[i] = x[i];
        __syncthreads();
        bitonic_row(
            n, [o](std::int64_t a, std::int64_t b) { return kernels::fn::sort_less(o[b], o[a]); },
            [o](std::int64_t a, std::int64_t b) {
                const T t = o[a];
                o[a] = o[b];
                o[b] = t;
            });
    }
}

template <class T>
__device__ void argsort_body(std::uint64_t in, std::uint64_t out, std::int64_t rows, std::int64_t n) {
    for (std::int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* x = device_ptr<const T>(in) + r * n;
        std::int64_t* o = device_ptr<std::int64_t>(out) + r * n;
        for (std::int64_t i = threadIdx.x; i < n; i += blockDim.x) o[i] = i;
        __syncthreads();
        bitonic_row(
            n,
            [o, x](std::int64_t a, std::int64_t b) {
                const std::int64_t ia = o[a], ib = o[b];
                return kernels::fn::sort_less(x[ib], x[ia]) || (!kernels::fn::sort_less(x[ia], x[ib]) && ib < ia);
            },
            [o](std::int64_t a, std::int64_t b) {
                const std::int64_t t = o[a];
                o[a] = o[b];
                o[b] = t;
            });
    }
}

// One step (k, j) of the same network over every row at once, for rows too long for one block:
// the launcher runs the steps in order, one launch each, over a grid covering rows * n positions.
template <class T>
__device__ void sort_step_body(std::uint64_t data, std::int64_t rows, std::int64_t n, std::int64_t k,
                               std::int64_t j) {
    T* o = device_ptr<T>(data);
    for (std::int64_t g = first_index(); g < rows * n; g += grid_stride()) {
        const std::int64_t i = g % n, p = j == (k >> 1) ? (i ^ (k - 1)) : (i ^ j);
        if (p <= i || p >= n) continue;
        T* row = o + (g - i);
        if (kernels::fn::sort_less(row[p], row[i])) {
            const T t = row[i];
            row[i] = row[p];
            row[p] = t;
        }
    }
}

// The first step (k == 2) also writes the identity order it starts from: out needs no init.
template <class T>
__device__ void argsort_step_body(std::uint64_t in, std::uint64_t out, std::int64_t rows, std::int64_t n,
                                  std::int64_t k, std::int64_t j) {
    std::int64_t* o = device_ptr<std::int64_t>(out);
    const bool first = k == 2;
    for (std::int64_t g = first_index(); g < rows * n; g += grid_stride()) {
        const std::int64_t i = g % n, p = j == (k >> 1) ? (i ^ (k - 1)) : (i ^ j);
        if (p < i) continue;  // the partner's thread has the pair
        std::int64_t* row = o + (g - i);
        if (p >= n) {
            if (first) row[i] = i;
            continue;
        }
        const T* x = device_ptr<const T>(in) + (g - i);
        const std::int64_t ia = first ? i : row[i], ib = first ? p : row[p];
        const bool swap = kernels::fn::sort_less(x[ib], x[ia]) || (!kernels::fn::sort_less(x[ia], x[ib]) && ib < ia);
        row[i] = swap ? ib : ia;
        row[p] = swap ? ia : ib;
    }
}

}  // namespace cudabridge::nv::cuda_kernels
