// Kernels whose barriers split them into straight regions: every thread meets the same barriers
// in the same order (no barrier inside a loop or a branch, no early exit before the last one).
// Such a kernel runs as one loop over the block's threads per region, as in POCL's work-group
// functions, instead of the general pass-after-pass loop with a resume switch per thread.
#pragma once

#include "sim/ptx/ast.hpp"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

// The body indices of the kernel's barriers when they split it into straight regions; empty when
// they do not (or when it parks at a warp-wide instruction), and the general loop runs it.
std::vector<size_t> straight_region_barriers(const function& kernel);

// The threads of a region that do more than skip it: a region that starts by branching to its
// end on a comparison of %tid.x with a constant (`if (threadIdx.x < stride)` in a tree
// reduction) does nothing else for the threads outside [lo, hi), so its loop visits only those.
struct region_threads {
    int64_t lo = 0;
    int64_t hi = std::numeric_limits<int64_t>::max();
    uint32_t skipped_instructions = 0;  // what each thread outside executes (the cost model's count)
};

// One entry per region (barriers.size() + 1). `recomputable`: recomputable.hpp's registers; the
// guard's predicate must be one, so that no later region reads a value a skipped thread lacks.
std::vector<region_threads> region_thread_ranges(const function& kernel, const std::vector<size_t>& barriers,
                                                 const std::map<std::string, size_t>& recomputable);

}  // namespace cudabridge::nv::ptx
