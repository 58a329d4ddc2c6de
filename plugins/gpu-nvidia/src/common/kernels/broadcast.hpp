// NumPy broadcasting: shapes aligned from the right, extent-1 dims stretch.
#pragma once

#include "common/errors/fail.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv::kernels {

struct shape_t {
    int ndim = 0;
    std::int64_t dims[k_max_dims] = {};
};

// The broadcast shape of a and b, or CB_ERR_INVALID_ARGUMENT with numpy's message
// "operands could not be broadcast together with shapes (2,3) (4,)".
cb_status broadcast_shapes(const tensor_view& a, const tensor_view& b, shape_t& out, std::string& error);

// A view of t stretched to `shape` (stride 0 on broadcast dims). Precondition: compatible.
tensor_view broadcast_to(const tensor_view& t, const shape_t& shape);

}  // namespace cudabridge::nv::kernels
