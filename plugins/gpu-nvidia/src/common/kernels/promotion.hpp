// NumPy 1.24 type promotion for the device's dtypes (array-with-array rules; 0-d operands are treated
// like arrays, i.e. without numpy 1.x value-based casting — the NEP 50 behaviour of numpy 2).
#pragma once

#include "common/kernels/dtype.hpp"
#include "common/kernels/ops.hpp"
#include "common/errors/fail.hpp"

namespace cudabridge::nv::kernels {

// np.result_type(a, b) for two array dtypes.
cb_dtype promote(cb_dtype a, cb_dtype b);

// The dtype the operands are converted to before the per-element function runs, and the dtype of
// the result. Binary ops: they differ for comparisons and logical_and/or/xor (result bool).
// Unary ops: compute is the input's dtype (the functor converts: exp of int32 is float64, isnan
// is bool, square of bool is int8). A float16 compute or result runs in float32, rounded once at
// the end (numpy's half loops). Errors as numpy's (CB_ERR_UNSUPPORTED): bool - bool, -bool,
// sign(bool), bitwise ops and shifts of floats.
struct op_types {
    cb_dtype compute;
    cb_dtype result;
};
cb_status binary_types(binary_op op, cb_dtype a, cb_dtype b, op_types& out, std::string& error);
cb_status unary_types(unary_op op, cb_dtype a, op_types& out, std::string& error);

// Shorthand: the result dtype, or -1 when the op is refused for these dtypes.
cb_dtype result_dtype(binary_op op, cb_dtype a, cb_dtype b);

// Result dtype of a reduction, numpy's on Linux: sum and prod of bool and the signed integers are
// int64, of the unsigned integers uint64; mean of integers and bool is float64.
cb_dtype reduce_result_dtype(reduce_op op, cb_dtype in);

}  // namespace cudabridge::nv::kernels
