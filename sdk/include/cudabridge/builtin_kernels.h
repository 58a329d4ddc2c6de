/* The built-in kernel library's calling convention for cb_gpu_table.launch_builtin.
 *
 * Every tensor operand is one CB_ARG_BYTES argument whose bytes are a cb_tensor_desc (size =
 * sizeof(cb_tensor_desc)); scalars are CB_ARG_INT64 / CB_ARG_UINT64 / CB_ARG_FLOAT64. The
 * kernels follow NumPy: broadcasting, type promotion, integer wrap-around. The output tensor must
 * already have the result's shape and dtype, and cb_kernel_launch.dtype must equal the output's
 * dtype. grid and block are chosen by the implementation for built-ins: pass zeros.
 *
 * name               arguments (in order)
 * ------------------ ---------------------------------------------------------------------------
 * add subtract multiply divide floor_divide minimum maximum
 * equal not_equal less less_equal greater greater_equal
 *                    a, b, out                     (comparisons write bool)
 * negative absolute  a, out
 * cast               in, out                       (in broadcast to out's shape)
 * fill               out, value (INT64 or FLOAT64)
 * arange             out, start, step (INT64 or FLOAT64 each); out contiguous
 * random_uniform     out, seed (UINT64), offset (UINT64); Philox4x32-10, float32/float64, [0, 1)
 * sum mean max min   in, out, axis (INT64; CB_REDUCE_ALL_AXES for every axis)
 * matmul             a, b, out                     (1-D and 2-D operands)
 * crc32c             in, out, chunk (INT64 > 0)    (ABI 1.3) in: UINT8, 1-D, contiguous, n bytes;
 *                    out: INT64, 1-D, ceil(n / chunk) elements; out[i] = the CRC-32C (Castagnoli,
 *                    reflected, init and final xor 0xFFFFFFFF: "123456789" gives 0xE3069283) of
 *                    bytes [i * chunk, min(n, (i + 1) * chunk)). Used for end-to-end checks.
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
