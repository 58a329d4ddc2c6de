// Registers a kernel can compute again wherever it needs them instead of keeping them in the
// thread's record across a barrier: each is written once, unguarded, by a side-effect-free
// instruction of thread indices, block and grid sizes, kernel parameters, variable addresses,
// immediates and other such registers (a thread's index, its shared slot, a parameter pointer).
// A read of one either sees that single write's value, or reads a register not yet written,
// whose value CUDA leaves undefined.
#pragma once

#include "sim/ptx/ast.hpp"

#include <cstddef>
#include <map>
#include <string>
#include <vector>

namespace cudabridge::nv::ptx {

// Each such register of a kernel, with the body index of the instruction that writes it.
std::map<std::string, size_t> recomputable_registers(const function& kernel);

// The instructions that compute `wanted` (those of them that are recomputable) again, with the
// ones they read first: body indices in an order that runs.
std::vector<size_t> recompute_order(const function& kernel, const std::map<std::string, size_t>& recomputable,
                                    const std::vector<std::string>& wanted);

}  // namespace cudabridge::nv::ptx
