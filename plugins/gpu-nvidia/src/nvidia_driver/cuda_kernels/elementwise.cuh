// Device bodies of the elementwise built-ins over the shared per-element functors
// (kernels/functors.hpp, kernels/philox.hpp): the CPU engine runs the very same semantics.
#pragma once

#include <type_traits>

#include "nvidia_driver/cuda_kernels/nd_index.cuh"
#include "common/kernels/functors.hpp"
#include "common/kernels/philox.hpp"

namespace cudabridge::nv::cuda_kernels {

namespace fn = cudabridge::nv::kernels::fn;
namespace philox = cudabridge::nv::kernels::philox;

// The result type of binary functor F on T: bool for comparisons, else T.
template <class F, class T>
using binary_result_t = decltype(F{}(T{}, T{}));

template <class T, class F>
__device__ void binary_body(const nd_layout& L, std::int64_t n, std::uint64_t out, std::uint64_t a, std::uint64_t b) {
    using R = binary_result_t<F, T>;
    R* o = device_ptr<R>(out);
    const T* x = device_ptr<const T>(a);
    const T* y = device_ptr<const T>(b);
    for_each_element<3>(L, n, [&](const std::int64_t* off) { o[off[0]] = F{}(x[off[1]], y[off[2]]); });
}

// T: the input's type; the output's is the functor's return type (float64 for exp of int32, ...).
template <class T, class F>
__device__ void unary_body(const nd_layout& L, std::int64_t n, std::uint64_t out, std::uint64_t a) {
    using R = decltype(F{}(T{}));
    R* o = device_ptr<R>(out);
    const T* x = device_ptr<const T>(a);
    for_each_element<2>(L, n, [&](const std::int64_t* off) { o[off[0]] = F{}(x[off[1]]); });
}

template <class To, class From>
__device__ void cast_body(const nd_layout& L, std::int64_t n, std::uint64_t out, std::uint64_t in) {
    To* o = device_ptr<To>(out);
    const From* x = device_ptr<const From>(in);
    for_each_element<2>(L, n, [&](const std::int64_t* off) { o[off[0]] = fn::cast_value<To>(x[off[1]]); });
}

// Fill by element size: the host converts the value to the output dtype (cast semantics) and
// passes its bits, so four kernels serve all eight dtypes.
template <class U>
__device__ void fill_body(const nd_layout& L, std::int64_t n, std::uint64_t out, std::uint64_t bits) {
    U* o = device_ptr<U>(out);
    const U v = static_cast<U>(bits);
    for_each_element<1>(L, n, [&](const std::int64_t* off) { o[off[0]] = v; });
}

template <class T>
__device__ void arange_body(std::int64_t n, std::uint64_t out, std::int64_t start_i, std::int64_t step_i,
                            double start_f, double step_f, std::int32_t int_math) {
    T* o = device_ptr<T>(out);
    for (std::int64_t i = first_index(); i < n; i += grid_stride())
        o[i] = int_math ? fn::arange_value_int<T>(start_i, step_i, i) : fn::arange_value<T>(start_f, step_f, i);
}

// One Philox block per thread iteration: float32 takes its four words, float64 two pairs (the
// stream layout of philox.hpp, identical to the CPU engine's).
template <class T>
__device__ void random_uniform_body(std::int64_t n, std::uint64_t out, std::uint64_t seed, std::uint64_t offset) {
    constexpr std::int64_t per_block = std::is_same_v<T, float> ? 4 : 2;
    T* o = device_ptr<T>(out);
    const std::int64_t blocks = (n + per_block - 1) / per_block;
    for (std::int64_t blk = first_index(); blk < blocks; blk += grid_stride()) {
        const philox::u32x4 r = philox::block(seed, offset, std::uint64_t(blk));
        const std::int64_t i0 = blk * per_block;
        for (int j = 0; j < per_block && i0 + j < n; ++j) {
            if constexpr (std::is_same_v<T, float>)
                o[i0 + j] = philox::to_float(r.v[j]);
            else
                o[i0 + j] = philox::to_double(r.v[2 * j], r.v[2 * j + 1]);
        }
    }
}

}  // namespace cudabridge::nv::cuda_kernels
