// The built-in kernels as extern "C" entry points (names: kernel_abi.hpp), one instantiation per
// operation and dtype of a single template per kind. Compiled by nvcc with -fatbin into the
// image the kernel-driver backend loads with cuModuleLoadData.
#include <cstdint>
#include <type_traits>

#include "nvidia_driver/cuda_kernels/crc32c.cuh"
#include "nvidia_driver/cuda_kernels/elementwise.cuh"
#include "nvidia_driver/cuda_kernels/indexing.cuh"
#include "nvidia_driver/cuda_kernels/matmul.cuh"
#include "nvidia_driver/cuda_kernels/reduce.cuh"
#include "nvidia_driver/cuda_kernels/sort.cuh"

using cudabridge::nv::cuda_kernels::nd_layout;
namespace ck = cudabridge::nv::cuda_kernels;
namespace fn = cudabridge::nv::kernels::fn;
using std::int64_t;
using std::uint64_t;

// The dtypes: M(args..., numpy name, C++ type). Two copies, because a macro cannot expand
// itself (the cast table nests one inside the other).
#define CB_FOR_DTYPES(M, ...)                                                                                   \
    M(__VA_ARGS__, float32, float)                                                                              \
    M(__VA_ARGS__, float64, double)                                                                             \
    M(__VA_ARGS__, int32, std::int32_t) M(__VA_ARGS__, int64, std::int64_t) M(__VA_ARGS__, uint8, std::uint8_t) \
        M(__VA_ARGS__, int8, std::int8_t) M(__VA_ARGS__, int16, std::int16_t) M(__VA_ARGS__, bool, bool) \
            M(__VA_ARGS__, uint16, std::uint16_t) M(__VA_ARGS__, uint32, std::uint32_t) M(__VA_ARGS__, uint64, std::uint64_t)
#define CB_FOR_DTYPES_2(M, ...)                                                                                 \
    M(__VA_ARGS__, float32, float)                                                                              \
    M(__VA_ARGS__, float64, double)                                                                             \
    M(__VA_ARGS__, int32, std::int32_t) M(__VA_ARGS__, int64, std::int64_t) M(__VA_ARGS__, uint8, std::uint8_t) \
        M(__VA_ARGS__, int8, std::int8_t) M(__VA_ARGS__, int16, std::int16_t) M(__VA_ARGS__, bool, bool) \
            M(__VA_ARGS__, uint16, std::uint16_t) M(__VA_ARGS__, uint32, std::uint32_t) M(__VA_ARGS__, uint64, std::uint64_t)

// ---- binary and unary: only the (op, dtype) pairs the type rules can ask for ---------------

#define CB_BINARY(op, dname, T)                                                                           \
    extern "C" __global__ void cb_binary_##op##_##dname(nd_layout L, int64_t n, uint64_t out, uint64_t a, \
                                                        uint64_t b) {                                     \
        ck::binary_body<T, fn::op>(L, n, out, a, b);                                                      \
    }

CB_FOR_DTYPES(CB_BINARY, add)
CB_FOR_DTYPES(CB_BINARY, multiply)
CB_FOR_DTYPES(CB_BINARY, minimum)
CB_FOR_DTYPES(CB_BINARY, maximum)
CB_FOR_DTYPES(CB_BINARY, equal)
CB_FOR_DTYPES(CB_BINARY, not_equal)
CB_FOR_DTYPES(CB_BINARY, less)
CB_FOR_DTYPES(CB_BINARY, less_equal)
CB_FOR_DTYPES(CB_BINARY, greater)
CB_FOR_DTYPES(CB_BINARY, greater_equal)
// subtract / floor_divide: no bool (numpy refuses bool - bool; bool // bool computes in int8).
#define CB_FOR_NUMERIC(M, ...)                                                                                  \
    M(__VA_ARGS__, float32, float)                                                                              \
    M(__VA_ARGS__, float64, double)                                                                             \
    M(__VA_ARGS__, int32, std::int32_t) M(__VA_ARGS__, int64, std::int64_t) M(__VA_ARGS__, uint8, std::uint8_t) \
        M(__VA_ARGS__, int8, std::int8_t) M(__VA_ARGS__, int16, std::int16_t) \
            M(__VA_ARGS__, uint16, std::uint16_t) M(__VA_ARGS__, uint32, std::uint32_t) M(__VA_ARGS__, uint64, std::uint64_t)
