// Device bodies of take, put and copyto over the shared index rule (kernels/indexing_functors.hpp):
// elements are moved by size (U: an unsigned type of the element's width), as the CPU engine does.
#pragma once

#include "nvidia_driver/cuda_kernels/nd_index.cuh"
#include "common/kernels/indexing_functors.hpp"

namespace cudabridge::nv::cuda_kernels {

// L walks (out, indices); out[off0] = in[wrap(indices[off1], n_in)]. in is contiguous.
template <class U>
__device__ void take_body(const nd_layout& L, std::int64_t n, std::uint64_t out, std::uint64_t indices,
                          std::uint64_t in, std::int64_t n_in) {
    U* o = device_ptr<U>(out);
    const std::int64_t* ix = device_ptr<const std::int64_t>(indices);
    const U* x = device_ptr<const U>(in);
    for_each_element<2>(L, n, [&](const std::int64_t* off) {
        o[off[0]] = x[kernels::fn::wrap_index(ix[off[1]], n_in)];
    });
}

// L walks (indices, values); out[wrap(indices[off0], n_out)] = values[off1]. out is contiguous.
// Threads run concurrently: of a repeated index one of the values lands (numpy keeps the last).
template <class U>
__device__ void put_body(const nd_layout& L, std::int64_t n, std::uint64_t out, std::uint64_t indices,
                         std::uint64_t values, std::int64_t n_out) {
    U* o = device_ptr<U>(out);
    const std::int64_t* ix = device_ptr<const std::int64_t>(indices);
    const U* v = device_ptr<const U>(values);
    for_each_element<2>(L, n, [&](const std::int64_t* off) {
        o[kernels::fn::wrap_index(ix[off[0]], n_out)] = v[off[1]];
    });
}

// L walks (out, src, mask): numpy's copyto(out, src, where=mask).
template <class U>
__device__ void copyto_body(const nd_layout& L, std::int64_t n, std::uint64_t out, std::uint64_t src,
                            std::uint64_t mask) {
    U* o = device_ptr<U>(out);
    const U* x = device_ptr<const U>(src);
    const bool* w = device_ptr<const bool>(mask);
    for_each_element<3>(L, n, [&](const std::int64_t* off) {
        if (w[off[2]]) o[off[0]] = x[off[1]];
    });
}

}  // namespace cudabridge::nv::cuda_kernels
