/* The built-in kernel library's calling convention for cb_gpu_table.launch_builtin.
 *
 * Every tensor operand is one CB_ARG_BYTES argument whose bytes are a cb_tensor_desc (size =
 * sizeof(cb_tensor_desc)); scalars are CB_ARG_INT64 / CB_ARG_UINT64 / CB_ARG_FLOAT64. The
 * kernels follow NumPy: broadcasting, type promotion, integer wrap-around. The output tensor must
 * already have the result's shape and dtype, and cb_kernel_launch.dtype must equal the output's
 * dtype. grid and block are chosen by the implementation for built-ins: pass zeros.
 *
 * Names are numpy's ufunc names; the result dtype is the one numpy 1.24 gives for the operands'
 * dtypes (array-array promotion: no value-based casting). Floating-point functions of int32 and
 * int64 compute in float64, of int16 in float32; those numpy would compute in float16 (bool, int8,
 * uint8 inputs) are refused with CB_ERR_UNSUPPORTED.
 *
 * name               arguments (in order)
 * ------------------ ---------------------------------------------------------------------------
 * add subtract multiply divide floor_divide minimum maximum
 * equal not_equal less less_equal greater greater_equal
 *                    a, b, out                     (comparisons write bool)
 * power arctan2 hypot copysign logaddexp logaddexp2 fmod remainder fmax fmin
 * bitwise_and bitwise_or bitwise_xor left_shift right_shift
 * logical_and logical_or logical_xor
 *                    a, b, out                     (logical_* write bool. Integer // % fmod
 *                    by zero give 0, remainder takes the divisor's sign, shifts by >= the bit
 *                    width give 0 (-1 for a negative >>), integer power wraps and expects a
 *                    non-negative exponent: callers check, as numpy refuses a negative one)
 * negative absolute  a, out
 * exp expm1 exp2 log log1p log2 log10 sqrt cbrt square reciprocal
 * sin cos tan arcsin arccos arctan sinh cosh tanh arcsinh arccosh arctanh
 * floor ceil trunc rint deg2rad rad2deg sign
 * isnan isinf isfinite signbit logical_not invert
 *                    a, out                        (isnan isinf isfinite signbit and
 *                    logical_not write bool; invert: integers and bool only)
 * cast               in, out                       (in broadcast to out's shape)
 * fill               out, value (INT64 or FLOAT64)
 * arange             out, start, step (INT64 or FLOAT64 each); out contiguous
 * random_uniform     out, seed (UINT64), offset (UINT64); Philox4x32-10, float32/float64, [0, 1)
 * sum mean max min   in, out, axis (INT64; CB_REDUCE_ALL_AXES for every axis)
 * nanmax nanmin      in, out, axis                 (ABI 1.12) numpy's fmax.reduce / fmin.reduce:
 *                    NaNs skipped, an all-NaN range gives NaN; keep the dtype; an empty range
 *                    fails; max / min for integers and bool
 * prod               in, out, axis                 (int64 for integers and bool, wrapping;
 *                    floats multiply in their own type). Sum and prod of integers are int64, mean
 *                    of integers float64, max/min keep the dtype; max/min of an empty range fail,
 *                    sum of one is 0, mean NaN; reduce empty ranges with prod only where the
 *                    caller fills the 1 itself (the Python package does).
 * matmul             a, b, out                     (1-D and 2-D operands; since ABI 1.12 also stacks:
 *                    both at least 2-D, one more, their leading dims broadcast as numpy's, out
 *                    batch + (n, m), one product per matrix)
 * crc32c             in, out, chunk (INT64 > 0)    (ABI 1.3) in: UINT8, 1-D, contiguous, n bytes;
 *                    out: INT64, 1-D, ceil(n / chunk) elements; out[i] = the CRC-32C (Castagnoli,
 *                    reflected, init and final xor 0xFFFFFFFF: "123456789" gives 0xE3069283) of
 *                    bytes [i * chunk, min(n, (i + 1) * chunk)). Used for end-to-end checks.
 * take               in, indices, out              out[k] = in.flat[indices[k] wrapped into
 *                    [0, in.size)] (numpy's take(..., mode='wrap')): in contiguous and non-empty
 *                    when out is not; indices INT64, broadcast to out's shape; out contiguous, in's
 *                    dtype. Callers check bounds first for numpy's IndexError.
 * put                values, indices, out          out.flat[indices[k] wrapped] = values[k], out
 *                    written in place (contiguous); values out's dtype, broadcast to indices'
 *                    shape. A repeated index keeps the last value on the CPU engine (numpy's put),
 *                    one of its values on a real GPU.
 * copyto             src, mask, out                numpy's copyto(out, src, where=mask), in place:
 *                    src out's dtype and mask BOOL, both broadcast to out's shape; any strides.
 * sort argsort       in, out                       each row of the last axis in numpy's ascending
 *                    order (NaN last, false before true); in and out contiguous, one shape,
 *                    ndim >= 1; sort writes in's dtype, argsort INT64 indices in the stable order.
 */
#ifndef CUDABRIDGE_BUILTIN_KERNELS_H
#define CUDABRIDGE_BUILTIN_KERNELS_H

#include "gpu.h"

#ifdef __cplusplus
extern "C" {
#endif

#define CB_TENSOR_MAX_DIMS 8
#define CB_REDUCE_ALL_AXES (-1000)

/* One tensor in device memory. Strides are in elements and may be 0 (broadcast) or negative. */
typedef struct cb_tensor_desc {
    uint64_t device_ptr;
    cb_dtype dtype;
    int32_t ndim; /* 0..CB_TENSOR_MAX_DIMS; 0 is a scalar */
    int64_t shape[CB_TENSOR_MAX_DIMS];
    int64_t strides[CB_TENSOR_MAX_DIMS];
} cb_tensor_desc;

#ifdef __cplusplus
}
#endif

#endif /* CUDABRIDGE_BUILTIN_KERNELS_H */
