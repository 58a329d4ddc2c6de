// Kernels whose barriers split them into straight regions: every thread meets the same barriers
// in the same order (no barrier inside a loop or a branch, no early exit before the last one).
// Such a kernel runs as one loop over the block's threads per region, as in POCL's work-group
// functions, instead of the general pass-after-pass loop with a resume switch per thread.
#pragma once

#include "sim/ptx/ast.hpp"

#include <cstddef>
#include <vector>

namespace cudabridge::nv::ptx {

// The body indices of the kernel's barriers when they split it into straight regions; empty when
// they do not (or when it parks at a warp-wide instruction), and the general loop runs it.
std::vector<size_t> straight_region_barriers(const function& kernel);

}  // namespace cudabridge::nv::ptx
