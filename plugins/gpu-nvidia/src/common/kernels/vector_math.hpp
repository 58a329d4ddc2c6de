// numpy's transcendental functions (power and arctan2 among them) and the roundings of contiguous
// float32 / float64 rows, a vector at a time: the functions through glibc's libmvec, the vector variants of libm (the x86-64
// vector function ABI: 8 floats or 4 doubles per call with AVX2, 4 / 2 with SSE otherwise), floor,
// ceil, trunc and rint through the rounding instructions (SSE4.1 / AVX). A 1k-element exp costs ~0.9 us
// instead of ~3.9 us one at a time, and a 16M-element arcsinh a seventh of the scalar loop's time.
// glibc documents the vector variants within 4 ulp of the exact result (libm's own functions:
// 1 ulp); special values (NaN, infinities, overflow) follow libm's. The roundings are exact.
// Elsewhere (no libmvec from glibc 2.35 on, other CPUs) the caller's scalar loop runs.
#pragma once

#include <cstdint>
#include <optional>
#include <type_traits>

#include "common/kernels/functors.hpp"
#include "common/kernels/ops.hpp"

namespace cudabridge::nv::kernels::vector_math {

// The op a functor computes, for the functors with a vector row.
template <class F>
inline constexpr std::optional<unary_op> vector_op = std::nullopt;
#define CB_NV_VECTOR_ROW(NAME) \
    template <>                \
    inline constexpr std::optional<unary_op> vector_op<fn::NAME> = unary_op::NAME;
// clang-format off
CB_NV_VECTOR_ROW(exp) CB_NV_VECTOR_ROW(log) CB_NV_VECTOR_ROW(sin) CB_NV_VECTOR_ROW(cos) CB_NV_VECTOR_ROW(exp2)
CB_NV_VECTOR_ROW(expm1) CB_NV_VECTOR_ROW(log2) CB_NV_VECTOR_ROW(log10) CB_NV_VECTOR_ROW(log1p) CB_NV_VECTOR_ROW(cbrt)
CB_NV_VECTOR_ROW(tan) CB_NV_VECTOR_ROW(arcsin) CB_NV_VECTOR_ROW(arccos) CB_NV_VECTOR_ROW(arctan) CB_NV_VECTOR_ROW(sinh)
CB_NV_VECTOR_ROW(cosh) CB_NV_VECTOR_ROW(tanh) CB_NV_VECTOR_ROW(arcsinh) CB_NV_VECTOR_ROW(arccosh)
CB_NV_VECTOR_ROW(arctanh) CB_NV_VECTOR_ROW(floor) CB_NV_VECTOR_ROW(ceil) CB_NV_VECTOR_ROW(trunc) CB_NV_VECTOR_ROW(rint)
// clang-format on
#undef CB_NV_VECTOR_ROW

    // Whether F has a vector row for element type T.
    template <class T, class F>
    constexpr bool has_row = (std::is_same_v<T, float> || std::is_same_v<T, double>)&&vector_op<F>.has_value();

// out[i] = op(in[i]) for i < n; false for an op without a vector row, or when this build or CPU
// has none (the caller then runs its scalar loop).
bool row(unary_op op, const float* in, float* out, std::int64_t n);
bool row(unary_op op, const double* in, double* out, std::int64_t n);

// The two-argument functions with vector variants: power and arctan2 (hypot's scalar loop already
// vectorizes as well as libmvec's).
template <class F>
inline constexpr std::optional<binary_op> vector_op2 = std::nullopt;
template <>
inline constexpr std::optional<binary_op> vector_op2<fn::power> = binary_op::power;
template <>
inline constexpr std::optional<binary_op> vector_op2<fn::arctan2> = binary_op::arctan2;
template <class T, class F>
constexpr bool has_row2 = (std::is_same_v<T, float> || std::is_same_v<T, double>)&&vector_op2<F>.has_value();

// out[i] = op(a[i * sa], b[i * sb]) for i < n, with sa and sb 0 (a broadcast scalar) or 1; false as
// row() (the caller runs its scalar loop).
bool row2(binary_op op, const float* a, std::int64_t sa, const float* b, std::int64_t sb, float* out, std::int64_t n);
bool row2(binary_op op, const double* a, std::int64_t sa, const double* b, std::int64_t sb, double* out,
          std::int64_t n);

}  // namespace cudabridge::nv::kernels::vector_math