CB_FOR_NUMERIC(CB_BINARY, subtract)
CB_FOR_NUMERIC(CB_BINARY, floor_divide)
CB_FOR_NUMERIC(CB_BINARY, power)
CB_FOR_NUMERIC(CB_BINARY, fmod)
CB_FOR_NUMERIC(CB_BINARY, remainder)
CB_FOR_DTYPES(CB_BINARY, fmax)
CB_FOR_DTYPES(CB_BINARY, fmin)
CB_FOR_DTYPES(CB_BINARY, logical_and)
CB_FOR_DTYPES(CB_BINARY, logical_or)
CB_FOR_DTYPES(CB_BINARY, logical_xor)
// divide and the floating-point functions: the compute type is always floating.
#define CB_FOR_FLOATS(M, ...) M(__VA_ARGS__, float32, float) M(__VA_ARGS__, float64, double)
CB_FOR_FLOATS(CB_BINARY, divide)
CB_FOR_FLOATS(CB_BINARY, arctan2)
CB_FOR_FLOATS(CB_BINARY, hypot)
CB_FOR_FLOATS(CB_BINARY, copysign)
CB_FOR_FLOATS(CB_BINARY, logaddexp)
CB_FOR_FLOATS(CB_BINARY, logaddexp2)
// Bitwise ops: integers and bool; shifts: integers (bool computes in int8).
#define CB_FOR_INTS(M, ...)             \
    M(__VA_ARGS__, int32, std::int32_t) \
    M(__VA_ARGS__, int64, std::int64_t) \
    M(__VA_ARGS__, uint8, std::uint8_t) M(__VA_ARGS__, int8, std::int8_t) M(__VA_ARGS__, int16, std::int16_t) \
        M(__VA_ARGS__, uint16, std::uint16_t) M(__VA_ARGS__, uint32, std::uint32_t) M(__VA_ARGS__, uint64, std::uint64_t)
CB_FOR_INTS(CB_BINARY, bitwise_and)
CB_FOR_INTS(CB_BINARY, bitwise_or)
CB_FOR_INTS(CB_BINARY, bitwise_xor)
CB_BINARY(bitwise_and, bool, bool)
CB_BINARY(bitwise_or, bool, bool)
CB_BINARY(bitwise_xor, bool, bool)
CB_FOR_INTS(CB_BINARY, left_shift)
CB_FOR_INTS(CB_BINARY, right_shift)

#define CB_UNARY(op, dname, T)                                                                             \
    extern "C" __global__ void cb_unary_##op##_##dname(nd_layout L, int64_t n, uint64_t out, uint64_t a) { \
        ck::unary_body<T, fn::op>(L, n, out, a);                                                           \
    }
CB_FOR_NUMERIC(CB_UNARY, negate)
CB_FOR_DTYPES(CB_UNARY, absolute)
CB_FOR_DTYPES(CB_UNARY, square)
CB_FOR_DTYPES(CB_UNARY, reciprocal)
CB_FOR_NUMERIC(CB_UNARY, sign)
CB_FOR_DTYPES(CB_UNARY, isnan)
CB_FOR_DTYPES(CB_UNARY, isinf)
CB_FOR_DTYPES(CB_UNARY, isfinite)
CB_FOR_DTYPES(CB_UNARY, signbit)
CB_FOR_DTYPES(CB_UNARY, logical_not)
CB_FOR_INTS(CB_UNARY, invert)
CB_UNARY(invert, bool, bool)
// The floating-point functions: float inputs, and the integers numpy computes in float32/float64
// (16- to 64-bit integers; bool, int8 and uint8 would need float16).
#define CB_FOR_FLOAT_INPUTS(M, ...) \
    CB_FOR_FLOATS(M, __VA_ARGS__)   \
    M(__VA_ARGS__, int32, std::int32_t) M(__VA_ARGS__, int64, std::int64_t) M(__VA_ARGS__, int16, std::int16_t) \
        M(__VA_ARGS__, uint16, std::uint16_t) M(__VA_ARGS__, uint32, std::uint32_t) M(__VA_ARGS__, uint64, std::uint64_t)
