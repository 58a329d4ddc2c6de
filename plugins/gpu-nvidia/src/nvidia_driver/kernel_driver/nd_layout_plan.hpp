// The nd_layout a built-in CUDA kernel walks, from up to three views of one shape: dimensions
// merged where every operand is contiguous across them, exactly as the CPU engine's
// strided_plan does, so a same-shape or scalar-broadcast operation becomes one flat row.
#pragma once

#include "nvidia_driver/cuda_kernels/kernel_abi.hpp"
#include "common/kernels/tensor_view.hpp"

namespace cudabridge::nv {

// views[0] is the output; all share views[0]'s shape (broadcast inputs first). count: 1..3.
cuda_kernels::nd_layout make_nd_layout(const kernels::tensor_view* const* views, int count);

}  // namespace cudabridge::nv
