// Reductions (sum, mean, prod, max, min) over all elements or along one axis (keepdims=False).
#pragma once

#include "common/kernels/broadcast.hpp"
#include "common/kernels/engine.hpp"
#include "common/kernels/ops.hpp"
#include "common/errors/fail.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

inline constexpr int k_all_axes = -1000;  // reduce everything to a 0-d result

// Result dtype (reduce_result_dtype) and shape; axis may be negative as in numpy.
cb_status plan_reduce(reduce_op op, const tensor_view& in, int axis, cb_dtype& dtype, shape_t& shape,
                      std::string& error);

// out must be contiguous with the planned dtype and shape. max/min of an empty range fail with
// numpy's "zero-size array to reduction operation maximum which has no identity"; mean of an
// empty range is NaN, sum 0 and prod 1.
cb_status reduce(reduce_op op, const tensor_view& in, int axis, const tensor_view& out, std::string& error,
                 engine& eng = default_engine());

}  // namespace cudabridge::nv::kernels
