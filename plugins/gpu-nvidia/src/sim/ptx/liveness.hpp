// Which registers a thread must keep when it parks: the registers live after each parking
// instruction (bar.sync, shfl.sync, ...) of a kernel, by a backward dataflow over the body's
// instructions. A register is live when some path from that point reads it before writing it.
// The analysis may keep a register that is not needed; it never drops one that is.
#pragma once

#include "sim/ptx/ast.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

// For each parking instruction, by its index in `f.body`: the registers live after it, but for
// the ones it writes itself, in declaration order; for a convergence point (layout.hpp), which
// parks before its access, the registers live before it.
// `back_edges`: branches back to a loop's head at which a thread parks before jumping (layout.hpp's
// converging_back_edges): the registers live at the loop's head.
std::map<size_t, std::vector<std::string>> live_after_parks(const function& f, const std::set<size_t>& back_edges = {});

}  // namespace cudabridge::nv::ptx