CB_FOR_FLOAT_INPUTS(CB_UNARY, exp)
CB_FOR_FLOAT_INPUTS(CB_UNARY, expm1)
CB_FOR_FLOAT_INPUTS(CB_UNARY, exp2)
CB_FOR_FLOAT_INPUTS(CB_UNARY, log)
CB_FOR_FLOAT_INPUTS(CB_UNARY, log1p)
CB_FOR_FLOAT_INPUTS(CB_UNARY, log2)
CB_FOR_FLOAT_INPUTS(CB_UNARY, log10)
CB_FOR_FLOAT_INPUTS(CB_UNARY, sqrt)
CB_FOR_FLOAT_INPUTS(CB_UNARY, cbrt)
CB_FOR_FLOAT_INPUTS(CB_UNARY, sin)
CB_FOR_FLOAT_INPUTS(CB_UNARY, cos)
CB_FOR_FLOAT_INPUTS(CB_UNARY, tan)
CB_FOR_FLOAT_INPUTS(CB_UNARY, arcsin)
CB_FOR_FLOAT_INPUTS(CB_UNARY, arccos)
CB_FOR_FLOAT_INPUTS(CB_UNARY, arctan)
CB_FOR_FLOAT_INPUTS(CB_UNARY, sinh)
CB_FOR_FLOAT_INPUTS(CB_UNARY, cosh)
CB_FOR_FLOAT_INPUTS(CB_UNARY, tanh)
CB_FOR_FLOAT_INPUTS(CB_UNARY, arcsinh)
CB_FOR_FLOAT_INPUTS(CB_UNARY, arccosh)
CB_FOR_FLOAT_INPUTS(CB_UNARY, arctanh)
CB_FOR_FLOAT_INPUTS(CB_UNARY, floor)
CB_FOR_FLOAT_INPUTS(CB_UNARY, ceil)
CB_FOR_FLOAT_INPUTS(CB_UNARY, trunc)
CB_FOR_FLOAT_INPUTS(CB_UNARY, rint)
CB_FOR_FLOAT_INPUTS(CB_UNARY, deg2rad)
CB_FOR_FLOAT_INPUTS(CB_UNARY, rad2deg)

// ---- cast: every (to, from) pair --------------------------------------------------------------
#define CB_CAST(to_name, To, from_name, From)                                                                       \
    extern "C" __global__ void cb_cast_##to_name##_##from_name(nd_layout L, int64_t n, uint64_t out, uint64_t in) { \
        ck::cast_body<To, From>(L, n, out, in);                                                                     \
    }
#define CB_CAST_TO(unused, to_name, To) CB_FOR_DTYPES_2(CB_CAST, to_name, To)
CB_FOR_DTYPES(CB_CAST_TO, _)

// ---- fill (by element size), arange, random ---------------------------------------------------
#define CB_FILL(bytes, U)                                                                             \
    extern "C" __global__ void cb_fill_##bytes(nd_layout L, int64_t n, uint64_t out, uint64_t bits) { \
        ck::fill_body<U>(L, n, out, bits);                                                            \
    }
CB_FILL(1, std::uint8_t)
CB_FILL(2, std::uint16_t)
CB_FILL(4, std::uint32_t)
CB_FILL(8, std::uint64_t)

#define CB_ARANGE(unused, dname, T)                                                                        \
    extern "C" __global__ void cb_arange_##dname(int64_t n, uint64_t out, int64_t start_i, int64_t step_i, \
                                                 double start_f, double step_f, std::int32_t int_math) {   \
        ck::arange_body<T>(n, out, start_i, step_i, start_f, step_f, int_math);                            \
    }
CB_FOR_DTYPES(CB_ARANGE, _)

extern "C" __global__ void cb_random_uniform_float32(int64_t n, uint64_t out, uint64_t seed, uint64_t offset) {
    ck::random_uniform_body<float>(n, out, seed, offset);
}
extern "C" __global__ void cb_random_uniform_float64(int64_t n, uint64_t out, uint64_t seed, uint64_t offset) {
    ck::random_uniform_body<double>(n, out, seed, offset);
}

