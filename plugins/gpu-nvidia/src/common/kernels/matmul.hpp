// Matrix product with numpy's matmul rules for 1-D and 2-D operands (a 1-D left operand is a row,
// a 1-D right operand a column, and the added dimension is removed from the result). float32 and
// float64 go to OpenBLAS (cblas_?gemm, row-major); integer and bool dtypes use a plain loop with
// numpy's wrap-around arithmetic. Stacks of matrices (both operands at least 2-D, one of them more)
// broadcast over their leading dims as numpy's matmul does, one product per matrix of the stack.
#pragma once

#include "common/kernels/broadcast.hpp"
#include "common/kernels/engine.hpp"
#include "common/errors/fail.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

cb_status plan_matmul(const tensor_view& a, const tensor_view& b, cb_dtype& dtype, shape_t& shape, std::string& error);

// Stacked operands: the stack's shape (the leading dims of the planned output, where the operands'
// leading dims broadcast to), and matrix `index` (in C order over that shape) of a stacked operand
// or result, as a 2-D view into its memory.
bool is_stacked(const tensor_view& a, const tensor_view& b);
shape_t stack_shape(const tensor_view& out);
std::int64_t stack_size(const shape_t& batch);
tensor_view matrix_of(const tensor_view& t, const shape_t& batch, std::int64_t index);

// out must be contiguous with the planned dtype and shape.
cb_status matmul(const tensor_view& a, const tensor_view& b, const tensor_view& out, std::string& error,
                 engine& eng = default_engine());

}  // namespace cudabridge::nv::kernels
