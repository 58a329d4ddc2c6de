// Device bodies of the reductions over the shared accumulators (fn::sum_reducer, mean_reducer,
// prod_reducer, max_reducer, min_reducer, nanmax_reducer, nanmin_reducer). Contiguous rows: blocks
// reduce chunks in shared memory, a second kernel combines the chunk partials in order. Along an inner axis: one thread per output.
#pragma once

#include <type_traits>

#include "nvidia_driver/cuda_kernels/nd_index.cuh"
#include "common/kernels/functors.hpp"

namespace cudabridge::nv::cuda_kernels {

namespace fn = cudabridge::nv::kernels::fn;

// The reduction's output type, as kernels::reduce_result_dtype (the shared reducer's out_t).
template <template <class> class Reducer, class T>
struct reduce_output {
    using type = typename Reducer<T>::out_t;
};

template <template <class> class Reducer, class T, class O>
__device__ O finish_reduction(typename Reducer<T>::acc_t acc, std::int64_t n) {
    if constexpr (std::is_same_v<Reducer<T>, fn::mean_reducer<T>>) return static_cast<O>(double(acc) / double(n));
    else return fn::cast_value<O>(acc);
}

// gridDim.x = splits (chunks of a row), gridDim.y walks the rows. Every chunk is non-empty.
template <template <class> class Reducer, class T>
__device__ void reduce_rows_body(std::uint64_t in, std::int64_t rows, std::int64_t n, std::int64_t chunk,
                                 std::int32_t splits, std::uint64_t partials, std::uint64_t out) {
    using R = Reducer<T>;
    using A = typename R::acc_t;
    using O = typename reduce_output<Reducer, T>::type;
    __shared__ A acc_of[k_block_threads];
    __shared__ bool has_of[k_block_threads];
    const T* x = device_ptr<const T>(in);
    const unsigned tid = threadIdx.x;
    for (std::int64_t row = blockIdx.y; row < rows; row += gridDim.y) {
        const std::int64_t lo = std::int64_t(blockIdx.x) * chunk;
        const std::int64_t hi = lo + chunk < n ? lo + chunk : n;
        A acc{};
        bool has = false;
        for (std::int64_t i = lo + tid; i < hi; i += blockDim.x) {
            const A v = R::lift(x[row * n + i]);
            acc = has ? R::combine(acc, v) : v;
            has = true;
        }
        acc_of[tid] = acc;
        has_of[tid] = has;
        __syncthreads();
        for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s && has_of[tid + s]) {
                acc_of[tid] = has_of[tid] ? R::combine(acc_of[tid], acc_of[tid + s]) : acc_of[tid + s];
                has_of[tid] = true;
            }
            __syncthreads();
        }
        if (tid == 0) {
            if (splits == 1) device_ptr<O>(out)[row] = finish_reduction<Reducer, T, O>(acc_of[0], n);
            else device_ptr<A>(partials)[row * splits + blockIdx.x] = acc_of[0];
        }
        __syncthreads();
    }
}

// One thread per row: the chunk partials combined in chunk order, then finished.
template <template <class> class Reducer, class T>
__device__ void reduce_finish_body(std::uint64_t partials, std::int64_t rows, std::int32_t splits,
                                   std::int64_t n, std::uint64_t out) {
    using R = Reducer<T>;
    using A = typename R::acc_t;
    using O = typename reduce_output<Reducer, T>::type;
    const A* p = device_ptr<const A>(partials);
    for (std::int64_t row = first_index(); row < rows; row += grid_stride()) {
        A acc = p[row * splits];
        for (std::int32_t s = 1; s < splits; ++s) acc = R::combine(acc, p[row * splits + s]);
        device_ptr<O>(out)[row] = finish_reduction<Reducer, T, O>(acc, n);
    }
}

// in is [outer, n, inner] contiguous; out[o * inner + j] reduces in[o, :, j]. n >= 1.
template <template <class> class Reducer, class T>
__device__ void reduce_cols_body(std::uint64_t in, std::int64_t outer, std::int64_t n, std::int64_t inner,
                                 std::uint64_t out) {
    using R = Reducer<T>;
    using A = typename R::acc_t;
    using O = typename reduce_output<Reducer, T>::type;
    const T* x = device_ptr<const T>(in);
    for (std::int64_t idx = first_index(); idx < outer * inner; idx += grid_stride()) {
        const std::int64_t o = idx / inner, j = idx % inner;
        const T* base = x + o * n * inner + j;
        A acc = R::lift(base[0]);
        for (std::int64_t k = 1; k < n; ++k) acc = R::combine(acc, R::lift(base[k * inner]));
        device_ptr<O>(out)[idx] = finish_reduction<Reducer, T, O>(acc, n);
    }
}

}  // namespace cudabridge::nv::cuda_kernels
