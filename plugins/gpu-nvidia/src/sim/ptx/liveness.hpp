// Which registers a thread must keep when it parks: the registers live after each parking
// instruction (bar.sync, shfl.sync, ...) of a kernel, by a backward dataflow over the body's
// instructions. A register is live when some path from that point reads it before writing it.
// The analysis may keep a register that is not needed; it never drops one that is.
#pragma once

#include "sim/ptx/ast.hpp"

#include <map>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

// For each parking instruction, by its index in `f.body`: the registers live after it, but for
// the ones it writes itself, in declaration order; for a convergence point (layout.hpp), which
// parks before its access, the registers live before it.
std::map<size_t, std::vector<std::string>> live_after_parks(const function& f);

}  // namespace cudabridge::nv::ptx
