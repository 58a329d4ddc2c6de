// Matrix product with numpy's matmul rules for 1-D and 2-D operands (a 1-D left operand is a row,
// a 1-D right operand a column, and the added dimension is removed from the result). float32 and
// float64 go to OpenBLAS (cblas_?gemm, row-major); integer and bool dtypes use a plain loop with
// numpy's wrap-around arithmetic. Stacked (>2-D) operands are not supported yet.
#pragma once

#include "common/kernels/broadcast.hpp"
#include "common/kernels/engine.hpp"
#include "common/errors/fail.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

cb_status plan_matmul(const tensor_view& a, const tensor_view& b, cb_dtype& dtype, shape_t& shape, std::string& error);

// out must be contiguous with the planned dtype and shape.
cb_status matmul(const tensor_view& a, const tensor_view& b, const tensor_view& out, std::string& error,
                 engine& eng = default_engine());

}  // namespace cudabridge::nv::kernels
