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
#include <type_traits>

#include "common/kernels/functors.hpp"

namespace cudabridge::nv::kernels::vector_math {

enum class function {
    exp,
    log,
    sin,
    cos,
    exp2,
    expm1,
    log2,
    log10,
    log1p,
    cbrt,
    tan,
    arcsin,
    arccos,
    arctan,
    sinh,
    cosh,
    tanh,
    arcsinh,
    arccosh,
    arctanh,
    floor,
    ceil,
    trunc,
    rint,
    none
};

// The function a functor computes (none: no vector row for it).
template <class F>
inline constexpr function function_of = function::none;
#define CB_NV_VECTOR_FUNCTION(NAME) \
    template <>                     \
    inline constexpr function function_of<fn::NAME> = function::NAME;
CB_NV_VECTOR_FUNCTION(exp)
CB_NV_VECTOR_FUNCTION(log)
CB_NV_VECTOR_FUNCTION(sin)
CB_NV_VECTOR_FUNCTION(cos)
CB_NV_VECTOR_FUNCTION(exp2)
CB_NV_VECTOR_FUNCTION(expm1)
CB_NV_VECTOR_FUNCTION(log2)
CB_NV_VECTOR_FUNCTION(log10)
CB_NV_VECTOR_FUNCTION(log1p)
CB_NV_VECTOR_FUNCTION(cbrt)
CB_NV_VECTOR_FUNCTION(tan)
CB_NV_VECTOR_FUNCTION(arcsin)
CB_NV_VECTOR_FUNCTION(arccos)
CB_NV_VECTOR_FUNCTION(arctan)
CB_NV_VECTOR_FUNCTION(sinh)
CB_NV_VECTOR_FUNCTION(cosh)
CB_NV_VECTOR_FUNCTION(tanh)
CB_NV_VECTOR_FUNCTION(arcsinh)
CB_NV_VECTOR_FUNCTION(arccosh)
CB_NV_VECTOR_FUNCTION(arctanh)
CB_NV_VECTOR_FUNCTION(floor)
CB_NV_VECTOR_FUNCTION(ceil)
CB_NV_VECTOR_FUNCTION(trunc)
CB_NV_VECTOR_FUNCTION(rint)
#undef CB_NV_VECTOR_FUNCTION

// Whether F has a vector row for element type T.
template <class T, class F>
constexpr bool has_row = (std::is_same_v<T, float> || std::is_same_v<T, double>)&&function_of<F> != function::none;

// out[i] = f(in[i]) for i < n; false when this build or CPU has no vector row for f (the caller
// then runs its scalar loop).
bool row(function f, const float* in, float* out, std::int64_t n);
bool row(function f, const double* in, double* out, std::int64_t n);

// The two-argument functions with vector variants: power and arctan2 (hypot's scalar loop already
// vectorizes as well as libmvec's).
enum class function2 { power, arctan2, none };
template <class F>
inline constexpr function2 function2_of = function2::none;
template <>
inline constexpr function2 function2_of<fn::power> = function2::power;
template <>
inline constexpr function2 function2_of<fn::arctan2> = function2::arctan2;
template <class T, class F>
constexpr bool has_row2 = (std::is_same_v<T, float> || std::is_same_v<T, double>)&&function2_of<F> != function2::none;

// out[i] = f(a[i * sa], b[i * sb]) for i < n, with sa and sb 0 (a broadcast scalar) or 1; false as
// row() (the caller runs its scalar loop).
bool row2(function2 f, const float* a, std::int64_t sa, const float* b, std::int64_t sb, float* out, std::int64_t n);
bool row2(function2 f, const double* a, std::int64_t sa, const double* b, std::int64_t sb, double* out, std::int64_t n);

}  // namespace cudabridge::nv::kernels::vector_math
