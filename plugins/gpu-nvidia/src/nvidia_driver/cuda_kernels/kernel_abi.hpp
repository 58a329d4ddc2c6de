// The calling convention of the built-in CUDA kernels, shared by the host launcher (compiled by
// the C++ compiler) and the kernels (compiled by nvcc): plain structs with one layout on both
// sides, the launch block size, and the names the fatbin exports.
//
// Kernel names are extern "C", built from one scheme so the launcher can find them by string:
//   cb_binary_<op>_<dtype>      (nd_layout, n, out, a, b)            op: binary_token(), dtype: compute
//   cb_unary_<op>_<dtype>       (nd_layout, n, out, a)               dtype: the input's
//   cb_cast_<to>_<from>         (nd_layout, n, out, in)
//   cb_fill_<bytes>             (nd_layout, n, out, bits)            bytes: 1, 2, 4, 8
//   cb_arange_<dtype>           (n, out, start_i, step_i, start_f, step_f, int_math)
//   cb_random_uniform_<dtype>   (n, out, seed, offset)               float32, float64
//   cb_reduce_rows_<op>_<dtype>   (in, rows, n, chunk, splits, partials, out)
//   cb_reduce_finish_<op>_<dtype> (partials, rows, splits, n, out)
//   cb_reduce_cols_<op>_<dtype>   (in, outer, n, inner, out)
//   cb_matmul_<dtype>           (a, b, c, n, k, m)                   row-major, contiguous
//   cb_crc32c                   (in, n, chunk, chunks, out)          uint8 in, int64 out
//   cb_take_<bytes>             (nd_layout, n, out, indices, in, n_in)     layout walks (out, indices)
//   cb_put_<bytes>              (nd_layout, n, out, indices, values, n_out) layout walks (indices, values)
//   cb_copyto_<bytes>           (nd_layout, n, out, src, mask)       bytes: 1, 2, 4, 8
//   cb_sort_<dtype>             (in, out, rows, n)                   contiguous rows of n; one block each
//   cb_argsort_<dtype>          (in, out, rows, n)                   int64 out
//   cb_sort_step_<dtype>        (data, rows, n, k, j)                one network step, all rows (long rows)
//   cb_argsort_step_<dtype>     (in, out, rows, n, k, j)             out: int64 indices so far
// <dtype> is numpy's name (float32 ... bool). Device addresses travel as 64-bit integers.
#pragma once

#include <cstdint>

namespace cudabridge::nv::cuda_kernels {

inline constexpr int k_max_dims = 8;
inline constexpr int k_max_operands = 3;

// Threads per block of every built-in kernel; the reductions rely on it being a power of two.
inline constexpr unsigned k_block_threads = 256;

// An N-d index space walked by up to three operands of one shape (after broadcasting), with the
// dimensions already merged where all operands are contiguous. Operand 0 is the output.
struct nd_layout {
    std::int32_t ndim;
    std::int32_t reserved;
    std::int64_t shape[k_max_dims];
    std::int64_t strides[k_max_operands][k_max_dims];  // in elements; 0 = broadcast
};

// The token of each kernels::binary_op / unary_op / reduce_op, in enum order (kernel names).
inline constexpr const char* k_binary_tokens[] = {
    "add",         "subtract",    "multiply",     "divide",      "floor_divide", "minimum",     "maximum",
    "power",       "arctan2",     "hypot",        "copysign",    "logaddexp",    "logaddexp2",  "fmod",
    "remainder",   "fmax",        "fmin",         "bitwise_and", "bitwise_or",   "bitwise_xor", "left_shift",
    "right_shift", "logical_and", "logical_or",   "logical_xor", "equal",        "not_equal",   "less",
    "less_equal",  "greater",     "greater_equal"};
// Unary kernels are named by the input's dtype; the functor's return type is the output's.
inline constexpr const char* k_unary_tokens[] = {
    "negate", "exp",        "expm1",   "exp2",     "log",     "log1p",       "log2",   "log10",   "sqrt",    "cbrt",
    "square", "reciprocal", "sin",     "cos",      "tan",     "arcsin",      "arccos", "arctan",  "sinh",    "cosh",
    "tanh",   "arcsinh",    "arccosh", "arctanh",  "floor",   "ceil",        "trunc",  "rint",    "deg2rad", "rad2deg",
    "sign",   "isnan",      "isinf",   "isfinite", "signbit", "logical_not", "invert", "absolute"};
inline constexpr const char* k_reduce_tokens[] = {"sum", "mean", "prod", "max", "min", "nanmax", "nanmin"};

}  // namespace cudabridge::nv::cuda_kernels
