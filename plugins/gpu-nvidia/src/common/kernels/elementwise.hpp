// Elementwise kernels of the CPU engine: arithmetic, comparisons, casts, fills, sequences and
// counter-based random numbers. Inputs may be strided or broadcast views; the output is written
// through its own strides and must already have the result's shape and dtype (see plan_binary).
#pragma once

#include <cstdint>

#include "common/kernels/broadcast.hpp"
#include "common/kernels/engine.hpp"
#include "common/kernels/ops.hpp"
#include "common/kernels/promotion.hpp"
#include "common/errors/fail.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

// A fill value / arange bound: an integer or a floating value, converted to the output dtype
// with cast semantics.
struct scalar {
    bool is_int = false;
    std::int64_t i = 0;
    double f = 0.0;
    static scalar of(double v) { return {false, 0, v}; }
    static scalar of_int(std::int64_t v) { return {true, v, 0.0}; }
};

// Result dtype and shape of `a op b`, or numpy's error.
cb_status plan_binary(binary_op op, const tensor_view& a, const tensor_view& b, op_types& types, shape_t& shape,
                      std::string& error);

cb_status binary(binary_op op, const tensor_view& a, const tensor_view& b, const tensor_view& out, std::string& error,
                 engine& eng = default_engine());
cb_status unary(unary_op op, const tensor_view& a, const tensor_view& out, std::string& error,
                engine& eng = default_engine());

// out = in.astype(out.dtype); in is broadcast to out's shape.
cb_status cast(const tensor_view& in, const tensor_view& out, std::string& error, engine& eng = default_engine());

cb_status fill(const tensor_view& out, scalar value, std::string& error, engine& eng = default_engine());

// out.flat[i] = start + i * step (out must be contiguous).
cb_status arange(const tensor_view& out, scalar start, scalar step, std::string& error, engine& eng = default_engine());

// Uniform [0,1) float32/float64 from Philox4x32-10 (see philox.hpp for the stream layout);
// out.flat[i] depends only on (seed, offset, i). out must be contiguous.
cb_status random_uniform(const tensor_view& out, std::uint64_t seed, std::uint64_t offset, std::string& error,
                         engine& eng = default_engine());

}  // namespace cudabridge::nv::kernels