// ---- reductions ------------------------------------------------------------------------------
#define CB_REDUCE(op, reducer, dname, T)                                                                             \
    extern "C" __global__ void __launch_bounds__(ck::k_block_threads) cb_reduce_rows_##op##_##dname(                 \
        uint64_t in, int64_t rows, int64_t n, int64_t chunk, std::int32_t splits, uint64_t partials, uint64_t out) { \
        ck::reduce_rows_body<fn::reducer, T>(in, rows, n, chunk, splits, partials, out);                             \
    }                                                                                                                \
    extern "C" __global__ void cb_reduce_finish_##op##_##dname(uint64_t partials, int64_t rows, std::int32_t splits, \
                                                               int64_t n, uint64_t out) {                            \
        ck::reduce_finish_body<fn::reducer, T>(partials, rows, splits, n, out);                                      \
    }                                                                                                                \
    extern "C" __global__ void cb_reduce_cols_##op##_##dname(uint64_t in, int64_t outer, int64_t n, int64_t inner,   \
                                                             uint64_t out) {                                         \
        ck::reduce_cols_body<fn::reducer, T>(in, outer, n, inner, out);                                              \
    }
CB_FOR_DTYPES(CB_REDUCE, sum, sum_reducer)
CB_FOR_DTYPES(CB_REDUCE, mean, mean_reducer)
CB_FOR_DTYPES(CB_REDUCE, prod, prod_reducer)
CB_FOR_DTYPES(CB_REDUCE, max, max_reducer)
CB_FOR_DTYPES(CB_REDUCE, min, min_reducer)
CB_REDUCE(nanmax, nanmax_reducer, float32, float)
CB_REDUCE(nanmax, nanmax_reducer, float64, double)
CB_REDUCE(nanmin, nanmin_reducer, float32, float)
CB_REDUCE(nanmin, nanmin_reducer, float64, double)

// ---- matmul ------------------------------------------------------------------------------------
#define CB_MATMUL(unused, dname, T)                                                                        \
    extern "C" __global__ void cb_matmul_##dname(uint64_t a, uint64_t b, uint64_t c, int64_t n, int64_t k, \
                                                 int64_t m) {                                              \
        ck::matmul_body<T>(a, b, c, n, k, m);                                                              \
    }
CB_FOR_DTYPES(CB_MATMUL, _)

// ---- crc32c ------------------------------------------------------------------------------------
extern "C" __global__ void cb_crc32c(uint64_t in, int64_t n, int64_t chunk, int64_t chunks, uint64_t out) {
    ck::crc32c_body(in, n, chunk, chunks, out);
}

// ---- take / put / copyto (by element size), sort / argsort (by dtype) --------------------------
#define CB_INDEXING(bytes, U)                                                                                        \
    extern "C" __global__ void cb_take_##bytes(nd_layout L, int64_t n, uint64_t out, uint64_t indices, uint64_t in,  \
                                               int64_t n_in) {                                                       \
        ck::take_body<U>(L, n, out, indices, in, n_in);                                                              \
    }                                                                                                                \
    extern "C" __global__ void cb_put_##bytes(nd_layout L, int64_t n, uint64_t out, uint64_t indices,                \
                                              uint64_t values, int64_t n_out) {                                      \
        ck::put_body<U>(L, n, out, indices, values, n_out);                                                          \
    }                                                                                                                \
    extern "C" __global__ void cb_copyto_##bytes(nd_layout L, int64_t n, uint64_t out, uint64_t src, uint64_t mask) { \
        ck::copyto_body<U>(L, n, out, src, mask);                                                                    \
    }
CB_INDEXING(1, std::uint8_t)
CB_INDEXING(2, std::uint16_t)
CB_INDEXING(4, std::uint32_t)
CB_INDEXING(8, std::uint64_t)

#define CB_SORT(unused, dname, T)                                                                                    \
    extern "C" __global__ void cb_sort_##dname(uint64_t in, uint64_t out, int64_t rows, int64_t n) {                 \
        ck::sort_body<T>(in, out, rows, n);                                                                          \
    }                                                                                                                \
    extern "C" __global__ void cb_argsort_##dname(uint64_t in, uint64_t out, int64_t rows, int64_t n) {              \
        ck::argsort_body<T>(in, out, rows, n);                                                                       \
    }                                                                                                                \
    extern "C" __global__ void cb_sort_step_##dname(uint64_t data, int64_t rows, int64_t n, int64_t k, int64_t j) {  \
        ck::sort_step_body<T>(data, rows, n, k, j);                                                                  \
    }                                                                                                                \
    extern "C" __global__ void cb_argsort_step_##dname(uint64_t in, uint64_t out, int64_t rows, int64_t n,           \
                                                       int64_t k, int64_t j) {                                       \
        ck::argsort_step_body<T>(in, out, rows, n, k, j);                                                            \
    }
CB_FOR_DTYPES(CB_SORT, _)
